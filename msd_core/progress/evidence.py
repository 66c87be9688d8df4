"""Whether a summarised plan is proven done: the evidence `lifecycle.executed` asks for, so a plan is not
called done on an agent's word.

A plan is complete when msd has seen all of:

1. its SUMMARY (the phase folder's `<plan>-SUMMARY.md`: lifecycle reads that);
2. at least one commit recorded for it by `msd_run commit --plan` (its run record,
   `.planning/.msd/runs/<phase-dir>__<plan-id>.json`, msd_core.execution.run_record, in the
   main checkout: a linked worktree's `.git` file leads there);
3. recorded commits that together touch every path its frontmatter `files_modified` declares
   (a declared folder `src/auth/` is touched by any file under it), or a recorded deviation
   (a commit made with `--deviation "<why>"`) saying why a declared path was left.

Which plans need it: every plan of a project msd wrote, from its first command (a project begun
elsewhere has plans no commit of msd's recorded). The
marker `.planning/.msd/evidence.json` (`{"since": <epoch seconds>, "cutoff": {"<phase-dir>/<plan-id>":
"<sha256 of its SUMMARY>", ...}}`) is written once (`begin`), when msd creates the project (`msd init new-project`, or the
new-project flow's first `msd_run config set` that creates `.planning/config.json`), when a person
adopts an older project (`msd_run evidence adopt`), and, for a tree that came to msd neither way,
by its first `msd_run wave plan` or `msd_run commit --plan`. `cutoff` lists the plans summarised
when the marker was written, each with its SUMMARY's sha256: those, and only while their SUMMARY
is unchanged, are taken on their word; every other SUMMARY needs the evidence, whenever its file was
written, copied or checked out (a file's time is not asked). A marker without `cutoff`
(written by an older msd) exempts SUMMARYs written before `since`. A project with no marker (a tree
msd never wrote, or a fresh clone: `.planning/.msd/` is git-ignored) is taken on its SUMMARYs.

The run record is the evidence read first (a JSON read per plan, no git call: `next` stays
fast). A plan it does not prove is then looked up in git, once per process for all plans: the
commits reachable from HEAD whose `Msd-Plan: <phase-dir>/<plan-id>` trailer names it (and
`Msd-Deviation:`), as `msd_run commit --plan` writes them. Run records stay in the clone that
made them (`.planning/.msd/` is never committed), so a teammate's plan merged in is proven by
its commits, never sent back to be executed again. Undo and wave merge check each recorded
commit against git itself (msd_core.execution.provenance).
Nothing here writes except `begin` (and `mark_since`, its quiet form). Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from msd_core import paths

SINCE_FILE = "evidence.json"
MAX_RECORD = 4 * 1024 * 1024  # a run record's size cap (msd_core.execution.run_record reads it from here)
MAX_MARKER = 1024 * 1024  # the evidence marker's cap (its cutoff lists every plan summarised before msd)
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_HASH = re.compile(r"[0-9a-f]{7,64}")


def main_root(root: Path) -> Path:
    """The project at `root` as the main checkout holds it (msd_core.git.repo_files.main_project)."""
    from msd_core.git.repo_files import main_project

    return main_project(root)


def marker(main: Path) -> dict | None:
    """The evidence marker: {"since": float, "cutoff": {"<phase-dir>/<plan-id>": SUMMARY sha256} or None (an
    older marker: SUMMARYs before `since` are exempt)}; None when there is none, or it is unreadable or damaged."""
    from msd_core.files.bounded import loads_json
    from msd_core.files.safe_read import read_regular

    try:
        data = loads_json(read_regular(paths.project_state_dir(main) / SINCE_FILE, MAX_MARKER, follow_symlinks=False),
                          "the evidence marker")
    except (OSError, ValueError):
        return None
    value = data.get("since") if isinstance(data, dict) else None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    cutoff = data.get("cutoff")
    return {"since": float(value),
            "cutoff": {k: v for k, v in cutoff.items() if isinstance(v, str)} if isinstance(cutoff, dict) else None}


def since(main: Path) -> float | None:
    """When msd began asking this project for evidence (None: never, or the marker is unreadable or damaged)."""
    found = marker(main)
    return found["since"] if found else None


def summary_hash(path: Path) -> str | None:
    """The sha256 of a SUMMARY's bytes (None: not a regular file msd can read). The file layer's sha256,
    which keeps hashlib off msd_run's hot path."""
    from msd_core.files.atomic import sha256_bytes
    from msd_core.files.safe_read import read_regular

    try:
        return sha256_bytes(read_regular(path, MAX_RECORD, follow_symlinks=False))
    except (OSError, ValueError):
        return None


