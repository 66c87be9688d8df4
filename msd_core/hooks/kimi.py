"""Kimi Code's PreToolUse hook mapped onto msd's one guard (pre_tool_use.py): `msd_run hook
kimi-pre-tool-use`. Read in the real Kimi Code 2.1.0 (its bundled externalHooks runner; and
tests/runtimes/test_client_guards_cli.py): a `[[hooks]]` entry of its user config.toml gets
`{"hook_event_name", "session_id", "cwd", "tool_name", "tool_input", "tool_call_id", ...}` on
stdin and refuses the call on exit 0 with Claude Code's answer (`hookSpecificOutput.permissionDecision`
"deny", its reason what the model gets), so only the tools are mapped: `Bash` {command, cwd?} is
Bash, `Read` {path} is Read; other tools go ahead unchecked (its file writes are not mapped yet).
Kimi's `Bash` may name its own working folder (`cwd`, relative to the session's): the guard reads
the command there. Seen in the real CLI too: exit 2 refuses with stderr as the reason, while a hook
that fails otherwise or passes its `timeout` lets the call go (hence cmd_hook's own deadline), and a
`[[hooks]]` table in a project's `.kimi-code/config.toml` is not run at all.
"""

from __future__ import annotations

TOOLS = {
    "Bash": ("Bash", {"command": "command"}),
    "Read": ("Read", {"path": "file_path"}),
}


def handle(payload: dict, ctx) -> str | None:
    import os

    from msd_core.hooks import pre_tool_use
    from msd_core.hooks.client_calls import as_claude

    args, cwd = payload.get("tool_input"), payload.get("cwd")
    ran_in = args.get("cwd") if isinstance(args, dict) else None
    if isinstance(ran_in, str) and ran_in and isinstance(cwd, str):
        cwd = os.path.join(cwd, ran_in)  # an absolute `cwd` replaces the session's
    mapped = as_claude(payload.get("tool_name"), args, TOOLS, cwd, payload.get("session_id"))
    return pre_tool_use.handle(mapped, ctx) if mapped is not None else None
