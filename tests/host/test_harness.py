"""The harness itself: the scripted model server (no CLI needed) and the pinned CLI version."""

from __future__ import annotations

import http.client
import json
import stat

import hostkit
import pytest


def _post(server: hostkit.ModelServer, path: str, body: dict) -> tuple[int, str, str]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("POST", path, json.dumps(body), {"content-type": "application/json"})
    resp = conn.getresponse()
    data = resp.read().decode()
    conn.close()
    return resp.status, resp.getheader("content-type"), data


def _sse(data: str) -> list[tuple[str, dict]]:
    out = []
    for chunk in data.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def _req(messages, tools=True, stream=True, system="main prompt"):
    body = {"model": "m", "messages": messages, "system": system, "stream": stream}
    if tools:
        body["tools"] = [{"name": "Bash"}]
    return body


def _tool_result(text):
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": text}]}


def test_server_streams_script_turns_and_records_requests(tmp_path):
    script = [
        {"tool_use": [{"name": "Bash", "input": {"command": "echo one"}}], "text": "running"},
        {"when": "RESULT-B", "text": "saw b"},
        {"when": "RESULT-A", "text": "saw a"},
    ]
    with hostkit.ModelServer(script, tmp_path) as server:
        status, ctype, data = _post(server, "/v1/messages?beta=true", _req([{"role": "user", "content": "hi"}]))
        assert status == 200 and ctype == "text/event-stream"
        events = _sse(data)
        names = [e for e, _ in events]
        assert names == ["message_start", "content_block_start", "content_block_delta", "content_block_stop",
                         "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
                         "message_delta", "message_stop"]
        assert events[2][1]["delta"] == {"type": "text_delta", "text": "running"}
        partial = "".join(d["delta"]["partial_json"] for e, d in events if d.get("delta", {}).get("type") == "input_json_delta")
        assert json.loads(partial) == {"command": "echo one"}
        assert events[4][1]["content_block"]["name"] == "Bash"
        assert events[-2][1]["delta"]["stop_reason"] == "tool_use"
        # chosen by the last tool result, not by order: A's turn comes after B's in the script
        _, _, data = _post(server, "/v1/messages", _req([_tool_result("xx RESULT-A yy")]))
        assert _sse(data)[2][1]["delta"]["text"] == "saw a"
        # side query (no tools) uses no turn; non-streaming gets one JSON message
        _, ctype, data = _post(server, "/v1/messages", _req([{"role": "user", "content": "title?"}], tools=False, stream=False))
        assert ctype == "application/json" and json.loads(data)["content"][0]["text"] == hostkit_side_reply()
        _, _, data = _post(server, "/v1/messages", _req([_tool_result("RESULT-B")], stream=False))
        assert json.loads(data)["content"][0]["text"] == "saw b"
        # exhausted: a harmless end_turn, never a hang
        _, _, data = _post(server, "/v1/messages", _req([_tool_result("RESULT-A")], stream=False))
        msg = json.loads(data)
        assert msg["content"][0]["text"] == "SCRIPT-EXHAUSTED" and msg["stop_reason"] == "end_turn"
        status, _, data = _post(server, "/v1/messages/count_tokens", {"messages": []})
        assert status == 200 and "input_tokens" in json.loads(data)
        recorded = server.requests()
    assert [r["path"] for r in recorded][:2] == ["/v1/messages?beta=true", "/v1/messages"]
    assert recorded[1]["body"]["messages"][0]["content"][0]["content"] == "xx RESULT-A yy"
    assert len(recorded) == 6
    assert server.proc.poll() is not None  # stopped by its pid


def hostkit_side_reply():
    import model_server

    return model_server.SIDE_REPLY


def test_server_matches_system_prompt_and_standing_replies(tmp_path):
    script = [{"when_system": "SUBAGENT-X", "text": "sub", "repeat": True}, {"text": "main"}]
    with hostkit.ModelServer(script, tmp_path) as server:
        texts = []
        for system in ("I am SUBAGENT-X", "main prompt", "I am SUBAGENT-X", "main prompt"):
            _, _, data = _post(server, "/v1/messages", _req([{"role": "user", "content": "go"}], stream=False, system=system))
            texts.append(json.loads(data)["content"][0]["text"])
    assert texts == ["sub", "main", "sub", "SCRIPT-EXHAUSTED"]


