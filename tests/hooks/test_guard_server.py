"""msd's guard server (msd_core/hooks/guard_server.py): the MCP stdio protocol a global install's
mcp_tool guard rows reach it by, its answers next to the command hook's, bad input, and its end.
The guards' own decisions are tested through it in every tests/hooks guard test (`decide`)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from msd_core.hooks import guard_server
from msd_core.install.lean_start import LEAN_FLAGS, lean_start
from msd_core.lean.guard_names import GUARD_TOOL
from tests.hooks.conftest import STATE, ask_server, run_hook


def converse(lines: list, root=None) -> list[dict]:
    """Messages in (dicts as JSON lines, bytes as they are), the server's replies out, in-process."""
    data = b"".join(m if isinstance(m, bytes) else json.dumps(m).encode() + b"\n" for m in lines)
    out = io.BytesIO()
    assert guard_server.serve(root, io.BytesIO(data), out) == 0  # end of input: exit 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def req(msg_id, method, params=None) -> dict:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, **({"params": params} if params is not None else {})}


def call(msg_id, arguments, name=GUARD_TOOL) -> dict:
    return req(msg_id, "tools/call", {"name": name, "arguments": arguments})


def wipe_state(project) -> dict:
    return {"tool_name": "Write", "tool_input": json.dumps({"file_path": str(project / ".planning" / "STATE.md"), "content": "x\n"}),
            "cwd": str(project), "session_id": "", "agent_id": ""}


def test_the_handshake_the_host_makes(planning_project):
    replies = converse([req(0, "server/discover"), req(1, "initialize", {"protocolVersion": "2025-03-26", "capabilities": {}}),
                        {"jsonrpc": "2.0", "method": "notifications/initialized"}, req(2, "tools/list"), req(3, "ping")])
    assert [r["id"] for r in replies] == [0, 1, 2, 3]  # the notification gets no reply
    assert replies[0]["error"]["code"] == -32601
    init = replies[1]["result"]
    assert init["protocolVersion"] == "2025-03-26" and init["capabilities"] == {"tools": {}}
    assert init["serverInfo"]["name"] == guard_server.SERVER_INFO_NAME
    (tool,) = replies[2]["result"]["tools"]
    assert tool["name"] == GUARD_TOOL and set(tool["inputSchema"]["required"]) == {"tool_name", "tool_input"}
    assert replies[3]["result"] == {}


def test_a_refusal_is_the_command_hooks_own_answer(planning_project):
    (reply,) = converse([call(5, wipe_state(planning_project))])
    (content,) = reply["result"]["content"]
    out, _code = run_hook({"hook_event_name": "PreToolUse", "cwd": str(planning_project), "tool_name": "Write",
                           "tool_input": {"file_path": str(planning_project / ".planning" / "STATE.md"), "content": "x\n"}})
    assert json.loads(content["text"]) == json.loads(out)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert (planning_project / ".planning" / "STATE.md").read_text() == STATE


def test_an_allowed_call_is_an_empty_answer(planning_project):
    args = {"tool_name": "Write", "tool_input": json.dumps({"file_path": str(planning_project / ".planning" / "NOTES.md"),
                                                            "content": "# Notes\n"}), "cwd": str(planning_project)}
    (reply,) = converse([call(1, args)])
    assert reply["result"] == {"content": []}


def test_fields_the_host_fills_with_nothing_are_no_verdict(planning_project):
    """`${field}` of a field the call has not is "": no tool input at all is no verdict, not a crash."""
    (reply,) = converse([call(1, {"tool_name": "Write", "tool_input": "", "cwd": "", "session_id": "", "agent_id": ""})])
    assert reply["result"] == {"content": []}


def test_a_broken_guard_is_an_error_result_and_the_server_answers_on(planning_project, monkeypatch):
    from msd_core.hooks import pre_tool_use

    def boom(*_a):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(pre_tool_use, "handle", boom)
    replies = converse([call(1, wipe_state(planning_project)), req(2, "ping")])
    assert replies[0]["result"]["isError"] is True and "disk on fire" in replies[0]["result"]["content"][0]["text"]
    assert replies[1]["result"] == {}


def test_bad_messages_get_their_error_and_the_server_reads_on(planning_project):
    replies = converse([b"not json\n", b"\n", b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]\n', b'"a string"\n',
                        {"jsonrpc": "2.0", "id": 9, "result": {}}, req(4, "tools/call", {"name": "other"}),
                        call(5, {"tool_name": "Write", "tool_input": "{not json"}), req(6, "ping")])
    assert replies[0]["error"]["code"] == -32700
    assert replies[1]["error"]["code"] == -32600 and "batch" in replies[1]["error"]["message"]
    assert replies[2]["error"]["code"] == -32600
    assert replies[3]["result"]["isError"] is True and "unknown tool" in replies[3]["result"]["content"][0]["text"]
    assert replies[4]["result"]["isError"] is True  # tool_input that is not JSON: no verdict, said
    assert replies[5] == {"jsonrpc": "2.0", "id": 6, "result": {}}
    assert len(replies) == 6  # the blank line and the stray response got none


