"""Where flow runs are remembered: `.planning/state.json`, keyed by workflow.

    {"version": 1,
     "workflows": {"plan-phase": {"current": "check", "status": "running", "visits": {...},
                                  "vars": {...}, "results": {step: {...}}, "history": [...],
                                  "flow_version": 1, "started": "...", "updated": "..."}}}

Other workflows' entries and unknown top-level keys are kept as they are. The default file is
msd's working file, never committed: writing it makes sure the clone's git ignores it
(msd_core.git.exclude: `.git/info/exclude`, not the project's .gitignore). A file that does
not parse is reported (exit 2) and never rewritten. Writes are atomic and made under a lock
(`<project>/.planning/.msd/flow-state.lock` for the default file, `<file>.lock` beside a custom one).

Standard library only (filelock is loaded when a write takes the lock).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from msd_core import paths
from msd_core.errors import UsageError

STATE_VERSION = 1
DEFAULT_NAME = "state.json"
MAX_STATE_BYTES = 4 << 20


def default_state_path(project_root: Path) -> Path:
    return paths.planning_dir(project_root) / DEFAULT_NAME


def state_path(project_root: Path, state_file: str | os.PathLike | None, cwd: Path) -> Path:
    if not state_file:
        return default_state_path(project_root)
    p = Path(os.path.expanduser(os.fspath(state_file)))
    return p if p.is_absolute() else (cwd / p)


def lock_path(project_root: Path, state: Path) -> Path:
    if state == default_state_path(project_root):
        from msd_core.files.private_dir import ensure_private_dir

        return ensure_private_dir(project_root) / "flow-state.lock"
    return state.with_name(state.name + ".lock")


def read_state(path: Path) -> dict:
    """The whole state document; an empty one when the file does not exist."""
    from msd_core.files.jsonfile import read_json_object

    data, _raw = read_json_object(path, "flow state", MAX_STATE_BYTES, hint="fix or delete the file; msd will not rewrite it")
    if data is None:
        return {"version": STATE_VERSION, "workflows": {}}
    flows = data.setdefault("workflows", {})
    if not isinstance(flows, dict):
        raise UsageError(f"flow state {path}: 'workflows' must be an object", hint="fix or delete the file")
    return data


def get_run(doc: dict, workflow: str) -> dict | None:
    run = doc.get("workflows", {}).get(workflow)
    if run is None:
        return None
    if not isinstance(run, dict) or not isinstance(run.get("current"), str):
        raise UsageError(f"flow state for {workflow} is malformed", hint=f"restart it with `msd_run next-step --workflow {workflow} --restart`")
    for key, typ in (("visits", dict), ("vars", dict), ("results", dict), ("history", list)):
        if not isinstance(run.setdefault(key, typ()), typ):
            raise UsageError(f"flow state for {workflow}: '{key}' is malformed", hint=f"restart it with `msd_run next-step --workflow {workflow} --restart`")
    return run


def write_state(path: Path, doc: dict, project_root: Path | None = None) -> None:
    """Atomic write; no symlink below the project root is followed (a custom --state-file
    outside the project is checked from its own folder)."""
    from msd_core.files.atomic import atomic_write_bytes

    doc["version"] = doc.get("version", STATE_VERSION)
    anchor = None
    if project_root is not None and Path(path).is_relative_to(project_root):
        anchor = project_root
    atomic_write_bytes(path, (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8"), anchor=anchor)
    if project_root is not None and Path(path) == default_state_path(project_root):
        from msd_core.git.exclude import ensure_excluded

        ensure_excluded(project_root, f"{paths.PLANNING_DIRNAME}/{DEFAULT_NAME}")


def state_lock(project_root: Path, state: Path):
    """The lock every write of the flow state holds (a context manager)."""
    from msd_core.files.atomic import lock_timeout_from_env, locked

    anchor = project_root if Path(state).is_relative_to(project_root) else None
    return locked(lock_path(project_root, state), lock_timeout_from_env(), what=f"flow state {state}", anchor=anchor)


def parse_stamp(text) -> float | None:
    """Seconds since the epoch of a `2026-11-30T14:00:00Z` stamp (UTC); None for anything else.
    Computed here: `time.strptime` and `calendar.timegm` import datetime, which the hot path keeps out."""
    m = re.match(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z", text) if isinstance(text, str) else None
    if m is None:
        return None
    year, month, day, hour, minute, sec = (int(g) for g in m.groups())
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and sec < 62):
        return None
    y, mo = (year - 1, month + 12) if month <= 2 else (year, month)
    days = 365 * y + y // 4 - y // 100 + y // 400 + (153 * (mo - 3) + 2) // 5 + day - 719469
    return float(days * 86400 + hour * 3600 + minute * 60 + sec)