def summarised(main: Path) -> dict[str, str]:
    """{"<phase-dir>/<plan-id>": its SUMMARY's sha256} of every plan summarised in the project's phase folders now."""
    from msd_core.planning.discovery import plan_id

    phases = Path(main) / ".planning" / "phases"
    out: dict[str, str] = {}
    try:
        folders = [e for e in os.scandir(phases) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return out
    for folder in sorted(folders, key=lambda e: e.name):
        try:
            names = sorted(e.name for e in os.scandir(folder.path) if e.is_file(follow_symlinks=False))
        except OSError:
            continue
        for name in names:
            if name.endswith("-SUMMARY.md") or name == "SUMMARY.md":
                digest = summary_hash(Path(folder.path) / name)
                if digest is not None:
                    out[f"{folder.name}/{plan_id(Path(folder.path) / name)}"] = digest
    return out


def begin(main: Path) -> dict:
    """Write the marker unless there is one: from now on every SUMMARY needs its evidence, except those
    of the plans summarised now, as their SUMMARYs read now (its `cutoff`). {"since", "cutoff": {plan: sha256},
    "created": bool}; OSError when it cannot be written."""
    from msd_core.files.atomic import atomic_write_bytes
    from msd_core.files.private_dir import ensure_private_dir

    target = paths.project_state_dir(main) / SINCE_FILE
    if os.path.lexists(target):
        found = marker(main)
        if found is not None:
            return {"since": found["since"], "cutoff": found["cutoff"], "created": False}
        raise OSError(f"{target} exists but is not an evidence marker; move it aside and run `msd_run evidence adopt`")
    cutoff = summarised(main)
    now = time.time()
    folder = ensure_private_dir(main)
    atomic_write_bytes(folder / SINCE_FILE, (json.dumps({"since": now, "cutoff": cutoff}, indent=1) + "\n").encode("utf-8"))
    return {"since": now, "cutoff": cutoff, "created": True}


def mark_since(main: Path) -> None:
    """`begin`, best effort: a read-only project (or a damaged marker) is left as it is."""
    try:
        begin(main)
    except OSError:
        pass


def record_name(phase_dir: str, plan_id: str) -> str:
    """The file name of a plan's run record in `.planning/.msd/runs/` (the one rule for writer and readers)."""
    return f"{_SAFE.sub('_', phase_dir)}__{_SAFE.sub('_', plan_id)}.json"


def _record(main: Path, phase_dir: str, plan_id: str) -> tuple[dict | None, str | None]:
    """(the plan's run record or None, why it could not be read)."""
    from msd_core.files.bounded import loads_json
    from msd_core.files.safe_read import read_regular

    name = record_name(phase_dir, plan_id)
    path = paths.project_state_dir(main) / "runs" / name
    try:
        data = loads_json(read_regular(path, MAX_RECORD, follow_symlinks=False), f"run record {name}")
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError) as exc:
        return None, f"its run record {name} cannot be read ({getattr(exc, 'strerror', None) or exc})"
    if not isinstance(data, dict) or not isinstance(data.get("commits", []), list):
        return None, f"its run record {name} is not a run record"
    return data, None


def declared(plan_text: str) -> list[str]:
    """The plan's frontmatter `files_modified`, normalised (tasks' `<files>` are not counted)."""
    from msd_core.planning.plan import normalize_declared, parse_plan, split_files

    plan = parse_plan(plan_text, frozenset({"files-modified"}))
    fm = plan.frontmatter
    return [normalize_declared(f) for f in split_files(fm.get("files_modified") or fm.get("files-modified")) if f.strip()]


def touched(path: str, files: set[str]) -> bool:
    return path in files or (path.endswith("/") and any(f.startswith(path) for f in files))


def _verdict(plan_id: str, commits: list[dict], plan_text: str | None, prefix: str = "") -> dict | None:
    """What `commits` (run-record entries: hash, files, deviation) leave the plan lacking; None when proven.
    `prefix`: the project's folder from the work tree's top ("services/api/"): git names files from the
    top, a plan from its project."""
    if not commits:
        return {"plan": plan_id, "step": "execute",
                "reason": f"plan {plan_id} has a SUMMARY but no commit recorded by `msd_run commit --plan`"}
    if plan_text is None:
        return None
    files = {f[len(prefix):] if prefix and f.startswith(prefix) else f
             for c in commits for f in c.get("files", []) if isinstance(f, str)}
    left = [d for d in declared(plan_text) if not touched(d, files)]
    if left and not any(isinstance(c.get("deviation"), str) and c["deviation"].strip() for c in commits):
        return {"plan": plan_id, "step": "execute", "untouched": left,
                "reason": f"plan {plan_id}'s recorded commits do not touch {', '.join(left[:3])}"
                          + (", ..." if len(left) > 3 else "") + " (declared in files_modified; no deviation recorded)"}
    return None



