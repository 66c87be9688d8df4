"""Health checks of the planning files themselves (codes in msd_core.health.codes).

Phases are read the way every other command reads them: `discovery.phase_dirs` (which folder is
a phase) and the position model of msd_core.progress (each phase's plans, summaries and state),
so health never disagrees with `next` or `state sync` about what a folder is. Nothing is written.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from msd_core.health.codes import Finding

MAX_READ = 2 * 1024 * 1024
PHASE_DOCS = ("-PLAN.md", "-SUMMARY.md", "-CONTEXT.md", "-RESEARCH.md", "-VERIFICATION.md", "-UAT.md")
FRONTMATTER_DOCS = ("PLAN.md", "SUMMARY.md", "VERIFICATION.md", "UAT.md", "CONTEXT.md")
HANDOFF_PREFIX = ".continue-here"


def rel(root: Path, path: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return str(path)


def read_text(path: Path) -> str | None:
    """The file's text (undecodable bytes replaced); None when it is absent, not a regular file or too large."""
    from msd_core.files.safe_read import read_regular

    try:
        return read_regular(path, MAX_READ, follow_symlinks=False).decode("utf-8", errors="replace")
    except OSError:
        return None


def _entries(folder: Path) -> list[os.DirEntry]:
    try:
        return sorted((e for e in os.scandir(folder) if e.is_file(follow_symlinks=False)), key=lambda e: e.name)
    except OSError:
        return []


class Tree:
    """What the checks share: the phase folders, ROADMAP.md's phases and the position model."""

    def __init__(self, root: Path):
        from msd_core.planning.discovery import phase_dirs
        from msd_core.planning.roadmap import roadmap_phases

        self.root = Path(root)
        self.planning = self.root / ".planning"
        self.skipped: list = []
        self.dirs = phase_dirs(self.planning, self.skipped)
        self.current = [d for d in self.dirs if d.milestone is None and d.number is not None]
        self.archived_numbers = {d.number for d in self.dirs if d.milestone is not None}
        self.roadmap_text = read_text(self.planning / "ROADMAP.md")
        self.roadmap = roadmap_phases(self.roadmap_text or "")
        self.mentioned = mentioned_numbers(self.roadmap_text or "")
        self.in_details = details_numbers(self.roadmap_text or "")
        self.archived_roadmaps = archived_roadmaps(self.planning)
        self.where = _position(self.root, self.roadmap_text)
        self.position = (self.where.phases, self.where.states, self.where.current)

    def archived_milestone_of(self, number: str) -> str | None:
        """The archived milestone whose roadmap names phase `number` (its file's label), or None."""
        for label, numbers in self.archived_roadmaps.items():
            if number in numbers:
                return label
        return None


_MENTION = re.compile(r"\bPhases?\s+(\d+(?:\.\d+)?)(?:\s*(?:-|–|—|to|through)\s*(\d+(?:\.\d+)?))?", re.I)
MAX_RANGE = 500


def mentioned_numbers(text: str) -> set[str]:
    """Every phase number a roadmap's text names: `Phase 2`, `Phase 02:`, `Phases 8-12` (each of 8..12)."""
    from msd_core.planning.discovery import normalize_phase

    out: set[str] = set()
    for m in _MENTION.finditer(text):
        first = normalize_phase(m.group(1))
        if first is None:
            continue
        out.add(first)
        if m.group(2) and "." not in m.group(1) and "." not in m.group(2):
            lo, hi = int(m.group(1)), int(m.group(2))
            if lo < hi and hi - lo <= MAX_RANGE:
                out.update(str(n) for n in range(lo, hi + 1))
    return out


def details_numbers(text: str) -> set[str]:
    """Phase numbers named inside `<details>` blocks (how roadmaps fold an archived milestone)."""
    out: set[str] = set()
    for block in re.findall(r"<details>(.*?)</details>", text, re.S | re.I):
        out |= mentioned_numbers(block)
    return out


def archived_roadmaps(planning: Path) -> dict[str, set[str]]:
    """{label: phase numbers} of the archived milestones' roadmaps (milestones/<v>-ROADMAP.md,
    milestones/<v>/ROADMAP.md, archive/<v>/ROADMAP.md)."""
    out: dict[str, set[str]] = {}
    candidates = []
    for base in (planning / "milestones", planning / "archive"):
        for e in _entries(base):
            if e.name.endswith("ROADMAP.md"):
                candidates.append((e.name[: -len("ROADMAP.md")].rstrip("-_") or e.name, Path(e.path)))
        try:
            subs = [d for d in os.scandir(base) if d.is_dir(follow_symlinks=False)]
        except OSError:
            subs = []
        for d in sorted(subs, key=lambda d: d.name):
            road = Path(d.path) / "ROADMAP.md"
            if road.is_file() and not road.is_symlink():
                candidates.append((d.name, road))
    for label, path in candidates:
        text = read_text(path)
        if text:
            out.setdefault(label, set()).update(mentioned_numbers(text))
    return out


