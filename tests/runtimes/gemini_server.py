"""A stand-in for the Gemini API (generativelanguage), for driving the real Gemini CLI offline.

Standard library only. Run as a process:

    python tests/runtimes/gemini_server.py --record requests.jsonl --port-file port.txt --lifetime 120

Listens on 127.0.0.1 on an ephemeral port (written to --port-file once listening), records
every request (method, path, body) as one JSON line, and exits by itself after --lifetime
seconds. `...:streamGenerateContent` gets one server-sent event and `...:generateContent`
one JSON answer, both a model turn with the text REPLY; `...:countTokens` gets a count; any
other path a small empty JSON object. The CLI gets a finished answer, so a run never waits.
With MSD_STANDIN_SKILL=<skill> a request offering tools is answered as tests/runtimes/skill_script.py
says (activate the skill, run its `msd_run` call); with MSD_STANDIN_MCP_CALL, by a call of that MCP tool.
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # the repository (run with python -I)
from tests.kit.stand_in_server import RecordingHandler, arguments, parsed_body, serve, sse  # noqa: E402
from tests.runtimes import skill_script  # noqa: E402

REPLY = "MSD-GEMINI-OK"


def _json_for(schema: dict) -> object:
    """A value of the requested JSON schema (the CLI's side queries, e.g. its model router)."""
    kind = str(schema.get("type", "")).upper()
    if kind == "OBJECT":
        return {k: _json_for(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "ARRAY":
        return []
    if kind in ("INTEGER", "NUMBER"):
        return 1
    if kind == "BOOLEAN":
        return False
    enum = schema.get("enum")
    return enum[0] if enum else "stand-in"


def _answer(request: dict | None = None) -> dict:
    req = request or {}
    call = skill_script.next_call(skill_script.gemini_tools(req), skill_script.gemini_results(req), skill_script.gemini_after_call(req))
    if call:  # a model following MSD_STANDIN_SKILL (tests/runtimes/skill_script.py)
        return {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": call[0], "args": call[1]}}]},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12}, "modelVersion": "stand-in"}
    config = (request or {}).get("generationConfig") or {}
    text = REPLY
    if config.get("responseMimeType") == "application/json":
        text = json.dumps(_json_for(config.get("responseJsonSchema") or config.get("responseSchema") or {}))
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12},
        "modelVersion": "stand-in",
    }


class Handler(RecordingHandler):
    def do_POST(self):
        body = self.read_body()
        request = parsed_body(body)
        self.record(body=request)
        request = request if isinstance(request, dict) else {}
        path = self.path.split("?")[0]
        if path.endswith(":streamGenerateContent"):
            self.send(200, "text/event-stream", sse([_answer(request)], eol="\r\n"))
        elif path.endswith(":generateContent"):
            self.send_json(_answer(request))
        elif path.endswith(":countTokens"):
            self.send_json({"totalTokens": 10})
        else:
            self.send_json({})

    def do_GET(self):
        self.record(body=None)
        self.send_json({})


def main() -> int:
    args = arguments("stand-in Gemini API for the Gemini runtime tests", 120.0).parse_args()
    Handler.record_path = args.record
    return serve(Handler, args.port_file, args.lifetime)


if __name__ == "__main__":
    sys.exit(main())