def test_an_oversized_line_is_skipped_whole(planning_project, monkeypatch):
    monkeypatch.setattr(guard_server, "MAX_LINE", 64)
    huge = json.dumps(req(1, "ping", {"pad": "x" * 300})).encode() + b"\n"
    replies = converse([huge, req(2, "ping")])
    assert replies[0]["error"]["code"] == -32600 and "longer than 64" in replies[0]["error"]["message"]
    assert replies[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_guards_switched_off_answer_nothing(planning_project, monkeypatch):
    monkeypatch.setenv("MSD_GUARDS", "off")
    assert ask_server({"cwd": str(planning_project), "tool_name": "Write",
                       "tool_input": {"file_path": str(planning_project / ".planning" / "STATE.md"), "content": "x"}}) is None


def test_dumps_is_json():
    value = {"a": [1, 2.5, True, False, None], "é\n\"": "✓ \u2028 \x00", "n": {"": []}}
    assert json.loads(guard_server.dumps(value)) == value
    with pytest.raises(TypeError):
        guard_server.dumps({"x": object()})


def lean(*args: str) -> list[str]:
    return [sys.executable, *LEAN_FLAGS, lean_start(), *args]


def test_the_handshake_imports_neither_json_nor_re():
    """The host waits for its servers' handshake before the session's first request."""
    home = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(guard_server.__file__))))
    program = (f"import io, sys\nsys.path.append({home!r})\nfrom msd_core.hooks import guard_server as g\n"
               "out = io.BytesIO()\ng.serve(None, io.BytesIO(sys.stdin.buffer.read()), out, warm_up=None)\n"
               "print(sorted(m for m in ('json', 're', 'pathlib') if m in sys.modules), out.getvalue().count(b'\"id\":'))\n")
    msgs = "".join(json.dumps(m) + "\n" for m in (req(1, "initialize", {"protocolVersion": "2025-06-18"}),
                                                  {"jsonrpc": "2.0", "method": "notifications/initialized"}, req(2, "tools/list")))
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", program], input=msgs, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[] 2", proc.stdout  # both answered, neither imported them


def test_the_guards_are_imported_once_the_handshake_is_answered():
    """The first guarded call finds them loaded (tools/list answered first: the host is not kept waiting)."""
    home = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(guard_server.__file__))))
    program = (f"import io, sys\nsys.path.append({home!r})\nfrom msd_core.hooks import guard_server as g\n"
               "seen = []\nout = io.BytesIO()\n"
               "g.serve(None, io.BytesIO(sys.stdin.buffer.read()), out, warm_up=lambda: (seen.append(out.getvalue().count(b'tools')), g.warm()))\n"
               "print(seen, all(m in sys.modules for m in g.WARM))\n")
    msgs = "".join(json.dumps(m) + "\n" for m in (req(1, "initialize", {}), req(2, "tools/list"), req(3, "ping")))
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", program], input=msgs, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[2] True", proc.stdout  # once, after the tools/list reply was written ("tools" twice in it)


def start_server(tmp_path) -> subprocess.Popen:
    return subprocess.Popen(lean("hook", "guard-server", "--root", str(tmp_path)), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(tmp_path))


def exchange(proc: subprocess.Popen, message: dict) -> dict:
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def test_the_registered_start_answers_and_ends_with_its_input(planning_project, tmp_path):
    proc = start_server(tmp_path)
    try:
        assert exchange(proc, req(1, "initialize", {}))["result"]["capabilities"] == {"tools": {}}
        deny = exchange(proc, call(2, wipe_state(planning_project)))["result"]["content"][0]["text"]
        assert json.loads(deny)["hookSpecificOutput"]["permissionDecision"] == "deny"
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        assert proc.stderr.read() == b""
    finally:
        proc.kill()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_the_server_leaves_at_once_on_the_hosts_signal(tmp_path, sig):
    """Claude Code ends its servers with SIGINT: no traceback, exit 0, within a second."""
    proc = start_server(tmp_path)
    try:
        assert exchange(proc, req(1, "ping"))["result"] == {}
        t0 = time.monotonic()
        proc.send_signal(sig)
        assert proc.wait(timeout=10) == 0
        assert time.monotonic() - t0 < 1.0
        assert proc.stderr.read() == b""
    finally:
        proc.kill()


def test_the_dispatcher_form_reaches_the_same_server(tmp_path):
    """`msd_run hook guard-server` through argparse (a typo'd or extended form) is the same server."""
    proc = subprocess.run([sys.executable, "-m", "msd_core.run", "hook", "guard-server", "--root", str(tmp_path)],
                          input=json.dumps(req(1, "ping")) + "\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"jsonrpc": "2.0", "id": 1, "result": {}}


def test_one_cap_for_both_transports_and_a_document_past_it_is_refused_by_both(planning_project, decide):
    """A 4.3 MB Write into `.planning/` (the command hook once read 4 MB of stdin and let it through,
    the server read 8 MB and judged it): both read the same MAX_MESSAGE, and both refuse a document
    left over MAX_DOCUMENT; the server's own line reader takes the whole call."""
    from msd_core.hooks import payload
    from msd_core.lean.guard_limits import MAX_DOCUMENT, MAX_MESSAGE

    assert payload.MAX_PAYLOAD == guard_server.MAX_LINE == MAX_MESSAGE
    rel = planning_project / ".planning" / "research" / "DUMP.md"
    big = "# Dump\n" + "".join(f"- row {i} of the export\n" for i in range(170_000))
    assert MAX_DOCUMENT < len(big.encode()) < 4_600_000
    for target in (rel, planning_project / ".planning" / "STATE.md"):
        reason = decide(planning_project, "Write", {"file_path": str(target), "content": big})
        assert reason and "over the 4 MiB a planning document may hold" in reason and "link to it" in reason
    line = call(1, {**wipe_state(planning_project), "tool_input": json.dumps({"file_path": str(rel), "content": big})})
    (reply,) = converse([line])
    assert "over the 4 MiB" in reply["result"]["content"][0]["text"]
    assert decide(planning_project, "Write", {"file_path": str(planning_project / "dump.md"), "content": big}) is None
