"""GitHub Copilot CLI's preToolUse hook mapped onto msd's one guard (pre_tool_use.py): its payload
in, its answer out, nothing decided here (`msd_run hook copilot-pre-tool-use`).

Seen in the real Copilot CLI 1.0.102 (tests/runtimes/test_client_guards_cli.py): a hook in
`<config>/hooks/*.json` (`{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": ...}]}}`)
gets `{"sessionId", "timestamp", "cwd", "toolName", "toolArgs"}` on stdin, `toolArgs` the tool's
arguments as an object (older releases sent JSON text: both read); it refuses the call with
`{"permissionDecision": "deny", "permissionDecisionReason": ...}` on stdout, the reason being what
the model gets ("Denied by preToolUse hook: <reason>"). Copilot's tools as msd's guard knows them:
`bash` {command} is Bash, `view` {path} is Read, and its two file-writing tools (the ones its model
is offered, seen in the request 1.0.102 sends) are Write and Edit, so the `.planning/` write guard
judges them: `create` {path, file_text} (a new file only) is Write {file_path, content}, `edit`
{path, old_str, new_str?} (one occurrence; `new_str` left out deletes `old_str`) is Edit
{file_path, old_string, new_string}. A GPT model (seen with `gpt-5.1-codex`) is offered neither,
but Codex's freeform `apply_patch` instead: its hook gets `toolName` "apply_patch" and `toolArgs`
the patch text itself (not JSON), judged as Codex's patch is (pre_tool_use.py, patch_edits.py).
Other tools go ahead unchecked.
"""

from __future__ import annotations

# Copilot's tool -> (msd's tool, {Copilot's argument: msd's})
TOOLS = {
    "bash": ("Bash", {"command": "command"}),
    "view": ("Read", {"path": "file_path"}),
    "create": ("Write", {"path": "file_path", "file_text": "content"}),
    "edit": ("Edit", {"path": "file_path", "old_str": "old_string", "new_str": "new_string"}, {"new_string": ""}),
}


def as_claude(payload: dict) -> dict | None:
    """The payload as pre_tool_use.handle reads it, or None: a tool the guard does not judge."""
    from msd_core.hooks.client_calls import as_claude as mapped

    patch = payload.get("toolArgs")
    if payload.get("toolName") == "apply_patch" and isinstance(patch, str):  # the patch text, not JSON
        return mapped("apply_patch", {"command": patch}, {"apply_patch": ("apply_patch", {"command": "command"})},
                      payload.get("cwd"), payload.get("sessionId"))
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
