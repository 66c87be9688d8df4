"""Gemini CLI's BeforeTool hook mapped onto msd's one guard (pre_tool_use.py): `msd_run hook
gemini-pre-tool-use`. Read in the real Gemini CLI 0.61.0 (its bundled docs/hooks/reference.md and its
HookOutput code; tests/runtimes/test_client_guards_cli.py): the payload has `tool_name`, `tool_input`,
`cwd`, `session_id` with Gemini's tool ids (Qwen Code's, whose table is reused: `run_shell_command`
{command} is Bash, `read_file` {file_path} is Read); the answer Gemini reads is a top-level
`{"decision": "deny", "reason": ...}` (the reason goes to the model as the tool's error; Claude Code's
`hookSpecificOutput.permissionDecision` is not read), so msd's refusal is rewritten into it.
"""

from __future__ import annotations


def answer(claude_answer: str | None) -> str | None:
    """pre_tool_use's refusal (Claude Code's deny JSON) as Gemini CLI reads one; None lets the call go."""
    import json

    from msd_core.hooks.client_calls import refusal_reason

    reason = refusal_reason(claude_answer)
    return None if reason is None else json.dumps({"decision": "deny", "reason": reason}, ensure_ascii=False)


def handle(payload: dict, ctx) -> str | None:
    from msd_core.hooks import pre_tool_use
    from msd_core.hooks.client_calls import as_claude
    from msd_core.hooks.qwen import TOOLS  # Qwen Code, a fork of Gemini CLI, kept its tool ids

    mapped = as_claude(payload.get("tool_name"), payload.get("tool_input"), TOOLS, payload.get("cwd"), payload.get("session_id"))
    return answer(pre_tool_use.handle(mapped, ctx)) if mapped is not None else None
