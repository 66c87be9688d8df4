"""GitHub Copilot CLI's preToolUse hook mapped onto msd's one guard (pre_tool_use.py): its payload
in, its answer out, nothing decided here (`msd_run hook copilot-pre-tool-use`).

Seen in the real Copilot CLI 1.0.102 (tests/runtimes/test_client_guards_cli.py): a hook in
`<config>/hooks/*.json` (`{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": ...}]}}`)
gets `{"sessionId", "timestamp", "cwd", "toolName", "toolArgs"}` on stdin, `toolArgs` the tool's
arguments as an object (older releases sent JSON text: both read); it refuses the call with
`{"permissionDecision": "deny", "permissionDecisionReason": ...}` on stdout, the reason being what
the model gets ("Denied by preToolUse hook: <reason>"). Copilot's tools as msd's guard knows them:
`bash` {command} is Bash, `view` {path} is Read; other tools go ahead unchecked (its file writes
are not mapped yet: the planning write guard is Claude Code's only).
"""

from __future__ import annotations

# Copilot's tool -> (msd's tool, {Copilot's argument: msd's})
TOOLS = {
    "bash": ("Bash", {"command": "command"}),
    "view": ("Read", {"path": "file_path"}),
}


def as_claude(payload: dict) -> dict | None:
    """The payload as pre_tool_use.handle reads it, or None: a tool the guard does not judge."""
    from msd_core.hooks.client_calls import as_claude as mapped

    return mapped(payload.get("toolName"), payload.get("toolArgs"), TOOLS, payload.get("cwd"), payload.get("sessionId"))


def answer(claude_answer: str | None) -> str | None:
    """pre_tool_use's refusal (Claude Code's deny JSON) as Copilot reads one; None lets the call go."""
    import json

    from msd_core.hooks.client_calls import refusal_reason

    reason = refusal_reason(claude_answer)
    return None if reason is None else json.dumps({"permissionDecision": "deny", "permissionDecisionReason": reason},
                                                  ensure_ascii=False)


def handle(payload: dict, ctx) -> str | None:
    from msd_core.hooks import pre_tool_use

    mapped = as_claude(payload)
    return answer(pre_tool_use.handle(mapped, ctx)) if mapped is not None else None
