"""Qwen Code's PreToolUse hook mapped onto msd's one guard (pre_tool_use.py): `msd_run hook
qwen-pre-tool-use`. Read in the real Qwen Code 0.24.4 (its bundled docs/features/hooks.md, and
tests/runtimes/test_client_guards_cli.py): Claude Code's payload (`tool_name`, `tool_input`, `cwd`,
`session_id`) with Qwen's tool ids, and Claude Code's answer (`hookSpecificOutput.permissionDecision`
"deny" with its reason), so only the tool names are mapped: `run_shell_command` {command} is Bash,
`read_file` {file_path} is Read, and its file writes (the tools 0.24.4 offers its model, seen in its
request) are Write and Edit, judged by the `.planning/` write guard: `write_file` {file_path, content}
is Write, `edit` {file_path, old_string, new_string, replace_all} is Edit. Its `edit` matches after
normalising quotes (its bundle's normalizeEditStrings), so an edit of a `.planning/` document whose
result the guard cannot work out is refused (pre_tool_use.LOOSE). Other tools go ahead unchecked.
"""

from __future__ import annotations

TOOLS = {
    "run_shell_command": ("Bash", {"command": "command"}),
    "read_file": ("Read", {"file_path": "file_path"}),
    "write_file": ("Write", {"file_path": "file_path", "content": "content"}),
    "edit": ("Edit", {"file_path": "file_path", "old_string": "old_string", "new_string": "new_string",
                      "replace_all": "replace_all"}),
}


def handle(payload: dict, ctx) -> str | None:
    from msd_core.hooks import pre_tool_use
    from msd_core.hooks.client_calls import as_claude

    mapped = as_claude(payload.get("tool_name"), payload.get("tool_input"), TOOLS, payload.get("cwd"), payload.get("session_id"))
    if mapped is not None:
        mapped[pre_tool_use.LOOSE] = True  # its edit tool matches loosely (module doc)
    return pre_tool_use.handle(mapped, ctx) if mapped is not None else None