def _git_commits(main: Path, project_rel: str = "") -> dict[str, list[dict]]:
    """{"<phase-dir>/<plan-id>": the commits reachable from HEAD that `msd_run commit --plan` made for
    it, as run-record entries}: one `git log` for every plan ({} outside git). Only the plans of the root
    at `project_rel` (its folder from the work tree's top): another root's `01-setup/01-01` is not this
    one's (msd_core.git.trailers.plans_of)."""
    from msd_core.git.trailers import DEVIATION_KEY, PLAN_KEY, ROOT_KEY, log, plans_of

    alone: list[bool] = []

    def only_root() -> bool:  # asked at most once, and only for a commit made before roots were named
        if not alone:
            from msd_core.progress.root_walk import only_root as walk

            alone.append(walk(main))
        return alone[0]

    by_plan: dict[str, list[dict]] = {}
    for c in log(main, ["HEAD", "--no-merges", f"--grep=^{PLAN_KEY}: "], (PLAN_KEY, ROOT_KEY, DEVIATION_KEY)) or []:
        entry = {"hash": c.hash, "files": c.files, "deviation": "; ".join(c.trailers[DEVIATION_KEY]) or None}
        for named in plans_of(c.trailers, project_rel, only_root):
            by_plan.setdefault(named, []).append(entry)
    return by_plan


class Reading:
    """One reading of the plans' evidence (lifecycle.where, `wave plan`): the project's main checkout,
    when msd began executing it (`since`), and git's log, read once for this reading and never for
    another (a long-lived process judges each reading by the commits there are then)."""

    __slots__ = ("main", "since", "cutoff", "_commits", "prefix")

    def __init__(self, main: Path):
        from msd_core.lean.project_rule import work_tree_top

        self.main = Path(main)
        top = work_tree_top(str(self.main))
        rel = os.path.relpath(self.main, top) if top else "."
        self.prefix = "" if rel == "." or rel.startswith("..") else rel.replace(os.sep, "/") + "/"
        found = marker(self.main)
        self.since = found["since"] if found else None
        self.cutoff = found["cutoff"] if found else None
        self._commits: dict[str, list[dict]] | None = None

    def git_commits(self, phase_dir: str, plan_id: str) -> list[dict]:
        if self._commits is None:
            self._commits = _git_commits(self.main, self.prefix.rstrip("/"))
        return self._commits.get(f"{phase_dir}/{plan_id}", [])

    def missing(self, phase_dir: str, plan_id: str, plan_text: str | None) -> dict | None:
        """What the plan lacks to count as complete: {"plan", "reason", "step"} or None when proven.
        `plan_text` None: the PLAN could not be read (its declared files are not checked)."""
        record, unreadable = _record(self.main, phase_dir, plan_id)
        commits = [c for c in (record or {}).get("commits", [])
                   if isinstance(c, dict) and isinstance(c.get("hash"), str) and _HASH.fullmatch(c["hash"])]
        lacking = _verdict(plan_id, commits, plan_text, self.prefix)
        if lacking is None:
            return None
        from_git = self.git_commits(phase_dir, plan_id)
        if from_git:  # a teammate's clone made them, or the record was lost: git says so itself
            known = {c["hash"] for c in commits}
            return _verdict(plan_id, commits + [c for c in from_git if c["hash"] not in known], plan_text, self.prefix)
        if unreadable:
            return {"plan": plan_id, "reason": f"plan {plan_id} has a SUMMARY but {unreadable}", "step": "execute"}
        return lacking

    def unproven(self, phase_folder: Path, plan_id: str, plan_text: str | None) -> dict | None:
        """`missing` for a summarised plan evidence is asked of: not in the marker's `cutoff` (an older marker:
        a SUMMARY written at or after `since`); None when none is asked (no marker, a plan summarised before msd)."""
        if self.since is None:
            return None
        if self.cutoff is not None:
            for name in (f"{plan_id}-SUMMARY.md", "SUMMARY.md"):
                path = Path(phase_folder) / name
                if not os.path.lexists(path):
                    continue
                kept = self.cutoff.get(f"{Path(phase_folder).name}/{plan_id}")
                if kept is not None and summary_hash(path) == kept:
                    return None  # summarised before msd wrote this project, unchanged since: taken on its SUMMARY
                return self.missing(Path(phase_folder).name, plan_id, plan_text)
            return None
        for name in (f"{plan_id}-SUMMARY.md", "SUMMARY.md"):
            try:
                st = os.lstat(Path(phase_folder) / name)
            except OSError:
                continue
            if st.st_mtime < self.since:
                return None  # summarised before msd executed this project: taken on its SUMMARY
            return self.missing(Path(phase_folder).name, plan_id, plan_text)
        return None