def _position(root: Path, roadmap_text: str | None):
    """The position model (msd_core.progress.lifecycle.where), the one reading of where the project is."""
    from msd_core.progress.lifecycle import where

    return where(root, roadmap_text=roadmap_text or "", read_state=False)


def planning_files(t: Tree) -> list[Finding]:
    out = []
    for name in ("PROJECT.md", "ROADMAP.md", "STATE.md"):
        if not os.path.lexists(t.planning / name):
            out.append(Finding("planning-file-missing", f".planning/{name}", f"{name} is missing"))
    path = t.planning / "config.json"
    if os.path.lexists(path):
        from msd_core.errors import UsageError
        from msd_core.files.jsonfile import read_json_object

        try:
            data, _ = read_json_object(path, "config", MAX_READ, hint="fix it by hand")
        except UsageError as exc:
            out.append(Finding("config-unreadable", ".planning/config.json", exc.message))
        else:
            out += _config_values(data or {})
    return out


def _config_values(data: dict) -> list[Finding]:
    """config-value-invalid: each value of a schema key the schema does not allow (read as its default)."""
    from msd_core.config import schema
    from msd_core.config.store import stored_problem

    out = []
    for key in schema.keys():
        if schema.object_parent(key):
            continue  # checked with its parent (parallelization: a bool or its fields)
        here = data
        for part in key.split("."):
            here = here.get(part, _ABSENT) if isinstance(here, dict) else _ABSENT
        if here is _ABSENT:
            continue
        msg = stored_problem(key, here)
        if msg:
            out.append(Finding("config-value-invalid", ".planning/config.json",
                               f"{key}: {msg}; msd reads the default {json.dumps(schema.default(key))} "
                               f"(fix: msd config set {key} <value>)"))
    return out


_ABSENT = object()


def phase_folders(t: Tree) -> list[Finding]:
    from msd_core.planning.discovery import LINKED, shared_numbers

    out = []
    for s in t.skipped:
        if s.reason == LINKED:
            out.append(Finding("phase-folder-link", rel(t.root, s.path), f"{rel(t.root, s.path)} is a symlink; not followed"))
        elif s.milestone is None:
            held = " and holds plans or summaries that no command reads" if s.blocks else ""
            out.append(Finding("phase-folder-unnamed", rel(t.root, s.path),
                               f"{s.path.name} does not start with a phase number (NN-name){held}"))
    for number, names in shared_numbers(t.current).items():
        out.append(Finding("phase-number-shared", f".planning/phases/{names[1]}",
                           f"phase {number} has {len(names)} folders ({', '.join(names)}); only {names[0]} is read",
                           folders=names))
    listed = {p.number for p in t.roadmap}
    if t.roadmap_text is not None:
        archived: dict[str, list[str]] = {}
        for d in t.current:
            if d.number in t.mentioned and d.number not in t.in_details:
                continue
            milestone = t.archived_milestone_of(d.number)
            if d.number in t.in_details or milestone:
                archived.setdefault(milestone or "folded in ROADMAP.md", []).append(d.name)
            else:
                out.append(Finding("phase-missing-from-roadmap", rel(t.root, d.path),
                                   f"{d.name}: ROADMAP.md names no phase {d.number}"))
        for label, names in archived.items():
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            out.append(Finding("phase-folder-of-archived-milestone", ".planning/phases",
                               f"{len(names)} folder(s) of archived milestone {label} still in phases/ ({shown}); "
                               "readers count them in the current milestone", folders=names))
    ordered, _states, _current = t.position
    for p in ordered:
        if p.folder is not None or p.number not in listed or p.number in t.archived_numbers:
            continue
        if p.number in t.in_details or t.archived_milestone_of(p.number):
            continue  # an archived milestone's phase, folded into ROADMAP.md
        if p.roadmap_done:  # an unticked phase without a folder is one not started yet (planning ahead makes them)
            out.append(Finding("roadmap-phase-missing-folder", ".planning/ROADMAP.md",
                               f"phase {p.number} ({p.name or 'unnamed'}) has no folder in phases/, though it is ticked done"))
    for e in _entries(t.planning / "phases"):
        if e.name.endswith(PHASE_DOCS) or e.name in ("PLAN.md", "SUMMARY.md"):
            out.append(Finding("phase-file-outside-folder", f".planning/phases/{e.name}",
                               f"{e.name} lies directly in phases/; no phase reads it"))
    return out


