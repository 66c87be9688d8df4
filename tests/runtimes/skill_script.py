"""What a stand-in model does when it is to follow an Agent Skills spine (standard library only;
imported by the stand-in servers, tests/runtimes/openai_server.py and gemini_server.py).

With MSD_STANDIN_SHELL=<commands, one a line> a request that offers a shell tool is answered with
a call of it running the next command (the first with no tool result yet, then one per result),
then the plain answer (what tests/runtimes/test_client_guards_cli.py drives a guard with).
With MSD_STANDIN_CALLS=<a JSON list of [tool, arguments]> the same, any tool by its exact name
(tests/runtimes/test_opencode_guard_cli.py drives a client's file tools with it).

With MSD_STANDIN_SKILL=<skill name> in the server's environment, a request that offers tools is
answered as a model following the skill would, turn by turn, whatever the client calls its tools:

  no tool result yet       ->  call the client's skill tool (`activate_skill`, `skill`, ...) with the name
  one tool result, and it  ->  call the client's shell tool (`run_shell_command`, `bash`, ...) with
  or what the client added    exactly that command
  after it names `msd_run resolve <stem> --root <root> --raw`
  anything else            ->  no call: the server's plain text answer ends the turn

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


def next_call(tools: dict[str, dict], results: list[str], after: str = "") -> tuple[str, dict] | None:
    """(tool name, arguments) of the next call, or None for the plain answer.
    `tools`: {name: parameters schema} the request offers; `results`: its tool results' texts, in
    order; `after`: all the request holds after the model's first call (Copilot CLI puts a skill's
    body in a user message after the tool result)."""
    calls = json.loads(os.environ.get("MSD_STANDIN_CALLS") or "[]")
    if calls and tools:
        return (calls[len(results)][0], calls[len(results)][1]) if len(results) < len(calls) else None
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
    """{name: parameters} of an OpenAI chat-completions request."""
    out = {}
    for t in req.get("tools") or []:
        fn = t.get("function") if isinstance(t, dict) else None
        if isinstance(fn, dict) and fn.get("name"):
            out[fn["name"]] = fn.get("parameters") or {}
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


def gemini_tools(req: dict) -> dict[str, dict]:
    out = {}
    for t in req.get("tools") or []:
        for f in (t.get("functionDeclarations") or []) if isinstance(t, dict) else []:
            out[f["name"]] = f.get("parametersJsonSchema") or f.get("parameters") or {}
    return out


def gemini_results(req: dict) -> list[str]:
    return [json.dumps(p["functionResponse"]) for c in req.get("contents") or [] for p in c.get("parts") or []
            if isinstance(p, dict) and "functionResponse" in p]
