"""A scripted stand-in for the Anthropic Messages API, for driving the real Claude Code CLI.

Standard library only. Run as a process (the host fixture does this):

    python tests/host/model_server.py --script turns.json --record requests.jsonl \
        --port-file port.txt --lifetime 300

It listens on 127.0.0.1 on an ephemeral port (written to --port-file once it listens),
records every request (method, path, body) as one JSON line in --record, and exits by
itself after --lifetime seconds; the fixture also stops it by its pid.

Script: a JSON list of turns. For each `POST /v1/messages` from the main conversation
or a subagent, the server picks the first unused turn that matches (see `when`) and
streams it back as server-sent events (message_start, content_block_start/delta/stop
with text_delta or input_json_delta, message_delta, message_stop), or as one JSON
message when the request does not ask to stream. A turn:

    {"text": "words"}                                     # ends the turn (stop_reason end_turn)
    {"tool_use": [{"name": "Bash", "input": {"command": "ls"}}],
     "text": "optional words before the calls"}         # stop_reason tool_use
    {"when": "substring", ...}     # only when what came back since the model's last turn
                                   # (tool results, host notices, or the prompt) contains it
    {"when_system": "substring", ...}   # only when the system prompt contains it
                                   # (e.g. a subagent's own prompt)
    {"repeat": true, ...}          # never used up (a standing reply)
    {"seconds": 1.5, ...}          # answer after that long (a model's think time; at most 30 s)
    {"usage": {"input_tokens": 1200, "cache_read_input_tokens": 300,
               "cache_creation_input_tokens": 40, "output_tokens": 7}, ...}
                                   # the usage the response reports: input and cache figures
                                   # in message_start, output_tokens in message_delta (as the
                                   # API sends them); default 10 input, 5 output

Tool-use ids are generated (`toolu_msd_<server>_<n>`: unique across servers, so a session
resumed against a new server never sees an id its history already holds). Requests that carry no `tools` (the CLI's
side queries: titles, summaries, quota probes) get a short harmless text reply and use
no turn. When no turn matches, the reply is the text "SCRIPT-EXHAUSTED" (end_turn), so
a run never hangs waiting for the model. Any other path (count_tokens, HEAD/GET probes)
gets a small harmless JSON answer.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # the repository (run with python -I)
from tests.kit.stand_in_server import RecordingHandler, arguments, serve, sse  # noqa: E402

EXHAUSTED = "SCRIPT-EXHAUSTED"
SIDE_REPLY = "ok"


def message_text(content) -> str:
    """Plain text of a message's content (a string or a list of blocks, tool_result included)."""
    if isinstance(content, str):
        return content
    out = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            out.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            out.append(message_text(block.get("content")))
    return "\n".join(out)


def latest_user_side(body: dict) -> tuple[str, bool]:
    """(text, has_tool_result) of the user-side messages after the latest assistant message:
    tool results and any text the host added (nudges, background-task notifications)."""
    parts, has_result = [], False
    for msg in reversed(body.get("messages") or []):
        if msg.get("role") == "assistant":
            break
        content = msg.get("content")
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            has_result = True
        parts.append(message_text(content))
    return "\n".join(reversed(parts)), has_result


def system_text(body: dict) -> str:
    system = body.get("system")
    return system if isinstance(system, str) else message_text(system)


class Script:
    """The turns, consumed in order subject to their `when` conditions (thread-safe)."""

    def __init__(self, turns: list[dict]):
        self.turns = turns
        self.used = [False] * len(turns)
        self.lock = threading.Lock()
        self.ids = 0

    def pick(self, body: dict) -> dict:
        probe, _ = latest_user_side(body)
        system = system_text(body)
        with self.lock:
            for i, turn in enumerate(self.turns):
                if self.used[i]:
                    continue
                if "when" in turn and turn["when"] not in probe:
                    continue
                if "when_system" in turn and turn["when_system"] not in system:
                    continue
                if not turn.get("repeat"):
                    self.used[i] = True
                return {**turn, "index": i}
            return {"text": EXHAUSTED, "index": None}

    def next_id(self) -> str:
        with self.lock:
            self.ids += 1
            return f"toolu_msd_{os.getpid()}_{self.ids:04d}"