def plans_and_summaries(t: Tree) -> list[Finding]:
    from msd_core.planning.discovery import normalize_phase, plan_id_of_name

    out = []
    ordered, _states, current = t.position
    at = next((i for i, p in enumerate(ordered) if current is not None and p is current[0]), len(ordered))
    for i, p in enumerate(ordered):
        if p.folder is None or not p.unsummarised:
            continue
        moved_past = i < at or p.roadmap_done
        if moved_past:
            for name in p.unsummarised:
                why = "it is ticked done" if p.roadmap_done else "the project has moved past it"
                out.append(Finding("plan-summary-missing", rel(t.root, p.folder / name),
                                   f"{name} has no SUMMARY, though phase {p.number} is not being executed ({why})"))
    for d in t.dirs:
        names = [e.name for e in _entries(d.path)]
        plans = {plan_id_of_name(n) for n in names if n.endswith("-PLAN.md")}
        for n in names:
            if n.endswith("-SUMMARY.md") and plan_id_of_name(n) not in plans and d.milestone is None:
                out.append(Finding("summary-plan-missing", rel(t.root, d.path / n), f"{n} has no {plan_id_of_name(n)}-PLAN.md beside it"))
            if d.number is not None and n[:1].isdigit() and n.endswith(("-PLAN.md", "-SUMMARY.md")):
                named = normalize_phase(n)
                if named is not None and named != d.number and d.milestone is None:
                    out.append(Finding("file-prefix-mismatch", rel(t.root, d.path / n),
                                       f"{n} is named for phase {named} but lies in {d.name} (phase {d.number})"))
    return out


def frontmatter(t: Tree) -> list[Finding]:
    from msd_core.planning.frontmatter import split_frontmatter

    out = []
    files = [t.planning / "STATE.md"]
    for d in t.dirs:
        files += [Path(e.path) for e in _entries(d.path) if e.name.endswith(FRONTMATTER_DOCS)]
    for path in files:
        text = read_text(path)
        if text is None:
            continue
        _data, _body, error = split_frontmatter(text)
        if error is None:
            continue
        code = "frontmatter-not-yaml" if error.startswith("yaml rejected") and _data is not None else "frontmatter-unreadable"
        out.append(Finding(code, rel(t.root, path), " ".join(error.split())[:200]))
    return out


def state(t: Tree) -> list[Finding]:
    from msd_core.errors import MsdError
    from msd_core.progress.state_sync import sync

    path = t.planning / "STATE.md"
    if not path.is_file() or path.is_symlink():
        return []
    try:
        report = sync(t.root, check=True, warnings=False)
    except MsdError as exc:
        if "UTF-8" in exc.message:
            return [Finding("state-unreadable", ".planning/STATE.md", exc.message)]
        return []  # the phase list cannot be read whole: the folder findings say why
    changed = [c for c in report["changed"] if c["field"] not in TIME_FIELDS]
    if not changed:
        return []  # only the date of the last activity: file times, which a clone or a checkout resets
    fields = ", ".join(f"{c['field']} ({c['old']!r} -> {c['new']!r})" for c in changed[:4])
    more = f" and {len(changed) - 4} more" if len(changed) > 4 else ""
    text = read_text(path) or ""
    if msd_layout(text):
        return [Finding("state-stale", ".planning/STATE.md", f"derived lines differ from the tree: {fields}{more}",
                        changed=changed)]
    return [Finding("state-drift", ".planning/STATE.md",
                    f"STATE.md in another tool's layout says otherwise than the tree: {fields}{more}; "
                    "`msd_run state sync` would rewrite those lines", changed=changed)]


TIME_FIELDS = ("Last activity", "Last change")


def msd_layout(text: str) -> bool:
    """Whether STATE.md is laid out as msd's template writes it (a `## Position` section): its
    position lines are then msd's own derivation, safe to re-derive; in another tool's layout they
    may hold a person's words."""
    return re.search(r"^##\s+Position\s*$", text, re.M) is not None


def handoffs(t: Tree) -> list[Finding]:
    """A pause handoff for work that is finished, judged by the position model (never by file times,
    which a clone or a copy resets): one in a phase folder whose phase is done or passed (`handoff-left`),
    and one at `.planning/` whose frontmatter names such a phase (`handoff-stale`: `next` routes to it)."""
    from msd_core.planning.discovery import normalize_phase
    from msd_core.planning.frontmatter import split_frontmatter

    ordered, states, current = t.position
    at = next((i for i, p in enumerate(ordered) if current is not None and p is current[0]), len(ordered))
    finished = {p.number for i, (p, s) in enumerate(states) if s == "done" or i < at}
    out = []
    for i, p in enumerate(ordered):
        if p.folder is None or p.number not in finished:
            continue
        for e in _entries(p.folder):
            if e.name.startswith(HANDOFF_PREFIX) and e.name.endswith(".md"):
                out.append(Finding("handoff-left", rel(t.root, Path(e.path)),
                                   f"{e.name} is left in phase {p.number}, which is finished; delete it once it is used up"))
    for e in _entries(t.planning):
        if not (e.name.startswith(HANDOFF_PREFIX) and e.name.endswith(".md")):
            continue
        data, _body, _err = split_frontmatter(read_text(Path(e.path)) or "")
        named = normalize_phase((data or {}).get("phase")) if isinstance(data, dict) else None
        if named is not None and named in finished:
            out.append(Finding("handoff-stale", rel(t.root, Path(e.path)),
                               f"{e.name} hands off phase {named}, which is finished, yet `msd_run next` routes to "
                               "resume-work while it exists; delete it once it is used up"))
    return out


CHECKS = (planning_files, phase_folders, plans_and_summaries, frontmatter, state, handoffs)
