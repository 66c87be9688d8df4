"""The stand-in OpenAI API (tests/runtimes/openai_server.py) as a fixture helper."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

SERVER = Path(__file__).with_name("openai_server.py")


@contextmanager
def openai_api(folder: Path):
    """Yield (base URL ending in /v1, record path); the server is killed on exit."""
    record, port_file = folder / "openai-requests.jsonl", folder / "openai-port"
    proc = subprocess.Popen([sys.executable, str(SERVER), "--record", str(record), "--port-file", str(port_file), "--lifetime", "240"])
    try:
        for _ in range(100):
            if port_file.exists():
                break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port_file.read_text()}/v1", record
    finally:
        proc.kill()
        proc.wait(timeout=10)


def requests(record: Path) -> list[dict]:
    return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []
