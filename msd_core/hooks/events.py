"""`msd_run hook <event>`: the host's payload in, the handler's answer out, never a failure.

A handler module has `handle(payload: dict, ctx: Context) -> str | None`: what it returns is
printed on stdout (plain text, or the JSON object the host reads for that event). The payload
is the JSON object Claude Code writes to the hook's stdin (payload.py). `probe` answers `ok`
(what `msd status` runs to see that the host can start msd's hooks).
"""

from __future__ import annotations

import os
import sys

from msd_core.lean.record import record

HANDLERS = {
    "session-start": "msd_core.hooks.session_start",
    "pre-compact": "msd_core.hooks.pre_compact",
    "post-tool-use": "msd_core.hooks.post_tool_use",
    "pre-tool-use": "msd_core.hooks.pre_tool_use",
    "copilot-pre-tool-use": "msd_core.hooks.copilot",  # the same guard, Copilot CLI's payload and answer
    "qwen-pre-tool-use": "msd_core.hooks.qwen",  # the same guard, Qwen Code's tool names
    "kimi-pre-tool-use": "msd_core.hooks.kimi",  # the same guard, Kimi Code's tool names
    "gemini-pre-tool-use": "msd_core.hooks.gemini",  # the same guard, Gemini CLI's tool names and answer
    "opencode-pre-tool-use": "msd_core.hooks.opencode",  # the same guard, run by msd's OpenCode plugin
}


@record
class Context:
    install_root: str | None  # the installed msd-core/ folder (`--root`), named in the commands the hooks give


def run(event: str, install_root: str | None, stream=None) -> tuple[str | None, int]:
    """(stdout, exit code) of one hook call: the code is always 0 (a hook never fails a session)."""
    if event == "probe":
        return "ok", 0
    module_name = HANDLERS.get(event)
    if module_name is None:
        sys.stderr.write(f"msd_run hook: unknown event {event[:40]!r} (known: {', '.join(sorted(HANDLERS))})\n")
        return None, 0
    from msd_core.hooks.payload import absolute_root, read_payload

    payload = read_payload(stream)
    install_root = absolute_root(install_root, payload)
    try:
        __import__(module_name)
        return sys.modules[module_name].handle(payload, Context(install_root)), 0
    except Exception as exc:  # noqa: BLE001 - the session goes on whatever happens here
        if os.environ.get("MSD_DEBUG"):
            raise
        sys.stderr.write(f"msd_run hook {event}: {type(exc).__name__}: {str(exc)[:200]}\n")
        return None, 0
