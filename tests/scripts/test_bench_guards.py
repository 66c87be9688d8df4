"""scripts/bench_guards.py's variants change only the guard rows, each the way its name says (the
benchmark itself needs the real host and is not run here; tests never time)."""

from __future__ import annotations

import importlib.util
import json
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_guards", REPO / "scripts" / "bench_guards.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def installed() -> dict:
    from msd_core.install import host_hooks

    runner = Path("/opt/msd/bin/msd_run")
    return {"hooks": {
        "SessionStart": [{"hooks": [host_hooks.hook_entry(runner, "session-start", "/r")]}],
        "PreToolUse": [host_hooks.group_for(runner, "Write|Edit", [("Write(**/.planning/**)", "pre-tool-use")], "/r")],
    }}


def test_every_variant_but_guards_and_no_hooks_changes_only_the_guard_rows(bench):
    base = installed()
    for variant in bench.VARIANTS:
        got = bench.variant_settings(base, variant, "/opt/msd/bin/msd_run", "http://127.0.0.1:1/guard")
        if variant == "no hooks":
            assert "hooks" not in got
            continue
        assert got["hooks"].get("SessionStart") == base["hooks"]["SessionStart"]
        rows = [h for g in got["hooks"].get("PreToolUse", []) for h in g["hooks"]]
        if variant in ("no guards", "before"):
            assert rows == []
        elif variant == "guards":
            assert got == base
        elif variant == "python start":
            assert [(h["command"], h["args"]) for h in rows] == [(base["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
                                                                   ["-I", "-S", "-c", "pass"])]
        elif variant == "floor":
            assert [(h["command"], h["args"]) for h in rows] == [("/bin/true", [])]
        elif variant == "console script":
            assert [(h["command"], h["args"][:2]) for h in rows] == [("/opt/msd/bin/msd_run", ["hook", "pre-tool-use"])]
        elif variant == "http floor":
            assert rows == [{"type": "http", "url": "http://127.0.0.1:1/guard", "timeout": rows[0]["timeout"],
                             "if": "Write(**/.planning/**)"}]
        else:  # pragma: no cover - a new variant needs its own case here
            raise AssertionError(variant)
    assert base == installed()  # the install's own settings are never changed in place


def test_the_http_floor_server_answers_no_verdict_and_counts_each_post(bench):
    server = bench._empty_answer_server()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/guard"
        for n in (1, 2):
            req = urllib.request.Request(url, data=json.dumps({"tool_name": "Write"}).encode(), method="POST")
            with urllib.request.urlopen(req, timeout=10) as answer:
                assert (answer.status, answer.read()) == (200, b"")
            assert server.calls == n
    finally:
        server.shutdown()
