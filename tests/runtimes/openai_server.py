"""A stand-in for the OpenAI API, for driving the real OpenCode and Codex CLIs offline.

Standard library only. Run as a process:

    python tests/runtimes/openai_server.py --record requests.jsonl --port-file port.txt --lifetime 120

Listens on 127.0.0.1 on an ephemeral port (written to --port-file once listening), records
every request (method, path, body) as one JSON line, exits by itself after --lifetime seconds.
`POST .../chat/completions` streams one assistant message (chat.completion.chunk events, then
[DONE]) or answers with one JSON completion; `POST .../responses` streams the Responses events
(response.created, output text delta and done, response.completed); `GET .../models` lists one
model; anything else gets `{}`. Every answer is the text REPLY and ends the turn, except with
MSD_STANDIN_FOLLOW_RESOLVE=1 in the environment: a Responses request whose input names
`msd_run resolve <stem> --root <root> --raw` (as an Agent Skills spine does) and holds no tool
output yet is answered with a call of Codex's `exec_command` tool running exactly that command,
as a model following the skill would. With MSD_STANDIN_SKILL=<skill> a chat-completions request
is answered as tests/runtimes/skill_script.py says (activate the skill, run its `msd_run` call);
with MSD_STANDIN_CALLS (skill_script.call_script) a Responses request is answered with the next
scripted call, one per tool output the request holds.
With MSD_STANDIN_MCP_CALL='<tool> <JSON arguments>' a chat-completions or Responses request that offers
a tool whose name ends with `<tool>` and holds no tool result yet is answered with a call of that tool
(an MCP tool, whatever prefix the client gives it; skill_script.mcp_call).
"""

from __future__ import annotations

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # the repository (run with python -I)
from tests.kit.stand_in_server import RecordingHandler, arguments, parsed_body, serve, sse  # noqa: E402
from tests.runtimes import skill_script  # noqa: E402

REPLY = "MSD-OPENAI-OK"
MODEL = "stand-in"


def chat_stream() -> bytes:
    base = {"id": "chatcmpl-msd", "object": "chat.completion.chunk", "created": 0, "model": MODEL}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": REPLY}, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}},
    ]
    return sse(chunks) + b"data: [DONE]\n\n"


def chat_call_stream(name: str, args: dict, custom: bool = False) -> bytes:
    """One streamed assistant turn that calls tool `name` (a chat-completions tool call; a freeform
    `custom` tool gets `args["input"]` as its text)."""
    base = {"id": "chatcmpl-msd", "object": "chat.completion.chunk", "created": 0, "model": MODEL}
    call = {"index": 0, "id": f"call_msd_{name}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
    if custom:
        call = {"index": 0, "id": f"call_msd_{name}", "type": "custom", "custom": {"name": name, "input": str(args.get("input", ""))}}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": None, "tool_calls": [call]}, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
         "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}},
    ]
    return sse(chunks) + b"data: [DONE]\n\n"


def chat_call(req) -> tuple[str, dict] | None:
    """The tool call a model following MSD_STANDIN_SKILL makes next (tests/runtimes/skill_script.py),
    or the one MSD_STANDIN_MCP_CALL names (module doc)."""
    if not isinstance(req, dict):
        return None
    return skill_script.next_call(skill_script.chat_tools(req), skill_script.chat_results(req), skill_script.chat_after_call(req))


RESOLVE_CALL = re.compile(r"`(msd_run resolve [a-z0-9-]+ --root \S+ --raw)`")


def resolve_to_run(req) -> str | None:
    """The `msd_run resolve ... --raw` command the request's input names, when the stand-in is
    to follow it (module doc) and no tool has answered yet; else None."""
    if os.environ.get("MSD_STANDIN_FOLLOW_RESOLVE") != "1" or not isinstance(req, dict):
        return None
    text = json.dumps(req.get("input", ""))
    if "function_call_output" in text:
        return None
    m = RESOLVE_CALL.search(text.replace('\\"', '"'))
    return m.group(1) if m else None


def shell_to_run(req) -> tuple[str, int] | None:
    """MSD_STANDIN_SHELL's next command for a Responses request (skill_script.shell_script), with the
    number of tool outputs the request already holds; None once each has run."""
    script = skill_script.shell_script()
    items = req.get("input") if isinstance(req, dict) else None
    done = sum(1 for i in items if isinstance(i, dict) and i.get("type") == "function_call_output") if isinstance(items, list) else 0
    return (script[done], done) if done < len(script) else None


def scripted_call(req) -> tuple[str, dict, int] | None:
    """MSD_STANDIN_CALLS's next [tool, arguments] for a Responses request (skill_script.call_script),
    with the number of tool outputs the request already holds; None once each has run."""
    script = skill_script.call_script()
    items = req.get("input") if isinstance(req, dict) else None
    done = sum(1 for i in items if isinstance(i, dict) and i.get("type") in ("function_call_output", "custom_tool_call_output")) \
        if isinstance(items, list) else 0
    return (*script[done], done) if done < len(script) else None


