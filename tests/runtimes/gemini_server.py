"""A stand-in for the Gemini API (generativelanguage), for driving the real Gemini CLI offline.

Standard library only. Run as a process:

    python tests/runtimes/gemini_server.py --record requests.jsonl --port-file port.txt --lifetime 120

Listens on 127.0.0.1 on an ephemeral port (written to --port-file once listening), records
every request (method, path, body) as one JSON line, and exits by itself after --lifetime
seconds. `...:streamGenerateContent` gets one server-sent event and `...:generateContent`
one JSON answer, both a model turn with the text REPLY; `...:countTokens` gets a count; any
other path a small empty JSON object. The CLI gets a finished answer, so a run never waits.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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
    config = (request or {}).get("generationConfig") or {}
    text = REPLY
    if config.get("responseMimeType") == "application/json":
        text = json.dumps(_json_for(config.get("responseJsonSchema") or config.get("responseSchema") or {}))
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12},
        "modelVersion": "stand-in",
    }


class Handler(BaseHTTPRequestHandler):
    record_path = ""
    lock = threading.Lock()

    def log_message(self, *args):  # quiet
        pass

    def _record(self, body: bytes) -> None:
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = body.decode("utf-8", "replace")
        with self.lock, open(self.record_path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"method": self.command, "path": self.path, "body": parsed}) + "\n")

    def _send(self, code: int, ctype: str, data: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = min(int(self.headers.get("Content-Length") or 0), 64 * 1024 * 1024)
        body = self.rfile.read(length)
        self._record(body)
        path = self.path.split("?")[0]
        try:
            request = json.loads(body) if body else {}
        except ValueError:
            request = {}
        request = request if isinstance(request, dict) else {}
        if path.endswith(":streamGenerateContent"):
            self._send(200, "text/event-stream", ("data: " + json.dumps(_answer(request)) + "\r\n\r\n").encode())
        elif path.endswith(":generateContent"):
            self._send(200, "application/json", json.dumps(_answer(request)).encode())
        elif path.endswith(":countTokens"):
            self._send(200, "application/json", b'{"totalTokens": 10}')
        else:
            self._send(200, "application/json", b"{}")

    def do_GET(self):
        self._record(b"")
        self._send(200, "application/json", b"{}")


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
