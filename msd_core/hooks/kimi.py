"""Kimi Code's PreToolUse hook mapped onto msd's one guard (pre_tool_use.py): `msd_run hook
kimi-pre-tool-use`. Read in the real Kimi Code 2.1.0 (its bundled externalHooks runner; and
tests/runtimes/test_client_guards_cli.py): a `[[hooks]]` entry of its user config.toml gets
`{"hook_event_name", "session_id", "cwd", "tool_name", "tool_input", "tool_call_id", ...}` on
stdin and refuses the call on exit 0 with Claude Code's answer (`hookSpecificOutput.permissionDecision`
"deny", its reason what the model gets), so only the tools are mapped: `Bash` {command, cwd?} is
Bash, `Read` {path} is Read, and its two file-writing tools (the ones 2.1.0 offers its model, seen in
its request) are Write and Edit, judged by the `.planning/` write guard: `Write` {path, content,
mode?} is Write {file_path, content} (with `mode` "append" the content judged is the file's text with
`content` after it), `Edit` {path, old_string, new_string, replace_all} is Edit. Other tools go
ahead unchecked.
Kimi's `Bash` may name its own working folder (`cwd`, relative to the session's): the guard reads
the command there. Seen in the real CLI too: exit 2 refuses with stderr as the reason, while a hook
that fails otherwise or passes its `timeout` lets the call go (hence cmd_hook's own deadline), and a
`[[hooks]]` table in a project's `.kimi-code/config.toml` is not run at all.
"""

from __future__ import annotations

TOOLS = {
    "Bash": ("Bash", {"command": "command"}),
    "Read": ("Read", {"path": "file_path"}),
    "Write": ("Write", {"path": "file_path", "content": "content", "mode": "mode"}),
    "Edit": ("Edit", {"path": "file_path", "old_string": "old_string", "new_string": "new_string", "replace_all": "replace_all"}),
}


def _appended(tool_input: dict, cwd) -> None:
    """A Write with `mode` "append" as the Write of the whole text it leaves (a `.planning/` file's only)."""
    import os

    from msd_core.hooks import planning_guard

    path, content = tool_input.get("file_path"), tool_input.get("content")
    if not (isinstance(path, str) and path and isinstance(content, str)):
        return
    full = path if os.path.isabs(path) or not isinstance(cwd, str) else os.path.join(cwd, path)
    if planning_guard.planning_dir_of(full) is not None:
        tool_input["content"] = (planning_guard.read_text(full) or "") + content


def handle(payload: dict, ctx) -> str | None:
    import os

    from msd_core.hooks import pre_tool_use
    from msd_core.hooks.client_calls import as_claude

    args, cwd = payload.get("tool_input"), payload.get("cwd")
    ran_in = args.get("cwd") if isinstance(args, dict) else None
    if isinstance(ran_in, str) and ran_in and isinstance(cwd, str):
        cwd = os.path.join(cwd, ran_in)  # an absolute `cwd` replaces the session's
    mapped = as_claude(payload.get("tool_name"), args, TOOLS, cwd, payload.get("session_id"))
    if mapped is not None and mapped["tool_input"].pop("mode", None) == "append":
        _appended(mapped["tool_input"], cwd)
    return pre_tool_use.handle(mapped, ctx) if mapped is not None else None
