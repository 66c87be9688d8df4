"""What a stand-in model does when it is to follow an Agent Skills spine (standard library only;
imported by the stand-in servers, tests/runtimes/openai_server.py and gemini_server.py).

With MSD_STANDIN_SHELL=<commands, one a line> a request that offers a shell tool is answered with
a call of it running the next command (the first with no tool result yet, then one per result),
then the plain answer (what tests/runtimes/test_client_guards_cli.py drives a guard with).
With MSD_STANDIN_CALLS=<JSON list of [tool, arguments]> the same, one call a turn, of any tool the
request offers (a write tool's call: tests/runtimes/test_client_write_guard_cli.py); a call whose tool
is not offered ends the script with the plain answer.

With MSD_STANDIN_SKILL=<skill name> in the server's environment, a request that offers tools is
answered as a model following the skill would, turn by turn, whatever the client calls its tools:

  no tool result yet       ->  call the client's skill tool (`activate_skill`, `skill`, ...) with the name
  one tool result, and it  ->  call the client's shell tool (`run_shell_command`, `bash`, ...) with
  or what the client added    exactly that command
  after it names `msd_run resolve <stem> --root <root> --raw`
  anything else            ->  no call: the server's plain text answer ends the turn

With MSD_STANDIN_MCP_CALL='<tool> <JSON arguments>' a request that offers a tool whose name ends
with `<tool>` (an MCP tool, whatever prefix the client gives it) and holds no tool result yet is
answered with a call of that tool; anything else gets the plain answer.

The tool and its argument are found in the request's own tool list (`SKILL_TOOLS`, `SHELL_TOOLS`,
`COMMAND_KEYS`): a client that offers neither gets the plain answer, and the test sees no call ran.
"""

from __future__ import annotations

import json
import os
import re

SKILL_TOOLS = ("activate_skill", "skill", "Skill", "load_skill", "use_skill", "read_skill")
SHELL_TOOLS = ("run_shell_command", "bash", "Bash", "shell", "Shell", "run_terminal_cmd", "execute_command", "exec_command")
NAME_KEYS = ("name", "skill", "skill_name", "command")
COMMAND_KEYS = ("command", "cmd")
RESOLVE_CALL = re.compile(r"`(msd_run resolve [a-z0-9-]+ --root \S+ --raw)`")


def wanted_skill() -> str | None:
    return os.environ.get("MSD_STANDIN_SKILL") or None


def shell_script() -> list[str]:
    """MSD_STANDIN_SHELL: commands, one a line, the model runs with the client's shell tool, one a turn."""
    return [c for c in os.environ.get("MSD_STANDIN_SHELL", "").split("\n") if c.strip()]


def call_script() -> list[tuple[str, dict]]:
    """MSD_STANDIN_CALLS: the [tool, arguments] pairs the model calls, one a turn (module doc)."""
    raw = os.environ.get("MSD_STANDIN_CALLS")
    return [(str(c[0]), dict(c[1])) for c in json.loads(raw)] if raw else []


def _pick(tools: dict[str, dict], names: tuple[str, ...]) -> str | None:
    return next((n for n in names if n in tools), None)


def _args(schema: dict, keys: tuple[str, ...], value: str) -> dict:
    """Arguments for a tool of this JSON schema: `value` under the first of `keys` it has, and a
    short filler for any other required string (OpenCode's bash wants a `description`)."""
    props = (schema or {}).get("properties") or {}
    key = next((k for k in keys if k in props), keys[0])
    out: dict = {key: value}
    for req in (schema or {}).get("required") or []:
        if req not in out and str((props.get(req) or {}).get("type", "string")).lower() == "string":
            out[req] = "msd step"
    return out


def mcp_call(tools: dict[str, dict], results: list[str]) -> tuple[str, dict] | None:
    """MSD_STANDIN_MCP_CALL's call (module doc), or None."""
    suffix, _, args = os.environ.get("MSD_STANDIN_MCP_CALL", "").partition(" ")
    names = [n for n in tools if n.endswith(suffix)] if suffix else []
    return (names[0], json.loads(args or "{}")) if names and not results else None


