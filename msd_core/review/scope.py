"""Which files a phase touched: what a review of the phase reads.

Two sources, both from what msd keeps:
  plan     every PLAN.md of the phase folder: its `files_modified` and its tasks' `<files>`
           (msd_core.planning.plan); what the phase set out to change
  commit   the commits msd recorded for the phase (msd_core.execution.recorded); what it did change
A path is kept once, with every source that names it (`plan:02-01`, `commit:1a2b3c4d5e6f`).
Left out: `.planning/` itself (the phase's own records), paths that leave the project
(absolute, `..`), and folders a plan names with a trailing `/` (no file to read). A path a
plan named that no commit touched and that does not exist is kept with `exists: false`: a
review may report what was planned and never written.

Recorded commits need a git checkout and a current-milestone phase; without them the plans
are the only source and `notes` says why. Standard library only.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.lean.record import field, record

MAX_PLAN_BYTES = 2 * 1024 * 1024
MAX_FILES = 2000


@record
class Scope:
    phase: dict
    folder: Path
    files: list  # [{"path", "from": [...], "exists"}]
    plans: int = 0
    commits: int = 0
    notes: list = field(default_factory=list)

    def paths(self, existing: bool = True) -> list[str]:
        return [f["path"] for f in self.files if f["exists"] or not existing]

    def to_json(self) -> dict:
        out = {"phase": self.phase, "files": self.files, "plans": self.plans, "commits": self.commits}
        if self.notes:
            out["notes"] = self.notes
        return out


def _clean(path: str) -> str | None:
    from msd_core.planning.plan import normalize_declared

    p = normalize_declared(path)
    if not p or p.endswith("/") or p.startswith(("/", "../", "~")) or p == ".." or ".." in p.split("/"):
        return None
    if p == ".planning" or p.startswith(".planning/") or "\0" in p:
        return None
    return p


def phase_scope(root: Path, ref: str, *, must_exist: bool = True) -> Scope:
    """The files phase `ref` touched (module doc). UsageError for an unknown phase, and for one
    with no folder unless `must_exist` is false: then its folder-to-be, and no file."""
    from msd_core.errors import MsdError, OperationFailed
    from msd_core.planning.discovery import plan_files, plan_id
    from msd_core.planning.phase_ref import resolve
    from msd_core.planning.plan import parse_plan
    from msd_core.planning.project import read_text_file
    from msd_core.review.project_files import inside

    root = Path(root)
    ph = resolve(root / ".planning", ref, must_exist=must_exist)
    if ph.folder is None:
        return Scope(ph.to_dict(root), root / ".planning" / "phases" / ph.dirname, [],
                     notes=[f"phase {ph.label} has no folder yet: nothing is planned"])
    found: dict[str, list[str]] = {}
    notes: list[str] = []

    def add(path: str, source: str) -> None:
        p = _clean(path)
        if p is None:
            return
        sources = found.setdefault(p, [])
        if source not in sources:
            sources.append(source)

    plans = plan_files(ph.folder)
    for plan in plans:
        try:
            _raw, text = read_text_file(plan, "plan", MAX_PLAN_BYTES, strict_utf8=False)
        except OperationFailed as exc:
            notes.append(f"{plan.name} not read: {exc.message}")
            continue
        for path in parse_plan(text).files:
            add(path, f"plan:{plan_id(plan)}")
    commits = []
    if ph.milestone:
        notes.append(f"phase {ph.label} is archived: only its plans name its files (run records are the current milestone's)")
    else:
        try:
            from msd_core.execution import recorded
            from msd_core.git.repo_files import main_project

            commits = recorded.commits(recorded.select(main_project(root), phase=ph.id))
        except MsdError as exc:
            notes.append(f"recorded commits not read: {exc.message}")
    for c in commits:
        for path in c["files"]:
            add(path, f"commit:{c['hash'][:12]}")
    if not commits and not ph.milestone:
        notes.append("no commits recorded for this phase: the plans' files are the scope")
    files = []
    for path in sorted(found)[:MAX_FILES]:
        target = root / path
        exists = inside(root, path) and target.is_file() and not target.is_symlink()
        files.append({"path": path, "from": found[path], "exists": exists})
    if len(found) > MAX_FILES:
        notes.append(f"{len(found)} files named; the first {MAX_FILES} are the scope")
    return Scope(ph.to_dict(root), ph.folder, files, len(plans), len(commits), notes)
