"""The stand-in model APIs of the runtime tests (openai_server.py for OpenCode and Codex,
gemini_server.py for Gemini) as context managers; started and stopped by tests/kit/stand_in_server.py."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from tests.kit import stand_in_server

HERE = Path(__file__).resolve().parent


@contextmanager
def _api(server: str, folder: Path, prefix: str):
    record, port_file = folder / f"{prefix}requests.jsonl", folder / f"{prefix}port"
    proc, port = stand_in_server.start(HERE / server, record, port_file, 240)
    try:
        yield f"http://127.0.0.1:{port}", record
    finally:
        stand_in_server.stop(proc)


@contextmanager
def openai_api(folder: Path):
    """Yield (base URL ending in /v1, record path); the server is stopped on exit."""
    with _api("openai_server.py", folder, "openai-") as (url, record):
        yield f"{url}/v1", record


@contextmanager
def gemini_api(folder: Path):
    """Yield (base URL, record path); the server is stopped on exit."""
    with _api("gemini_server.py", folder, "gemini-") as (url, record):
        yield url, record


requests = stand_in_server.records