def next_call(tools: dict[str, dict], results: list[str], after: str = "") -> tuple[str, dict] | None:
    """(tool name, arguments) of the next call, or None for the plain answer.
    `tools`: {name: parameters schema} the request offers; `results`: its tool results' texts, in
    order; `after`: all the request holds after the model's first call (Copilot CLI puts a skill's
    body in a user message after the tool result)."""
    if os.environ.get("MSD_STANDIN_MCP_CALL"):
        return mcp_call(tools, results)
    calls = call_script()
    if calls and tools:
        return calls[len(results)] if len(results) < len(calls) and calls[len(results)][0] in tools else None
    script = shell_script()
    if script and tools:
        name = _pick(tools, SHELL_TOOLS)
        return (name, _args(tools[name], COMMAND_KEYS, script[len(results)])) if name and len(results) < len(script) else None
    skill = wanted_skill()
    if not skill or not tools:
        return None
    if not results:
        name = _pick(tools, SKILL_TOOLS)
        return (name, _args(tools[name], NAME_KEYS, skill)) if name else None
    if len(results) == 1:
        m = RESOLVE_CALL.search((after or results[0]).replace('\\"', '"'))
        name = _pick(tools, SHELL_TOOLS)
        if m and name:
            return name, _args(tools[name], COMMAND_KEYS, m.group(1))
    return None


def chat_tools(req: dict) -> dict[str, dict]:
    """{name: parameters} of an OpenAI chat-completions request (a freeform `custom` tool, such as
    Copilot's apply_patch for a GPT model: {"custom": True})."""
    out = {}
    for t in req.get("tools") or []:
        fn = t.get("function") if isinstance(t, dict) else None
        if isinstance(fn, dict) and fn.get("name"):
            out[fn["name"]] = fn.get("parameters") or {}
        custom = t.get("custom") if isinstance(t, dict) and t.get("type") == "custom" else None
        if isinstance(custom, dict) and custom.get("name"):
            out[custom["name"]] = {"custom": True}
    return out


def _text(content) -> str:
    return content if isinstance(content, str) else json.dumps(content)


def chat_results(req: dict) -> list[str]:
    """The tool results of an OpenAI chat-completions request, in order."""
    return [_text(m.get("content")) for m in req.get("messages") or [] if isinstance(m, dict) and m.get("role") == "tool"]


def chat_after_call(req: dict) -> str:
    """Every message of an OpenAI chat-completions request after the model's first tool call, as text."""
    msgs = [m for m in req.get("messages") or [] if isinstance(m, dict)]
    first = next((i for i, m in enumerate(msgs) if m.get("role") == "assistant" and m.get("tool_calls")), len(msgs))
    return "\n".join(_text(m.get("content")) for m in msgs[first + 1:])


def gemini_after_call(req: dict) -> str:
    contents = [c for c in req.get("contents") or [] if isinstance(c, dict)]
    first = next((i for i, c in enumerate(contents) if any("functionCall" in p for p in c.get("parts") or [])), len(contents))
    return "\n".join(json.dumps(c) for c in contents[first + 1:])


def responses_tools(req: dict) -> dict[str, dict]:
    """{name: parameters} of an OpenAI Responses request (Codex): its function tools, a tool inside a
    `namespace` entry (Codex 0.171 puts an MCP server's tools in one named `mcp__<server>`) named
    `<namespace>__<tool>`."""
    out = {}
    for t in req.get("tools") or []:
        if isinstance(t, dict) and t.get("type") == "namespace":
            out.update({f"{t.get('name')}__{n}": p for n, p in responses_tools({"tools": t.get("tools")}).items()})
        elif isinstance(t, dict) and t.get("type") == "function" and t.get("name"):
            out[t["name"]] = t.get("parameters") or {}
    return out


def responses_results(req: dict) -> list[str]:
    items = req.get("input") if isinstance(req.get("input"), list) else []
    return [json.dumps(i.get("output")) for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]


def gemini_tools(req: dict) -> dict[str, dict]:
    out = {}
    for t in req.get("tools") or []:
        for f in (t.get("functionDeclarations") or []) if isinstance(t, dict) else []:
            out[f["name"]] = f.get("parametersJsonSchema") or f.get("parameters") or {}
    return out


def gemini_results(req: dict) -> list[str]:
    return [json.dumps(p["functionResponse"]) for c in req.get("contents") or [] for p in c.get("parts") or []
            if isinstance(p, dict) and "functionResponse" in p]
