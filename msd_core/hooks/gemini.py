"""Gemini CLI's BeforeTool hook mapped onto msd's one guard (pre_tool_use.py): `msd_run hook
gemini-pre-tool-use`. Read in the real Gemini CLI 0.61.0 (its bundled docs/hooks/reference.md and its
HookOutput code; tests/runtimes/test_client_guards_cli.py): the payload has `tool_name`, `tool_input`,
`cwd`, `session_id` with Gemini's tool ids: `run_shell_command` {command} is Bash, `read_file`
{file_path} is Read (as in Qwen Code, its fork), and its file writes (the tools 0.61.0 offers its
model, seen in its request) are Write and Edit, judged by the `.planning/` write guard: `write_file`
{file_path, content} is Write, `replace` {file_path, old_string, new_string, allow_multiple} is Edit
(`allow_multiple` its `replace_all`). Its `replace` applies an edit its `old_string` does not match
exactly too (its bundle: whitespace-flexible, regex and fuzzy matches, then a model's fix of the
edit), so an edit of a `.planning/` document whose result the guard cannot work out is refused
(pre_tool_use.LOOSE). Its `write_file` may unescape `\\n`-style sequences in a file's content (not a
`.json` file's: its bundle's unescapeStringForGeminiBug) before writing, so the text written can differ
from the text judged by those characters. The answer Gemini reads is a top-level
`{"decision": "deny", "reason": ...}` (the reason goes to the model as the tool's error; Claude Code's
`hookSpecificOutput.permissionDecision` is not read), so msd's refusal is rewritten into it.
"""

from __future__ import annotations

TOOLS = {
    "run_shell_command": ("Bash", {"command": "command"}),
    "read_file": ("Read", {"file_path": "file_path"}),
    "write_file": ("Write", {"file_path": "file_path", "content": "content"}),
    "replace": ("Edit", {"file_path": "file_path", "old_string": "old_string", "new_string": "new_string",
                         "allow_multiple": "replace_all"}),
}


def answer(claude_answer: str | None) -> str | None:
    """pre_tool_use's refusal (Claude Code's deny JSON) as Gemini CLI reads one; None lets the call go."""
    import json

    from msd_core.hooks.client_calls import refusal_reason

    reason = refusal_reason(claude_answer)
    return None if reason is None else json.dumps({"decision": "deny", "reason": reason}, ensure_ascii=False)


def handle(payload: dict, ctx) -> str | None:
    from msd_core.hooks import pre_tool_use
    from msd_core.hooks.client_calls import as_claude

    mapped = as_claude(payload.get("tool_name"), payload.get("tool_input"), TOOLS, payload.get("cwd"), payload.get("session_id"))
    if mapped is not None:
        mapped[pre_tool_use.LOOSE] = True  # its edit tool matches loosely (module doc)
    return answer(pre_tool_use.handle(mapped, ctx)) if mapped is not None else None
