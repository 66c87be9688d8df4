"""A stand-in for the OpenAI API, for driving the real OpenCode and Codex CLIs offline.

Standard library only. Run as a process:

    python tests/runtimes/openai_server.py --record requests.jsonl --port-file port.txt --lifetime 120

Listens on 127.0.0.1 on an ephemeral port (written to --port-file once listening), records
every request (method, path, body) as one JSON line, exits by itself after --lifetime seconds.
`POST .../chat/completions` streams one assistant message (chat.completion.chunk events, then
[DONE]) or answers with one JSON completion; `POST .../responses` streams the Responses events
(response.created, output text delta and done, response.completed); `GET .../models` lists one
model; anything else gets `{}`. Every answer is the text REPLY and ends the turn.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLY = "MSD-OPENAI-OK"
MODEL = "stand-in"


def _sse(events: list[dict], named: bool) -> bytes:
    out = []
    for ev in events:
        head = f"event: {ev['type']}\n" if named else ""
        out.append(f"{head}data: {json.dumps(ev)}\n\n")
    return "".join(out).encode()


def chat_stream() -> bytes:
    base = {"id": "chatcmpl-msd", "object": "chat.completion.chunk", "created": 0, "model": MODEL}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": REPLY}, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}},
    ]
    return _sse(chunks, False) + b"data: [DONE]\n\n"


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
    return _sse(events, True)


class Handler(BaseHTTPRequestHandler):
    record_path = ""
    lock = threading.Lock()

    def log_message(self, *args):
        pass

    def _record(self, body: bytes) -> None:
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = body.decode("utf-8", "replace")
        with self.lock, open(self.record_path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"method": self.command, "path": self.path, "body": parsed}) + "\n")

    def _send(self, ctype: str, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = min(int(self.headers.get("Content-Length") or 0), 64 * 1024 * 1024)
        body = self.rfile.read(length)
        self._record(body)
        try:
            req = json.loads(body) if body else {}
        except ValueError:
            req = {}
        stream = isinstance(req, dict) and req.get("stream")
        path = self.path.split("?")[0]
        if path.endswith("/chat/completions"):
            if stream:
                self._send("text/event-stream", chat_stream())
            else:
                self._send("application/json", json.dumps({
                    "id": "chatcmpl-msd", "object": "chat.completion", "created": 0, "model": MODEL,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}).encode())
        elif path.endswith("/responses"):
            self._send("text/event-stream", responses_stream())
        else:
            self._send("application/json", b"{}")

    def do_GET(self):
        self._record(b"")
        if self.path.split("?")[0].endswith("/models"):
            self._send("application/json", json.dumps({"object": "list", "data": [{"id": MODEL, "object": "model"}], "models": []}).encode())
        else:
            self._send("application/json", b"{}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--record", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--lifetime", type=float, default=120.0)
    args = ap.parse_args()
    Handler.record_path = args.record
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(str(server.server_address[1]))
    os.replace(tmp, args.port_file)
    threading.Timer(args.lifetime, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
