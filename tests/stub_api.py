"""A stand-in for the model API on 127.0.0.1, so the real Claude Code CLI can run offline.

Every POST body is kept (`requests`); every /v1/messages call is answered with one streamed
assistant message whose text is `reply` (end_turn). Enough for the host to render a skill,
send it, and exit: a test then reads what the model would have seen. `responder(body)` may
instead return a tool call `{"tool": name, "input": {...}}` (or None for the text reply), so
a test can make the "model" spawn a subagent or run a command.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CLAUDE_VERSION = "2.1.332"


def claude_binary() -> str | None:
    """The real CLI: $MSD_CLAUDE_BIN, else /tmp/cc-h (npm --prefix), else `claude` on PATH."""
    for cand in (os.environ.get("MSD_CLAUDE_BIN"), "/tmp/cc-h/node_modules/.bin/claude", shutil.which("claude")):
        if cand and Path(cand).exists():
            return cand
    return None


def _sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class StubAPI:
    def __init__(self, reply: str = "ok", responder=None):
        self.reply = reply
        self.responder = responder
        self.requests: list[dict] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def do_HEAD(self):
                self.send_response(200)
                self.end_headers()

            def do_GET(self):
                body = b"{}"
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                n = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(n)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                stub.requests.append({"path": self.path, "body": body})
                if "count_tokens" in self.path:
                    out = b'{"input_tokens": 10}'
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(out)))
                    self.end_headers()
                    self.wfile.write(out)
                    return
                model = body.get("model", "claude-sonnet-4-5") if isinstance(body, dict) else "x"
                msg = {"id": "msg_stub", "type": "message", "role": "assistant", "model": model, "content": [],
                       "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}
                call = stub.responder(body) if stub.responder and isinstance(body, dict) else None
                if call and body.get("stream"):
                    n = len(stub.requests)
                    chunks = [
                        _sse("message_start", {"type": "message_start", "message": msg}),
                        _sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
                            "type": "tool_use", "id": f"toolu_stub{n}", "name": call["tool"], "input": {}}}),
                        _sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                            "type": "input_json_delta", "partial_json": json.dumps(call["input"])}}),
                        _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
                        _sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 1}}),
                        _sse("message_stop", {"type": "message_stop"}),
                    ]
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.end_headers()
                    for c in chunks:
                        self.wfile.write(c)
                    self.wfile.flush()
                    return
                chunks = [
                    _sse("message_start", {"type": "message_start", "message": msg}),
                    _sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                    _sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": stub.reply}}),
                    _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
                    _sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 1}}),
                    _sse("message_stop", {"type": "message_stop"}),
                ]
                if isinstance(body, dict) and not body.get("stream"):
                    out = json.dumps({**msg, "content": [{"type": "text", "text": stub.reply}], "stop_reason": "end_turn"}).encode()
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(out)))
                    self.end_headers()
                    self.wfile.write(out)
                    return
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.end_headers()
                for c in chunks:
                    self.wfile.write(c)
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "StubAPI":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def user_texts(self) -> list[str]:
        """Every text the host sent as user content, in order (the rendered skill is among them)."""
        out = []
        for req in self.requests:
            body = req["body"]
            for m in body.get("messages", []) if isinstance(body, dict) else []:
                content = m.get("content")
                if isinstance(content, str):
                    out.append(content)
                elif isinstance(content, list):
                    out.extend(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
        return out

    def system_texts(self) -> list[str]:
        out = []
        for req in self.requests:
            body = req["body"]
            sysp = body.get("system") if isinstance(body, dict) else None
            if isinstance(sysp, str):
                out.append(sysp)
            elif isinstance(sysp, list):
                out.extend(b.get("text", "") for b in sysp if isinstance(b, dict))
        return out


def host_env(home: Path, url: str, path: str | None = None) -> dict:
    env = {
        "HOME": str(home),
        "PATH": path if path is not None else os.environ.get("PATH", ""),
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-dummy-for-stub",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "TERM": "dumb",
        "SHELL": "/bin/bash",
    }
    return env
