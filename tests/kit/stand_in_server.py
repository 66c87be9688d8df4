"""What every stand-in model API in the tests shares, server side and test side.

The stand-ins (tests/host/model_server.py for Claude Code, tests/runtimes/openai_server.py for
OpenCode and Codex, tests/runtimes/gemini_server.py for Gemini) run as child processes in an
isolated interpreter (`python -I`), so each puts the repository on sys.path itself before it
imports this module as tests.kit.stand_in_server. Standard library only.

Server side:
- `RecordingHandler`: quiet request handler that reads a request body, appends one JSON line
  per request to its `record_path`, and sends a finished answer (`send`).
- `sse(events, named=..., eol=...)`: server-sent events, one `data:` line per event.
- `arguments(...)` / `serve(handler, port_file, lifetime)`: the command line every stand-in
  takes (--record, --port-file, --lifetime) and the loop: listen on 127.0.0.1 on an ephemeral
  port, write the port to --port-file (atomically) once listening, exit after --lifetime s.

Test side:
- `start(server, record, port_file, lifetime, *extra)`: the server as a child process;
  (process, port) once it listens, RuntimeError with its stderr when it exits or stays silent.
- `stop(process)`, `records(record)`: stop it by its pid; the requests it recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MAX_BODY = 64 * 1024 * 1024


# --------------------------------------------------------------------------- server side


def sse(events: list[dict], *, named: bool = False, eol: str = "\n") -> bytes:
    """Server-sent events; `named` puts `event: <the event's type>` before each `data:` line."""
    out = []
    for ev in events:
        head = f"event: {ev['type']}{eol}" if named else ""
        out.append(f"{head}data: {json.dumps(ev)}{eol}{eol}")
    return "".join(out).encode()


def parsed_body(body: bytes):
    """The JSON a request body holds; its text when it is not JSON; None when it is empty."""
    try:
        return json.loads(body) if body else None
    except ValueError:
        return body.decode("utf-8", "replace")


class RecordingHandler(BaseHTTPRequestHandler):
    """Records every request as one JSON line {"method", "path", ...fields} in `record_path`."""

    record_path = ""
    record_lock = threading.Lock()

    def log_message(self, *args):  # quiet
        pass

    def read_body(self) -> bytes:
        length = min(int(self.headers.get("Content-Length") or 0), MAX_BODY)
        return self.rfile.read(length) if length else b""

    def record(self, **fields) -> None:
        entry = {"method": self.command, "path": self.path, "at": time.time(), **fields}
        with self.record_lock, open(self.record_path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")

    def send(self, code: int, ctype: str, data: bytes) -> None:
        """A finished answer: status, type, length and (except for HEAD) the bytes."""
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def send_json(self, payload, code: int = 200) -> None:
        self.send(code, "application/json", json.dumps(payload).encode())


def arguments(description: str, lifetime: float) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--record", required=True, help="JSON-lines file every request is appended to")
    ap.add_argument("--port-file", required=True, help="written with the port once listening")
    ap.add_argument("--lifetime", type=float, default=lifetime, help="seconds before the server exits by itself")
    return ap


def serve(handler: type[BaseHTTPRequestHandler], port_file: str, lifetime: float) -> int:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
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


# --------------------------------------------------------------------------- test side


def start(server: Path, record: Path, port_file: Path, lifetime: float, *extra: str,
          timeout: float = 20) -> tuple[subprocess.Popen, int]:
    """Run stand-in `server` (a script path) as a child process; (process, port) once it listens.
    Its stderr goes to <port_file>.stderr, quoted in the RuntimeError when it exits first."""
    port_file = Path(port_file)
    port_file.unlink(missing_ok=True)
    err_path = port_file.with_name(port_file.name + ".stderr")
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-I", str(server), "--record", str(record), "--port-file", str(port_file),
             "--lifetime", str(lifetime), *extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
        )
    deadline = time.monotonic() + timeout
    while not port_file.exists():
        if proc.poll() is not None:
            raise RuntimeError(f"{Path(server).stem} exited: {err_path.read_text(errors='replace').strip()}")
        if time.monotonic() > deadline:
            stop(proc)
            raise RuntimeError(f"{Path(server).stem} did not start within {timeout:g}s")
        time.sleep(0.02)
    return proc, int(port_file.read_text())


def stop(proc: subprocess.Popen | None) -> None:
    """SIGTERM by its pid, SIGKILL when it has not exited within 5 s."""
    if proc and proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


def records(record: Path) -> list[dict]:
    """The requests a stand-in recorded, oldest first ([] before the first)."""
    record = Path(record)
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
