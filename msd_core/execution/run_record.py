"""A plan's run record: the commits made for it, kept where summary, undo and merge find them.

`<main checkout>/.planning/.msd/runs/<phase-dir>__<plan-id>.json` (git-ignored):

    {"plan": "02-01", "phase_dir": "02-auth", "plan_path": ".planning/phases/02-auth/02-01-PLAN.md",
     "commits": [{"hash", "files", "message", "task", "branch", "worktree", "deviation", "at"}]}

Always the main checkout's, also for a commit made in a linked worktree, so the
orchestrator sees every executor's commits and branches. Written atomically under
`.planning/.msd/runs.lock`. A record that does not parse is reported (exit 1), never
overwritten. Standard library only.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from msd_core.errors import OperationFailed
from msd_core.files.bounded import loads_json
from msd_core.progress.evidence import MAX_RECORD as MAX_RECORD_BYTES


def runs_dir(main_root: Path) -> Path:
    from msd_core.files.private_dir import ensure_private_dir

    return ensure_private_dir(main_root) / "runs"


def record_path(main_root: Path, phase_dir: str, plan_id: str) -> Path:
    from msd_core.progress.evidence import record_name

    return runs_dir(main_root) / record_name(phase_dir, plan_id)


def read_all(main_root: Path) -> list[tuple[Path, dict | None, str | None]]:
    """Every run record of the project, read only (no folder is created): [(path, record, None)] for
    those that load, [(path, None, why)] for those that do not; sorted by file name."""
    from msd_core.paths import project_state_dir

    folder = project_state_dir(Path(main_root)) / "runs"
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".json") and e.is_file(follow_symlinks=False))
    except OSError:
        return []
    out: list[tuple[Path, dict | None, str | None]] = []
    for name in names:
        try:
            out.append((folder / name, load(folder / name), None))
        except OperationFailed as exc:
            out.append((folder / name, None, exc.message))
    return out


def lock_path(main_root: Path) -> Path:
    from msd_core.files.private_dir import ensure_private_dir

    return ensure_private_dir(main_root) / "runs.lock"


def load(path: Path) -> dict | None:
    """The record at `path`, None when there is none; OperationFailed when it is damaged."""
    try:
        from msd_core.files.safe_read import MAX_DOC_BYTES, read_regular

        raw = read_regular(path, MAX_DOC_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OperationFailed(f"cannot read run record {path} ({exc.strerror or exc})") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise OperationFailed(f"run record {path} is larger than {MAX_RECORD_BYTES} bytes; not read")
    try:
        data = loads_json(raw, f"run record {path}")
    except ValueError:  # not UTF-8, not JSON, too deep
        raise OperationFailed(f"run record {path} is not valid JSON; not changed",
                              hint="move it aside; the commits themselves are in git log") from None
    if not isinstance(data, dict) or not isinstance(data.get("commits", []), list):
        raise OperationFailed(f"run record {path} is not a run record; not changed")
    return data


class Loaded:
    """A record read ahead of `append_commit` by `load_for` (None inside when there is none)."""

    __slots__ = ("path", "data")

    def __init__(self, path: Path, data: dict | None):
        self.path, self.data = path, data


def load_for(main_root: Path, phase_dir: str, plan_id: str) -> Loaded:
    """The plan's record, read ahead of `append_commit` (caller holds lock_path until then)."""
    path = record_path(main_root, phase_dir, plan_id)
    return Loaded(path, load(path))


def append_commit(main_root: Path, phase_dir: str, plan_id: str, plan_path: str, entry: dict,
                  loaded: Loaded | None = None) -> Path:
    """Add one commit to the plan's record (caller holds lock_path). `loaded`: the record as
    `load_for` read it under the same lock, so it is not read twice."""
    from msd_core.files.atomic import atomic_write_bytes

    if loaded is None:
        loaded = load_for(main_root, phase_dir, plan_id)
    path = loaded.path
    data = loaded.data or {"plan": plan_id, "phase_dir": phase_dir, "plan_path": plan_path, "commits": []}
    entry = dict(entry)
    entry.setdefault("at", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    data["commits"].append(entry)
    atomic_write_bytes(path, (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    return path


def tasks_done(record: dict | None) -> list[int]:
    """Distinct task numbers the record's commits name, sorted (a task with 3 commits counts once)."""
    out: set[int] = set()
    for c in (record or {}).get("commits", []):
        t = c.get("task") if isinstance(c, dict) else None
        if isinstance(t, int) and not isinstance(t, bool) and t > 0:
            out.add(t)
    return sorted(out)


def branches(record: dict | None) -> list[str]:
    """Branches the record's commits were made on, first use order."""
    out: list[str] = []
    for c in (record or {}).get("commits", []):
        b = c.get("branch") if isinstance(c, dict) else None
        if isinstance(b, str) and b and b not in out:
            out.append(b)
    return out
