"""`msd_run hook <event>`: the host's payload in, the handler's answer out, never a failure.

A handler module has `handle(payload: dict, ctx: Context) -> str | None`: what it returns is
printed on stdout (plain text, or the JSON object the host reads for that event). The payload
is the JSON object Claude Code writes to the hook's stdin (host-facts section 2.3), read up to
MAX_PAYLOAD bytes; stdin that is a terminal is not waited for. `probe` answers `ok` (what
`msd status` runs to see that the host can start msd's hooks).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from msd_core.lean.record import record

MAX_PAYLOAD = 4 << 20
HANDLERS = {
    "session-start": "msd_core.hooks.session_start",
    "pre-compact": "msd_core.hooks.pre_compact",
    "post-tool-use": "msd_core.hooks.post_tool_use",
}


@record
class Context:
    install_root: str | None  # the installed msd-core/ folder (`--root`), named in the commands the hooks give
    runner: str  # this msd_run's path


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
        data = json.loads(raw.decode("utf-8", "replace")) if raw.strip() else {}
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def project_root(payload: dict) -> Path | None:
    """The project the session works in: the payload's `cwd`, else $CLAUDE_PROJECT_DIR, else ours."""
    from msd_core import paths

    for where in (payload.get("cwd"), os.environ.get("CLAUDE_PROJECT_DIR"), os.getcwd()):
        if isinstance(where, str) and where and os.path.isdir(where):
            return paths.find_project_root(where)
    return None


def absolute_root(install_root: str | None, payload: dict) -> str | None:
    """A local install names its folder relative to the project (`.claude/msd-core`): made absolute
    against $CLAUDE_PROJECT_DIR (the host sets it for hooks and the status line), else the payload's cwd."""
    if not install_root or os.path.isabs(install_root):
        return install_root
    for base in (os.environ.get("CLAUDE_PROJECT_DIR"), payload.get("cwd"), os.getcwd()):
        if isinstance(base, str) and base and os.path.isdir(os.path.join(base, install_root)):
            return os.path.join(base, install_root)
    return install_root


def this_runner() -> str:
    from msd_core.paths import RUNNER_EXE

    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if os.path.basename(argv0) in (RUNNER_EXE, "msd_run"):
        return os.path.abspath(argv0)
    return str(Path(sys.executable).parent / RUNNER_EXE)


def run(event: str, install_root: str | None, stream=None) -> tuple[str | None, int]:
    """(stdout, exit code) of one hook call: the code is always 0 (a hook never fails a session)."""
    if event == "probe":
        return "ok", 0
    module_name = HANDLERS.get(event)
    if module_name is None:
        sys.stderr.write(f"msd_run hook: unknown event {event[:40]!r} (known: {', '.join(sorted(HANDLERS))})\n")
        return None, 0
    payload = read_payload(stream)
    install_root = absolute_root(install_root, payload)
    try:
        __import__(module_name)
        return sys.modules[module_name].handle(payload, Context(install_root, this_runner())), 0
    except Exception as exc:  # noqa: BLE001 - the session goes on whatever happens here
        if os.environ.get("MSD_DEBUG"):
            raise
        sys.stderr.write(f"msd_run hook {event}: {type(exc).__name__}: {str(exc)[:200]}\n")
        return None, 0
