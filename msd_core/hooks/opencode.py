"""OpenCode's tool calls mapped onto msd's one guard (pre_tool_use.py): `msd_run hook
opencode-pre-tool-use`, run by msd's own plugin (msd_core/runtimes/opencode_plugin.py), since OpenCode
has no command hooks. Seen in the real OpenCode 1.18.33 (tests/runtimes/test_opencode_guard_cli.py):
its `tool.execute.before` hook gets `{tool, sessionID, callID}` and `{args}`; the plugin passes
`{"tool", "args", "cwd", "session_id"}` on stdin (`cwd` the session's folder) and throws the reason
of a refusal, which OpenCode gives the model as the tool's result. Its tools as msd's guard knows
them (the schemas of its requests): `bash` {command, workdir?} is Bash, read where `workdir` names
(relative to the session's folder, or absolute); `read` {filePath} is Read; `grep` {path, include} is
Grep; `write` {filePath, content} is Write and `edit` {filePath, oldString, newString, replaceAll}
is Edit, so the `.planning/` write guard judges them; `apply_patch` {patchText}, which it offers
GPT models instead of edit and write, is judged as Codex's patch is (pre_tool_use.py: each file
it touches as the Write of what the patch leaves there, patch_edits.py). Other tools go ahead unchecked. The answer is Gemini CLI's form,
`{"decision": "deny", "reason": ...}`, the one the plugin reads.
"""

from __future__ import annotations

from msd_core.hooks.gemini import answer  # noqa: F401 - cmd_hook.OWN_ANSWERS reads it here

# OpenCode's tool -> (msd's tool, {OpenCode's argument: msd's})
TOOLS = {
    "bash": ("Bash", {"command": "command"}),
    "read": ("Read", {"filePath": "file_path"}),
    "grep": ("Grep", {"pattern": "pattern", "path": "path", "include": "glob"}),
    "write": ("Write", {"filePath": "file_path", "content": "content"}),
    "edit": ("Edit", {"filePath": "file_path", "oldString": "old_string", "newString": "new_string",
                      "replaceAll": "replace_all"}),
    "apply_patch": ("apply_patch", {"patchText": "command"}),  # Codex's patch format; pre_tool_use judges each file
}
JUDGED = tuple(TOOLS)  # every tool the plugin asks about (runtimes/opencode_plugin.CHECKED)


def as_claude(payload: dict) -> dict | None:
    """The plugin's payload as pre_tool_use.handle reads it, or None: a tool the guard does not judge."""
    import os

    from msd_core.hooks.client_calls import as_claude as mapped

    args, cwd = payload.get("args"), payload.get("cwd")
    ran_in = args.get("workdir") if isinstance(args, dict) and payload.get("tool") == "bash" else None
    if isinstance(ran_in, str) and ran_in and isinstance(cwd, str):
        cwd = os.path.join(cwd, ran_in)  # an absolute `workdir` replaces the session's folder
    return mapped(payload.get("tool"), args, TOOLS, cwd, payload.get("session_id"))


def handle(payload: dict, ctx) -> str | None:
    from msd_core.hooks import pre_tool_use

    mapped = as_claude(payload)
    return answer(pre_tool_use.handle(mapped, ctx)) if mapped is not None else None
