"""The JSON Claude Code passes a hook or the status line on stdin, and what it tells msd.

Read up to MAX_PAYLOAD bytes (lean/guard_limits.MAX_MESSAGE, the guard server's line cap too);
stdin that is a terminal (a person trying the command) is not waited for; anything that is not a
JSON object reads as {} (fields as Claude Code 2.1.332 sends them: `session_id`, `transcript_path`,
`cwd`, `hook_event_name`, and per event `source`, `trigger`, `tool_name`, ...).
"""

from __future__ import annotations

import os
import sys

from msd_core.files.bounded import loads_json
from msd_core.lean.guard_limits import MAX_MESSAGE

MAX_PAYLOAD = MAX_MESSAGE


def read_payload(stream=None) -> dict:
    stream = stream or sys.stdin
    try:
        if stream.isatty():
            return {}
        raw = stream.buffer.read(MAX_PAYLOAD + 1) if hasattr(stream, "buffer") else stream.read(MAX_PAYLOAD + 1).encode()
    except (OSError, ValueError):
        return {}
    if len(raw) > MAX_PAYLOAD:
        return {}
    try:
        data = loads_json(raw.decode("utf-8", "replace"), "the hook payload") if raw.strip() else {}
    except ValueError:  # damaged or too deep (files.bounded)
        return {}
    return data if isinstance(data, dict) else {}


def project_root(payload: dict):
    """The project the session works in: the payload's `cwd`, else $CLAUDE_PROJECT_DIR, else ours."""
    from msd_core import paths

    for where in (payload.get("cwd"), os.environ.get("CLAUDE_PROJECT_DIR"), os.getcwd()):
        if isinstance(where, str) and where and os.path.isdir(where):
            return paths.find_project_root(where)
    return None


def absolute_root(install_root: str | None, payload: dict) -> str | None:
    """A local install names its folder relative to the project (`.claude/msd-core`): made absolute
    against $CLAUDE_PROJECT_DIR (the host sets it for hooks and the status line), else the payload's cwd,
    else ours; from each, the folders up to the top of its git work tree are tried, nearest first: one
    install at a repository's top serves a `.planning/` root in a subfolder (a session started there)."""
    if not install_root or os.path.isabs(install_root):
        return install_root
    from msd_core.lean.project_rule import nearest

    for base in (os.environ.get("CLAUDE_PROJECT_DIR"), payload.get("cwd"), os.getcwd()):
        if not (isinstance(base, str) and base and os.path.isdir(base)):
            continue
        found = nearest(install_root, base)
        if found is not None:
            return found
    return install_root


def this_runner() -> str:
    from msd_core.paths import RUNNER_EXE

    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if os.path.basename(argv0) in (RUNNER_EXE, "msd_run"):
        return os.path.abspath(argv0)
    return os.path.join(os.path.dirname(sys.executable), RUNNER_EXE)
