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

Tool-use ids are generated (`toolu_msd_<n>`). Requests that carry no `tools` (the CLI's
side queries: titles, summaries, quota probes) get a short harmless text reply and use
no turn. When no turn matches, the reply is the text "SCRIPT-EXHAUSTED" (end_turn), so
a run never hangs waiting for the model. Any other path (count_tokens, HEAD/GET probes)
gets a small harmless JSON answer.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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
            return f"toolu_msd_{self.ids:04d}"


def blocks_for(turn: dict, script: Script) -> list[dict]:
    blocks = []
    if turn.get("text"):
        blocks.append({"type": "text", "text": turn["text"]})
    for call in turn.get("tool_use") or []:
        blocks.append({"type": "tool_use", "id": script.next_id(), "name": call["name"], "input": call.get("input", {})})
    if not blocks:
        blocks.append({"type": "text", "text": ""})
    return blocks


def sse_events(blocks: list[dict], model: str) -> list[tuple[str, dict]]:
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    usage = {"input_tokens": 10, "output_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    events = [("message_start", {"type": "message_start", "message": {
        "id": f"msg_msd_{time.monotonic_ns()}", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}})]
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": {"type": "text", "text": ""}}))
            events.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "text_delta", "text": b["text"]}}))
        else:
            events.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}}))
            raw = json.dumps(b["input"])
            half = len(raw) // 2
            for piece in (raw[:half], raw[half:]):
                events.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                       "delta": {"type": "input_json_delta", "partial_json": piece}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 5}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def whole_message(blocks: list[dict], model: str) -> dict:
    stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
    return {"id": f"msg_msd_{time.monotonic_ns()}", "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}


def make_handler(script: Script, record_path: str):
    record_lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet
            pass

        def _parse(self, body_text: str) -> dict | None:
            try:
                return json.loads(body_text) if body_text else None
            except ValueError:
                return None

        def _record(self, body_text: str, body: dict | None = None, turn: int | None = None) -> None:
            entry = {"method": self.command, "path": self.path, "body": body}
            if body is None and body_text:
                entry["raw"] = body_text[:2000]
            if turn is not None or self.command == "POST":
                entry["turn"] = turn  # index of the script turn used; None: side reply or none left
            with record_lock, open(record_path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry) + "\n")

        def _json(self, status: int, payload: dict):
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def do_HEAD(self):
            self._record("")
            self._json(200, {})

        def do_GET(self):
            self._record("")
            self._json(200, {"data": [], "has_more": False})

        def do_POST(self):
            length = int(self.headers.get("content-length") or 0)
            text = self.rfile.read(length).decode("utf-8", errors="replace") if length else ""
            parsed = self._parse(text)
            body = parsed if isinstance(parsed, dict) else {}
            path = self.path.split("?", 1)[0]
            if not path.endswith("/v1/messages"):
                self._record(text, parsed)
                return self._json(200, {"input_tokens": 1000} if path.endswith("/count_tokens") else {})
            model = body.get("model") or "claude-scripted"
            turn = script.pick(body) if body.get("tools") else {"text": SIDE_REPLY, "index": None}
            self._record(text, parsed, turn["index"])
            blocks = blocks_for(turn, script)
            if not body.get("stream"):
                return self._json(200, whole_message(blocks, model))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            for name, data in sse_events(blocks, model):
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()
            self.close_connection = True

    return Handler


def serve(script_path: str, record_path: str, port_file: str, lifetime: float) -> int:
    with open(script_path, encoding="utf-8") as fh:
        turns = json.load(fh)
    if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
        print("model_server: the script must be a JSON list of objects", file=sys.stderr)
        return 2
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(Script(turns), record_path))
    server.daemon_threads = True
    tmp = port_file + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(str(server.server_address[1]))
    os.replace(tmp, port_file)
    timer = threading.Timer(lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="scripted Anthropic Messages API server for host tests")
    ap.add_argument("--script", required=True, help="JSON list of turns")
    ap.add_argument("--record", required=True, help="JSON-lines file every request is appended to")
    ap.add_argument("--port-file", required=True, help="written with the port once listening")
    ap.add_argument("--lifetime", type=float, default=300.0, help="seconds before the server exits by itself")
    a = ap.parse_args(argv)
    return serve(a.script, a.record, a.port_file, a.lifetime)


if __name__ == "__main__":
    sys.exit(main())
