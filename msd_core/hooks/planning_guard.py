"""What an agent's Write or Edit of a `.planning/` file would lose, in the words the agent is told.

Guarded ("tracked"): a file that exists now under a project's `.planning/` folder (the nearest
folder of that name above the file, symlinks followed), outside `.msd/`: msd's planning
documents (`*.md`) and `config.json`. Existing on disk is what counts, not git: a project with
`commit_docs: false` keeps `.planning/` out of git, and a research note not yet committed is
as much at risk. A new file loses nothing.

Refused (each finding is one sentence; findings() returns them all):
- any Write or Edit inside `.planning/.msd/` or of `.planning/state.json` (msd_run writes them);
- `config.json`: a change to its `guards` settings (a person changes them: `msd config set`), as
  guard_settings.guards_block reads them (the reading the guards use), also when the file is new;
- a `*.md` document whose frontmatter (a leading `---` block) would be dropped;
- a `*.md` document left with less than `guards.shrink_percent` (default 40) of its text, measured
  against a reference that outlives the session (shrink.py): the larger of the document now, its
  last committed version (`git show HEAD:`) and the guard's own record in `.planning/.msd/guard/`,
  in text that counts (whitespace, repeated lines and repeated words do not: blanking lines to
  spaces or replacing words with filler loses text as surely as deleting it). Documents whose
  reference is under MIN_BYTES are not measured, and neither is a roadmap whose dropped phases
  are all archived (complete-milestone collapses them into `.planning/milestones/`);
- any document left larger than lean/guard_limits.MAX_DOCUMENT (one cap for both transports);
- STATE.md: a section msd_run state reads (Position, Decisions, Blockers, Session, under any of
  their names in msd_core.planning.state_labels) that the file has and the write drops;
- ROADMAP.md: a phase dropped from the roadmap while its folder is in `.planning/phases/`
  (`msd_run phase remove` removes a phase; a phase with no folder yet may be reshaped freely);
- REQUIREMENTS.md: a requirement id the file defines (`**AUTH-01**` list items, table rows)
  that ROADMAP.md maps to a phase and the write drops;
- `*VERIFICATION.md`: a write that changes or drops the intact machine part `msd_run verify`
  wrote (msd_core.planning.check_status): the verifier's judgement goes around it.
"""

from __future__ import annotations

import os

from msd_core.lean.guard_limits import MAX_DOCUMENT
from msd_core.planning.md_lines import prose_lines

MIN_BYTES = 1024
MAX_READ = MAX_DOCUMENT
MAX_ARCHIVES = 64  # milestone roadmaps read to tell an archived phase
STATE_SECTIONS = (("Position", "Current Position"), ("Decisions",), ("Blockers", "Blockers/Concerns"),
                  ("Session", "Session Continuity"))


def planning_dir_of(file_path: str) -> tuple[str, str] | None:
    """(the `.planning/` folder, the path inside it, `/`-separated) for a file under one, else None.
    The path as resolved (symlinks followed: the file the write lands in) counts first, then as spelled."""
    for path in (os.path.realpath(file_path), os.path.abspath(file_path)):
        parts = path.split(os.sep)
        for i in range(len(parts) - 1, 0, -1):
            if parts[i] == ".planning" and i < len(parts) - 1:
                return os.sep.join(parts[: i + 1]), "/".join(parts[i + 1:])
    return None


def read_text(path: str) -> str | None:
    """The file's text (None: absent, not a regular file, or too large to judge). Read through
    msd_core.files.safe_read: a FIFO or device there is refused at once, never waited on."""
    from msd_core.files.safe_read import read_text as read_regular_text

    try:
        return read_regular_text(path, MAX_READ)
    except (OSError, ValueError):
        return None


def _headings(text: str) -> list[str]:
    out = []
    for _, line in prose_lines(text):
        s = line.strip()
        if s.startswith("#"):
            out.append(s.lstrip("#").strip().strip("*").strip().rstrip(":").strip().lower())
    return out


def _has_frontmatter(text: str) -> bool:
    text = text.lstrip("\ufeff")
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return False
    for line in text[4:].split("\n"):  # a closing `---` or `...` line (spaces, tabs and one CR after it allowed)
        if (line[:-1] if line.endswith("\r") else line).rstrip(" \t") in ("---", "..."):
            return True
    return False


def _state_findings(old: str, new: str) -> list[str]:
    had, has = _headings(old), _headings(new)
    lost = []
    for names in STATE_SECTIONS:
        low = [n.lower() for n in names]
        if any(h.startswith(n) for h in had for n in low) and not any(h.startswith(n) for h in has for n in low):
            lost.append(names[0])
    if not lost:
        return []
    return [f"it drops STATE.md's {', '.join(lost)} section{'s' if len(lost) > 1 else ''}, which `msd_run state` reads "
            "(change STATE.md with `msd_run state patch` / `msd_run state sync`, or keep every section)"]


def _phases_with_folders(planning: str) -> dict[str, str]:
    from pathlib import Path

    from msd_core.planning.discovery import phase_dirs

    return {p.number: f"phases/{p.name}" for p in phase_dirs(Path(planning)) if p.milestone is None and p.number}