def blocks_for(turn: dict, script: Script) -> list[dict]:
    blocks = []
    if turn.get("text"):
        blocks.append({"type": "text", "text": turn["text"]})
    for call in turn.get("tool_use") or []:
        blocks.append({"type": "tool_use", "id": script.next_id(), "name": call["name"], "input": call.get("input", {})})
    if not blocks:
        blocks.append({"type": "text", "text": ""})
    return blocks


DEFAULT_USAGE = {"input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 5}


def usage_of(turn: dict) -> dict:
    given = turn.get("usage") if isinstance(turn.get("usage"), dict) else {}
    return {k: int(given.get(k, v)) for k, v in DEFAULT_USAGE.items()}


def sse_events(blocks: list[dict], model: str, usage_figures: dict | None = None) -> list[dict]:
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    figures = usage_figures or DEFAULT_USAGE
    usage = {**{k: v for k, v in figures.items() if k != "output_tokens"}, "output_tokens": 0}
    events = [{"type": "message_start", "message": {
        "id": f"msg_msd_{time.monotonic_ns()}", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}}]
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            events.append({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
            events.append({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": b["text"]}})
        else:
            events.append({"type": "content_block_start", "index": i,
                           "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}})
            raw = json.dumps(b["input"])
            half = len(raw) // 2
            for piece in (raw[:half], raw[half:]):
                events.append({"type": "content_block_delta", "index": i,
                               "delta": {"type": "input_json_delta", "partial_json": piece}})
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                   "usage": {"output_tokens": figures["output_tokens"]}})
    events.append({"type": "message_stop"})
    return events


def whole_message(blocks: list[dict], model: str, usage_figures: dict | None = None) -> dict:
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return {"id": f"msg_msd_{time.monotonic_ns()}", "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop, "stop_sequence": None,
            "usage": dict(usage_figures or DEFAULT_USAGE)}


def make_handler(script: Script, record_path: str):
    class Handler(RecordingHandler):
        protocol_version = "HTTP/1.1"

        def _record(self, text: str, parsed=None, turn: int | None = None) -> None:
            fields = {"body": parsed}
            if parsed is None and text:
                fields["raw"] = text[:2000]
            if turn is not None or self.command == "POST":
                fields["turn"] = turn  # index of the script turn used; None: side reply or none left
            self.record(**fields)

        def do_HEAD(self):
            self._record("")
            self.send_json({})

        def do_GET(self):
            self._record("")
            self.send_json({"data": [], "has_more": False})

        def do_POST(self):
            text = self.read_body().decode("utf-8", errors="replace")
            try:
                parsed = json.loads(text) if text else None
            except ValueError:
                parsed = None
            body = parsed if isinstance(parsed, dict) else {}
            path = self.path.split("?", 1)[0]
            if not path.endswith("/v1/messages"):
                self._record(text, parsed)
                return self.send_json({"input_tokens": 1000} if path.endswith("/count_tokens") else {})
            model = body.get("model") or "claude-scripted"
            turn = script.pick(body) if body.get("tools") else {"text": SIDE_REPLY, "index": None}
            self._record(text, parsed, turn["index"])
            blocks = blocks_for(turn, script)
            figures = usage_of(turn)
            wait = turn.get("seconds")
            if isinstance(wait, (int, float)) and not isinstance(wait, bool) and 0 < wait <= 30:
                time.sleep(wait)
            if not body.get("stream"):
                return self.send_json(whole_message(blocks, model, figures))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(sse(sse_events(blocks, model, figures), named=True))
            self.wfile.flush()
            self.close_connection = True

    Handler.record_path = record_path
    return Handler


def run(script_path: str, record_path: str, port_file: str, lifetime: float) -> int:
    with open(script_path, encoding="utf-8") as fh:
        turns = json.load(fh)
    if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
        print("model_server: the script must be a JSON list of objects", file=sys.stderr)
        return 2
    return serve(make_handler(Script(turns), record_path), port_file, lifetime)


def main(argv: list[str] | None = None) -> int:
    ap = arguments("scripted Anthropic Messages API server for host tests", 300.0)
    ap.add_argument("--script", required=True, help="JSON list of turns")
    a = ap.parse_args(argv)
    return run(a.script, a.record, a.port_file, a.lifetime)


if __name__ == "__main__":
    sys.exit(main())
