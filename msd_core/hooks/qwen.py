"""Qwen Code's PreToolUse hook mapped onto msd's one guard (pre_tool_use.py): `msd_run hook
qwen-pre-tool-use`. Read in the real Qwen Code 0.24.4 (its bundled docs/features/hooks.md, and
tests/runtimes/test_client_guards_cli.py): Claude Code's payload (`tool_name`, `tool_input`, `cwd`,
`session_id`) with Qwen's tool ids, and Claude Code's answer (`hookSpecificOutput.permissionDecision`
"deny" with its reason), so only the tool names are mapped: `run_shell_command` {command} is Bash,
`read_file` {file_path} is Read; other tools go ahead unchecked (its file writes are not mapped yet).
"""

from __future__ import annotations

TOOLS = {
    "run_shell_command": ("Bash", {"command": "command"}),
    "read_file": ("Read", {"file_path": "file_path"}),
}


def handle(payload: dict, ctx) -> str | None:
    from msd_core.hooks import pre_tool_use
    from msd_core.hooks.client_calls import as_claude

    mapped = as_claude(payload.get("tool_name"), payload.get("tool_input"), TOOLS, payload.get("cwd"), payload.get("session_id"))
    return pre_tool_use.handle(mapped, ctx) if mapped is not None else None