def test_a_turn_with_seconds_answers_after_that_long(tmp_path):
    """A model's think time (bench_guards --model-seconds): the turn waits, a turn without it does not."""
    import time

    with hostkit.ModelServer([{"text": "slow", "seconds": 0.6}, {"text": "fast"}], tmp_path) as server:
        took = []
        for _ in range(2):
            t0 = time.monotonic()
            _, _, data = _post(server, "/v1/messages", _req([{"role": "user", "content": "go"}], stream=False))
            took.append((json.loads(data)["content"][0]["text"], time.monotonic() - t0))
    assert took[0][0] == "slow" and took[0][1] >= 0.6
    assert took[1][0] == "fast" and took[1][1] < 0.6


def test_server_refuses_a_script_that_is_not_a_list(tmp_path):
    server = hostkit.ModelServer({"text": "x"}, tmp_path)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="must be a JSON list"):
        server.start()


def test_server_exits_by_itself_after_its_lifetime(tmp_path):
    server = hostkit.ModelServer([], tmp_path, lifetime=0.5).start()
    try:
        server.proc.wait(timeout=10)
    finally:
        server.stop()
    assert server.proc.returncode == 0


def test_version_guard_fails_on_another_version(tmp_path):
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\necho '9.9.9 (Claude Code)'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(hostkit.VersionMismatch, match="9.9.9.*pin"):
        hostkit.check_version(fake)
    assert hostkit.check_version(fake, "9.9.9") == "9.9.9"


def test_cache_is_outside_the_repo_and_the_test_home(isolated_home):
    assert hostkit.REPO not in hostkit.CACHE.parents
    assert isolated_home not in hostkit.CACHE.parents


def test_missing_npm_is_a_skip_reason_not_a_failure(tmp_path, monkeypatch):
    monkeypatch.setattr(hostkit.shutil, "which", lambda name: None)
    with pytest.raises(hostkit.HostUnavailable, match="npm is not on PATH"):
        hostkit.npm_install("some-package", "1.0.0", cache=tmp_path)


def test_installed_cli_is_the_pinned_version(claude_cli):
    proc = hostkit._version_of(claude_cli)
    assert proc == hostkit.HOST_VERSION, f"installed Claude Code is {proc}, pinned {hostkit.HOST_VERSION}"


def test_cli_round_trip_through_the_scripted_model(host):
    run = host.run("say hi", [
        {"tool_use": [{"name": "Bash", "input": {"command": "echo HARNESS-$((6*7))"}}]},
        {"when": "HARNESS-42", "text": "all good"},
    ], args=["--allowedTools", "Bash(echo *)"])
    assert run.returncode == 0, run.stderr
    assert run.result["result"] == "all good"
    assert [(n, out) for n, _, out, _ in run.tool_results] == [("Bash", "HARNESS-42")]
    assert run.permission_denials == []
    assert "say hi" in run.first_user_text
    assert len(run.model_requests) == 2


def test_a_bash_call_without_permission_is_reported_as_a_denial(host):
    run = host.run("go", [{"tool_use": [{"name": "Bash", "input": {"command": "touch denied-me.txt"}}]}, {"text": "end"}])
    assert run.returncode == 0, run.stderr
    assert [d["tool_name"] for d in run.permission_denials] == ["Bash"]
    assert not (host.project / "denied-me.txt").exists()


def test_unreachable_registry_is_a_skip_reason(tmp_path, monkeypatch):
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    (tmp_path / "cache" / ".msd-no-such-package-1.0.0.tmp-1").mkdir(parents=True)  # a killed install's leftover
    with pytest.raises(hostkit.HostUnavailable, match="cannot reach the registry"):
        hostkit.npm_install("msd-no-such-package", "1.0.0", cache=tmp_path / "cache")
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [".msd-no-such-package.lock"]
