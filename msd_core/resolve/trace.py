"""Load trace: which content an agent was handed, one JSON line per resolve/agent-skills call.

On when MSD_TRACE=1 (true/yes/on) or the project's `workflow.trace_loads` is true. Lines
go to `<project>/.planning/.msd/loads.jsonl`, only when a project is found:
  {"time", "command", "stem" | "agent", "compact", "files": [absolute paths]}
Tracing never fails the command: any problem (no project, a symlinked folder, a log
larger than MAX_LOG_BYTES, an unwritable disk) skips the line silently. A single
O_APPEND write per line keeps concurrent writers from interleaving.
"""

from __future__ import annotations

import json
import os
import stat
import time

TRACE_ENV = "MSD_TRACE"
LOG_NAME = "loads.jsonl"
MAX_LOG_BYTES = 16 << 20  # a log past 16 MiB is left alone (no more lines appended)


def enabled(layers) -> bool:
    raw = os.environ.get(TRACE_ENV, "").strip().lower()
    if raw in ("1", "true", "yes", "on"):
        return True
    if layers is None or getattr(layers, "project_root", None) is None:
        return False
    try:
        from msd_core.config import schema, store

        return store.get_value(schema.TRACE_KEY, layers=layers) is True
    except Exception:
        return False


def _real_dir(path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def record(layers, command: str, subject_key: str, subject: str, compact: bool, files: list[str]) -> bool:
    """Append one trace line if tracing is on and a project is found. Returns whether it wrote."""
    try:
        if not enabled(layers):
            return False
        root = getattr(layers, "project_root", None)
        if root is None:
            return False
        from msd_core.paths import planning_dir, project_state_dir

        planning, state = planning_dir(root), project_state_dir(root)
        if not _real_dir(planning):
            return False
        if not _real_dir(state):
            if os.path.lexists(state):
                return False  # a symlink or a file where our folder should be: never follow it
            from msd_core.files.private_dir import ensure_private_dir

            ensure_private_dir(root)
        log = state / LOG_NAME
        try:
            st = os.lstat(log)
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_LOG_BYTES:
                return False
        except FileNotFoundError:
            pass
        now = time.time()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"
        line = json.dumps({"time": stamp, "command": command, subject_key: subject, "compact": compact,
                           "files": list(files)}, ensure_ascii=False) + "\n"
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
        return True
    except Exception:
        return False
