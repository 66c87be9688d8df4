"""The planning files of one phase that the plan check and the verification read, read once.

`load(root, ref)` resolves the phase (msd_core.planning.phase_ref: exit 2 on a reference that
names no phase folder) and reads, through the never-blocking reader with a size cap: its
requirement IDs from ROADMAP.md, the decisions of its CONTEXT.md, and each PLAN.md (parsed
plan, must-haves, the line numbers findings point at). A file that cannot be read is named in
`unreadable` (file, reason) and left out; nothing here raises on content.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.lean.record import field, record

MAX_FILE = 2 * 1024 * 1024


@record
class PlanFile:
    pid: str
    path: Path
    rel: str
    text: str
    plan: object  # msd_core.planning.plan.Plan
    must: object  # msd_core.planning.must_haves.MustHaves

    @property
    def requirement_ids(self) -> list[str]:
        """The requirement IDs the frontmatter `requirements` names (a list or a string)."""
        from msd_core.planning.roadmap import REQ_ID_RE

        reqs = self.plan.frontmatter.get("requirements") or []
        return list(dict.fromkeys(REQ_ID_RE.findall(" ".join(map(str, reqs)) if isinstance(reqs, list) else str(reqs))))

    def line_of(self, needle: str, default: int = 1) -> int:
        """The first line holding `needle` (1-based), else `default`."""
        if needle:
            at = self.text.find(needle)
            if at >= 0:
                return self.text.count("\n", 0, at) + 1
        return default


@record
class PhaseFiles:
    root: Path
    phase: object  # msd_core.planning.phase_ref.Phase
    folder: Path
    requirements: list = field(default_factory=list)
    requirements_line: int = 0
    context_rel: str = ""
    decisions: object = None  # msd_core.planning.decisions.Decisions, None without a CONTEXT.md
    plans: list = field(default_factory=list)  # PlanFile
    unreadable: list = field(default_factory=list)  # (file, reason)


def read(path: Path, root: Path, unreadable: list) -> str | None:
    from msd_core.planning.project import read_text_file

    try:
        return read_text_file(path, "file", MAX_FILE, strict_utf8=False)[1]
    except Exception as exc:  # noqa: BLE001 - OperationFailed and OSError alike: named, the rest is read
        unreadable.append((rel_to(path, root), getattr(exc, "message", str(exc))))
        return None


def rel_to(path: Path, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return str(path)


def load(root: Path, ref: str) -> PhaseFiles:
    from msd_core.errors import UsageError
    from msd_core.planning import must_haves
    from msd_core.planning.decisions import parse_decisions
    from msd_core.planning.discovery import plan_files, plan_id
    from msd_core.planning.phase_ref import resolve
    from msd_core.planning.plan import parse_plan
    from msd_core.planning.roadmap import phase_requirements

    planning = root / ".planning"
    phase = resolve(planning, ref, must_exist=True)
    folder = Path(phase.folder)
    if folder.is_symlink() or not folder.is_dir():
        raise UsageError(f"phase folder {rel_to(folder, root)} is not a folder (symlinks are not followed)")
    out = PhaseFiles(root, phase, folder)
    roadmap = read(planning / "ROADMAP.md", root, out.unreadable)
    if roadmap is not None:
        out.requirements, out.requirements_line = phase_requirements(roadmap, phase.number)
    contexts = sorted(p for p in folder.iterdir() if p.name.endswith("CONTEXT.md") and not p.is_symlink() and p.is_file())
    if contexts:
        ctx = contexts[0]
        out.context_rel = rel_to(ctx, root)
        text = read(ctx, root, out.unreadable)
        if text is not None:
            out.decisions = parse_decisions(text)
    for link in sorted(p for p in folder.iterdir() if p.name.endswith("PLAN.md") and p.is_symlink()):
        out.unreadable.append((rel_to(link, root), "a symlink: not followed"))
    for path in plan_files(folder):
        text = read(path, root, out.unreadable)
        if text is None:
            continue
        plan = parse_plan(text)
        out.plans.append(PlanFile(plan_id(path), path, rel_to(path, root), text, plan, must_haves.read(plan.frontmatter)))
    return out


def uat(files: PhaseFiles) -> dict | None:
    """The phase's newest-named UAT file: its written status and the status its rows support
    (msd_core.planning.check_status), or None when there is none."""
    from msd_core.planning import check_status
    from msd_core.planning.frontmatter import split_frontmatter

    found = sorted(p for p in files.folder.glob("*UAT.md") if p.is_file() and not p.is_symlink())
    if not found:
        return None
    rel = rel_to(found[-1], files.root)
    text = read(found[-1], files.root, [])
    if text is None:
        return {"file": rel, "status": None, "derived": None, "rows": 0}
    data, _body, _err = split_frontmatter(text, frozenset({"status"}))
    raw = (data or {}).get("status") if isinstance(data, dict) else None
    written = str(raw).split()[0].lower() if raw else None
    return {"file": rel, "status": written, "derived": check_status.uat_status(text, written),
            "rows": len(check_status.uat_rows(text))}
