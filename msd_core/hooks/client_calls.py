"""Another agent CLI's tool call as msd's guard reads one (pre_tool_use.py's Claude Code names):
the one mapping the client adapters (copilot.py, qwen.py, gemini.py, kimi.py) share, so each only
names its tools (its shell as Bash, its file read as Read, its file writes as Write and Edit, which
the one `.planning/` write guard judges); and the reason of msd's refusal, for those that answer in
their own form."""

from __future__ import annotations


def as_claude(tool, args, table: dict, cwd=None, session=None) -> dict | None:
    """{"tool_name", "tool_input", "cwd"?, "session_id"?} for pre_tool_use.handle, or None: a tool the
    guard does not judge. `table`: {client's tool: (msd's tool, {client's argument: msd's})};
    `args` an object, or JSON text of one. A table row may add a third item, {msd's argument: value}
    for one the client leaves out (Copilot's `edit` without `new_str` deletes `old_str`)."""
    mapped = table.get(tool) if isinstance(tool, str) else None
    if mapped is None:
        return None
    if isinstance(args, str):
        from msd_core.files.bounded import loads_json

        try:
            args = loads_json(args, "the hook's tool arguments")
        except ValueError:
            return None
    if not isinstance(args, dict):
        return None
    name, keys, *defaults = mapped
    out: dict = {"tool_name": name, "tool_input": {**(defaults[0] if defaults else {}),
                                                   **{ours: args[theirs] for theirs, ours in keys.items() if theirs in args}}}
    if isinstance(cwd, str):
        out["cwd"] = cwd
    if isinstance(session, str):
        out["session_id"] = session
    return out


def refusal_reason(claude_answer: str | None) -> str | None:
    """The reason of pre_tool_use's refusal (Claude Code's deny JSON), or None: the call goes ahead.
    What the adapters of clients that read their own answer (copilot.py, gemini.py) rewrite."""
    if not claude_answer:
        return None
    import json

    decided = json.loads(claude_answer).get("hookSpecificOutput") or {}
    return str(decided.get("permissionDecisionReason", "")) if decided.get("permissionDecision") == "deny" else None