def function_call_stream(cmd: str, n: int = 0, call: tuple[str, dict] | None = None, custom: bool = False) -> bytes:
    """A Responses turn calling Codex's `exec_command` with `cmd`, or the tool `call` names (name,
    arguments); a tool of a namespace (`mcp__msd__config_get`, skill_script.responses_tools) is called
    by its own name with the namespace beside it; a `custom` (freeform) tool, such as Codex's
    apply_patch, gets `arguments["input"]` as its text."""
    name, args = call or ("exec_command", {"cmd": cmd, "login": False})
    namespace, _, tool = name.rpartition("__") if name.startswith("mcp__") else ("", "", name)
    item = {"type": "function_call", "id": f"fc_msd{n or ''}", "call_id": f"call_msd{n or ''}", "name": tool,
            **({"namespace": namespace} if namespace else {}), "arguments": json.dumps(args), "status": "completed"}
    if custom:
        item = {"type": "custom_tool_call", "id": f"ctc_msd{n or ''}", "call_id": f"call_msd{n or ''}", "name": name,
                "input": str(args.get("input", "")), "status": "completed"}
    resp = {"id": "resp_msd_call", "object": "response", "created_at": 0, "model": MODEL, "status": "in_progress", "output": []}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 2,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 12}
    events = [
        {"type": "response.created", "response": resp, "sequence_number": 0},
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "status": "in_progress"}, "sequence_number": 1},
        {"type": "response.output_item.done", "output_index": 0, "item": item, "sequence_number": 2},
        {"type": "response.completed", "response": {**resp, "status": "completed", "output": [item], "usage": usage}, "sequence_number": 3},
    ]
    return sse(events, named=True)


def responses_stream() -> bytes:
    item = {"type": "message", "id": "msg_msd", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": REPLY, "annotations": []}]}
    resp = {"id": "resp_msd", "object": "response", "created_at": 0, "model": MODEL, "status": "in_progress", "output": []}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 2,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 12}
    events = [
        {"type": "response.created", "response": resp, "sequence_number": 0},
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "status": "in_progress", "content": []}, "sequence_number": 1},
        {"type": "response.output_text.delta", "item_id": "msg_msd", "output_index": 0, "content_index": 0, "delta": REPLY, "sequence_number": 2},
        {"type": "response.output_item.done", "output_index": 0, "item": item, "sequence_number": 3},
        {"type": "response.completed", "response": {**resp, "status": "completed", "output": [item], "usage": usage}, "sequence_number": 4},
    ]
    return sse(events, named=True)


class Handler(RecordingHandler):
    def do_POST(self):
        body = self.read_body()
        req = parsed_body(body)
        self.record(body=req)
        stream = isinstance(req, dict) and req.get("stream")
        path = self.path.split("?")[0]
        if path.endswith("/chat/completions"):
            call = chat_call(req)
            if call and stream:
                self.send(200, "text/event-stream", chat_call_stream(*call, skill_script.chat_tools(req).get(call[0]) == {"custom": True}))
            elif call:
                msg = {"role": "assistant", "content": None, "tool_calls": [
                    {"id": f"call_msd_{call[0]}", "type": "function", "function": {"name": call[0], "arguments": json.dumps(call[1])}}]}
                self.send_json({"id": "chatcmpl-msd", "object": "chat.completion", "created": 0, "model": MODEL,
                                "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls"}],
                                "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}})
            elif stream:
                self.send(200, "text/event-stream", chat_stream())
            else:
                self.send_json({
                    "id": "chatcmpl-msd", "object": "chat.completion", "created": 0, "model": MODEL,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}})
        elif path.endswith("/responses") and scripted_call(req):
            name, args, n = scripted_call(req)
            custom = any(isinstance(t, dict) and t.get("name") == name and t.get("type") == "custom" for t in req.get("tools") or [])
            self.send(200, "text/event-stream", function_call_stream("", n, (name, args), custom))
        elif path.endswith("/responses"):
            mcp = skill_script.mcp_call(skill_script.responses_tools(req), skill_script.responses_results(req)) \
                if isinstance(req, dict) else None
            shell = shell_to_run(req)
            cmd = shell[0] if shell else resolve_to_run(req)
            if mcp:
                self.send(200, "text/event-stream", function_call_stream("", 0, mcp))
            else:
                self.send(200, "text/event-stream", function_call_stream(cmd, shell[1] if shell else 0) if cmd else responses_stream())
        else:
            self.send_json({})

    def do_GET(self):
        self.record(body=None)
        if self.path.split("?")[0].endswith("/models"):
            self.send_json({"object": "list", "data": [{"id": MODEL, "object": "model"}], "models": []})
        else:
            self.send_json({})


def main() -> int:
    args = arguments("stand-in OpenAI API for the OpenCode and Codex runtime tests", 120.0).parse_args()
    Handler.record_path = args.record
    return serve(Handler, args.port_file, args.lifetime)


if __name__ == "__main__":
    sys.exit(main())
