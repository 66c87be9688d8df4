"""What Claude Code 2.1.332 does with an `http` hook whose server is not there (one reason msd's
guard is not an `http` hook; scripts/bench_guards.py, variant "http floor", measures what one would
cost): by default the call goes ahead as if no guard were set; with `"onFailure": "block"` it is
refused with the connection's error. The write guard's rows of a real `msd install` are swapped for such hooks; the file on disk
shows which way each session went."""

from __future__ import annotations

import json
import socket

import hostkit

ARGS = ["--permission-mode", "acceptEdits"]


def closed_port() -> int:
    with socket.socket() as s:  # a port nothing listens on once this socket is closed
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def with_http_guard(installed: dict, url: str, on_failure: str | None) -> dict:
    obj = json.loads(json.dumps(installed))
    for group in obj["hooks"]["PreToolUse"]:
        group["hooks"] = [{"type": "http", "url": url, "timeout": 10, **({"if": h["if"]} if h.get("if") else {}),
                           **({"onFailure": on_failure} if on_failure else {})} for h in group["hooks"]]
    return obj


def test_an_http_hook_without_its_server_lets_the_call_through_unless_it_blocks_on_failure(host_global):
    host = host_global
    hostkit.planning_project(host.project)
    settings = host.config_dir / "settings.json"
    installed = json.loads(settings.read_text())
    url = f"http://127.0.0.1:{closed_port()}/guard"
    seen = {}
    for on_failure in (None, "block"):
        target = host.project / ".planning" / f"NOTE-{on_failure or 'default'}.md"
        settings.write_text(json.dumps(with_http_guard(installed, url, on_failure), indent=2))
        run = host.run("GO", [{"when": "GO", "tool_use": [{"name": "Write", "input": {"file_path": str(target),
                                                                                      "content": "# Note\n"}}]},
                              {"text": "done"}], args=ARGS)
        assert run.returncode == 0, run.stderr[-2000:]
        [(name, _inp, text, err)] = run.tool_results
        seen[on_failure] = (name, target.exists(), bool(err), text)
    assert seen[None][:3] == ("Write", True, False), seen[None]
    assert seen["block"][:3] == ("Write", False, True), seen["block"]
    assert "ECONNREFUSED" in seen["block"][3] and "onFailure" in seen["block"][3], seen["block"][3]