def _archived(planning: str, numbers: list[str]) -> bool:
    """Whether every phase in `numbers` is archived: its folder under `.planning/milestones/`, or its
    `Phase N:` line in a milestone's archived roadmap (`.planning/milestones/*ROADMAP*.md`)."""
    from pathlib import Path

    from msd_core.planning.discovery import phase_dirs
    from msd_core.planning.roadmap import roadmap_phases

    left = set(numbers) - {p.number for p in phase_dirs(Path(planning)) if p.milestone is not None}
    folder = os.path.join(planning, "milestones")
    try:
        names = sorted(n for n in os.listdir(folder) if "ROADMAP" in n.upper() and n.endswith(".md"))[:MAX_ARCHIVES]
    except OSError:
        names = []
    for name in names:
        if not left:
            break
        left -= {p.number for p in roadmap_phases(read_text(os.path.join(folder, name)) or "")}
    return not left


def _roadmap_findings(planning: str, old: str, new: str) -> tuple[list[str], bool]:
    """(findings, whether every dropped phase is archived)."""
    from msd_core.planning.roadmap import roadmap_phases

    before = {p.number: p.name for p in roadmap_phases(old)}
    after = {p.number for p in roadmap_phases(new)}
    dropped = [n for n in before if n not in after]
    if not dropped:
        return [], False
    folders = _phases_with_folders(planning)
    live = [n for n in dropped if n in folders]
    if not live:
        return [], _archived(planning, dropped)
    named = ", ".join(f"{n} ({before[n]})" if before[n] else n for n in live[:6])
    where = ", ".join(f".planning/{folders[n]}/" for n in live[:3])
    return [f"it drops phase{'s' if len(live) > 1 else ''} {named} from the roadmap while its work is in {where} "
            "(remove a phase with `msd_run phase remove <n>`; otherwise keep its `Phase N:` lines)"], False


def _requirements_findings(planning: str, old: str, new: str) -> list[str]:
    from msd_core.planning.requirements import mapped_lost  # compiled on first use: only REQUIREMENTS.md needs it

    lost = mapped_lost(old, new, read_text(os.path.join(planning, "ROADMAP.md")) or "")
    if not lost:
        return []
    shown = ", ".join(lost[:8]) + (f" and {len(lost) - 8} more" if len(lost) > 8 else "")
    return [f"it drops requirement{'s' if len(lost) > 1 else ''} {shown}, which ROADMAP.md maps to phases "
            "(keep each id; a dropped requirement moves to Out of Scope with its id and a reason)"]


def _verification_findings(old: str, new: str) -> list[str]:
    if "<!-- msd:verify:start -->" not in old:
        return []
    from msd_core.planning.check_status import find_block

    before = find_block(old)
    if before is None or not before[3]:
        return []  # no intact machine part to keep: `msd_run verify` writes a new one
    after = find_block(new)
    if after is not None and after[2] == before[2] and after[3]:
        return []
    return ["it changes or drops the machine part `msd_run verify` wrote (from `<!-- msd:verify:start -->` to its end "
            "marker): keep it as it is and write your judgement around it; rerun `msd_run verify <n>` after a fix"]


def _guards_changed(old: str | None, new: str | None) -> bool:
    """Whether the write changes the `guards` settings as the guards read them (guard_settings.guards_block,
    the one reading: a file that cannot be read, or a text that does not parse, sets none)."""
    from msd_core.hooks.guard_settings import guards_block

    return guards_block(old) != guards_block(new)


def too_large(rel: str, new: str | None) -> str | None:
    """The refusal of a document left over MAX_DOCUMENT bytes (checked first: nothing else is judged then)."""
    if new is not None and len(new) * 4 > MAX_DOCUMENT and len(new.encode("utf-8")) > MAX_DOCUMENT:
        return (f"it would leave .planning/{rel} at {len(new.encode('utf-8')):,} bytes, over the {MAX_DOCUMENT >> 20} MiB a "
                "planning document may hold (keep large material outside `.planning/` and link to it from a short note)")
    return None


def findings(planning: str, rel: str, old: str | None, new: str | None, settings: dict, session: str | None) -> list[str]:
    """Why this write of `.planning/<rel>` (old text -> new text) is refused; [] = allowed."""
    if rel == ".msd" or rel.startswith(".msd/"):
        return ["`.planning/.msd/` holds msd's own records, which msd_run writes; an agent never writes there"]
    if rel == "state.json":
        return ["`.planning/state.json` is the flow state `msd_run next-step` and `msd_run step-done` keep; never write it"]
    if rel == "config.json":  # a new or unreadable config.json too: its guards settings are the user's
        if new is not None and _guards_changed(old, new):
            return ["it changes the `guards` settings, which are the user's to change (`msd config set guards.<key> ...` in their terminal)"]
        return []
    if old is None or new is None:
        return []
    if not rel.endswith(".md") or not settings.get("guards.planning_write", True):
        return []
    out = []
    if _has_frontmatter(old) and not _has_frontmatter(new):
        out.append("it drops the file's frontmatter (the `---` block at the top, which msd reads)")
    archived_collapse = False
    name = rel.rsplit("/", 1)[-1]
    if rel == "STATE.md":
        out += _state_findings(old, new)
    elif name == "ROADMAP.md" and "/" not in rel:
        found, archived_collapse = _roadmap_findings(planning, old, new)
        out += found
    elif rel == "REQUIREMENTS.md":
        out += _requirements_findings(planning, old, new)
    elif name.endswith("VERIFICATION.md"):
        out += _verification_findings(old, new)
    percent = settings.get("guards.shrink_percent", 40)
    if percent and not archived_collapse:
        from msd_core.hooks import shrink

        out += shrink.findings(planning, rel, old, new, percent, MIN_BYTES)
    return out
