"""The hooks and guards never wait on a file they do not own, and decide with the defaults (every
guard on) when one cannot be read: a FIFO planted at STATE.md, at the hook payload's
`transcript_path`, at `.planning/config.json` or at the guard's memory files is refused at once
(msd_core.files.safe_read). The guard server answers each call within its deadline, and nothing
one call meets stalls the next. The guards' own settings have one reading (46.1): a write of
config.json that changes them is refused in every spelling, through both transports."""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path

import pytest

from tests.hooks.conftest import STATE, run_hook
from tests.kit.hostile import finishes

WIPE = "# Shop\n\nshort now\n"  # a Write of STATE.md the planning guard refuses (drops its sections)


def _fifo(path: Path) -> Path:
    if path.exists():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _wipe(proj: Path) -> dict:
    return {"file_path": str(proj / ".planning" / "STATE.md"), "content": WIPE}


# --- the guards: a FIFO where they read ---------------------------------------------------------

@pytest.mark.parametrize("rel", ["config.json", ".msd/guard/baselines.json", ".msd/guard/allowed.json"])
def test_a_fifo_where_the_guard_reads_is_refused_at_once_and_the_guards_stay_on(planning_project, decide, rel):
    fifo = _fifo(planning_project / ".planning" / rel)
    reason = finishes(lambda: decide(planning_project, "Write", _wipe(planning_project)), fifo)
    assert reason and "drops STATE.md's" in reason
    assert (planning_project / ".planning" / "STATE.md").read_text() == STATE


def test_a_fifo_at_config_json_leaves_the_secret_guard_on(planning_project, decide):
    fifo = _fifo(planning_project / ".planning" / "config.json")
    (planning_project / ".env").write_text("TOKEN=x\n")
    reason = finishes(lambda: decide(planning_project, "Read", {"file_path": str(planning_project / ".env")}), fifo)
    assert reason and "reading" in reason


# --- the guard server: each call on its own, within a deadline ----------------------------------

def _call(n: int, proj: Path, tool_input: dict, tool: str = "Write") -> bytes:
    args = {"tool_name": tool, "tool_input": json.dumps(tool_input), "cwd": str(proj), "session_id": "S1", "agent_id": ""}
    return json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "check", "arguments": args}}).encode() + b"\n"


def _serve(lines: list[bytes]) -> tuple[list[dict], float]:
    from msd_core.hooks.guard_server import serve

    out = io.BytesIO()
    started = time.monotonic()
    serve(None, stdin=io.BytesIO(b"".join(lines)), stdout=out, warm_up=None)
    return [json.loads(x) for x in out.getvalue().splitlines()], time.monotonic() - started


def _reason(reply: dict) -> str | None:
    content = reply["result"]["content"]
    return json.loads(content[0]["text"])["hookSpecificOutput"]["permissionDecisionReason"] if content else None


def test_the_guard_server_meets_a_fifo_in_call_one_and_answers_call_two_promptly(planning_project):
    fifo = _fifo(planning_project / ".planning" / "config.json")
    other = planning_project / ".planning" / "PROJECT.md"
    lines = [_call(1, planning_project, _wipe(planning_project)),
             _call(2, planning_project, {"file_path": str(other), "content": "# Shop\n\nA small shop, now with gifts.\n"})]
    replies, took = finishes(lambda: _serve(lines), fifo, seconds=8)
    assert [r["id"] for r in replies] == [1, 2] and took < 5
    assert "drops STATE.md's" in _reason(replies[0])  # the defaults: the planning guard is on
    assert _reason(replies[1]) is None


def test_a_call_held_up_past_the_deadline_is_refused_and_the_next_is_answered(planning_project, monkeypatch):
    import threading

    from msd_core.hooks import guard_server

    release = threading.Event()
    real = guard_server.check

    def check(arguments, install_root):
        if json.loads(arguments["tool_input"])["file_path"].endswith("STATE.md"):
            release.wait(30)  # a check stuck on something: the server must not wait with it
        return real(arguments, install_root)

    monkeypatch.setattr(guard_server, "check", check)
    monkeypatch.setattr(guard_server, "CALL_DEADLINE", 0.5)
    other = planning_project / ".planning" / "PROJECT.md"
    try:
        replies, took = _serve([_call(1, planning_project, _wipe(planning_project)),
                                _call(2, planning_project, {"file_path": str(other), "content": "# Shop\n"})])
    finally:
        release.set()
    assert took < 3
    assert "did not finish within 0.5 seconds" in _reason(replies[0])  # refused, not let through unchecked
    assert "isError" not in replies[1]["result"] and _reason(replies[1]) is None  # a small document: goes ahead


# --- the status line and the post-tool-use hook -------------------------------------------------

def test_a_fifo_at_state_md_never_holds_up_the_status_line(tmp_path):
    from msd_core.hooks import statusline

    root = tmp_path / "p"
    fifo = _fifo(root / ".planning" / "STATE.md")
    assert finishes(lambda: statusline.line({"cwd": str(root)}), fifo) == "msd"


@pytest.mark.parametrize("share", [float("nan"), -40, float("inf"), 250, "12", True])
def test_a_context_share_that_is_not_a_percentage_is_not_shown(tmp_path, share):
    from msd_core.hooks import statusline

    assert statusline.line({"cwd": str(tmp_path), "context_window": {"used_percentage": share}}) == "msd"
    assert statusline.line({"cwd": str(tmp_path), "context_window": {"used_percentage": 41.6}}) == "msd · ctx 42%"


def test_a_fifo_at_the_payloads_transcript_path_never_holds_up_the_post_tool_use_hook(planning_project):
    from msd_core.hooks import budget

    cfg = planning_project / ".planning" / "config.json"
    cfg.write_text(json.dumps({"usage": {"context_warn_percent": 50}}))
    fifo = _fifo(planning_project / "transcript.jsonl")
    payload = {"hook_event_name": "PostToolUse", "cwd": str(planning_project), "session_id": "S",
               "transcript_path": str(fifo), "tool_name": "Bash"}
    assert finishes(lambda: run_hook(payload, "post-tool-use"), fifo) == (None, 0)
    assert finishes(lambda: budget.latest_context(str(fifo)), fifo) is None


@pytest.mark.parametrize("bad", ["NaN", "-Infinity", "1e400", "-400000"])
def test_a_transcripts_invalid_count_gives_no_context_figure(tmp_path, bad):
    from msd_core.hooks import budget

    line = ('{"type": "assistant", "message": {"model": "m", "usage": {"input_tokens": BAD, '
            '"cache_read_input_tokens": 10, "output_tokens": 1}}}').replace("BAD", bad)
    good = '{"type": "assistant", "message": {"model": "m", "usage": {"input_tokens": 5, "output_tokens": 1}}}'
    path = tmp_path / "t.jsonl"
    path.write_text(good + "\n" + line + "\n")
    assert budget.latest_context(str(path)) == (5, "m")  # the last request with valid counts


# --- 46.1: one reading of the guards settings ----------------------------------------------------

OFF = '{"guards": {"planning_write": false, "injection_screen": false}}'
SPELLINGS = {
    "a BOM": "\ufeff" + OFF,
    "an escaped key": OFF.replace('"guards"', '"\\u0067uards"'),
    "escaped values": OFF.replace('"planning_write"', '"planning\\u005fwrite"'),
    "a duplicate key": '{"guards": {}, "guards": {"planning_write": false}}',
    "spaces and a BOM": "\ufeff \n\t" + OFF + "\n\n",
    "a duplicate inner key": '{"mode": "yolo", "guards": {"planning_write": false, "planning_write": false}}',
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
@pytest.mark.parametrize("existing", [True, False], ids=["no-guards-block", "no-config-json"])
def test_a_write_that_turns_the_guards_off_is_refused_in_every_spelling(planning_project, decide, spelling, existing):
    cfg = planning_project / ".planning" / "config.json"
    if not existing:
        cfg.unlink()
    reason = decide(planning_project, "Write", {"file_path": str(cfg), "content": SPELLINGS[spelling]})
    assert reason and "guards` settings, which are the user's" in reason


def test_a_config_json_the_guards_cannot_parse_sets_no_guards_for_the_reader_either(planning_project, decide):
    """A text the one reading does not take (comments) changes no guard setting: the write check lets it
    through, and afterwards every guard is still on (the reader takes it the same way)."""
    cfg = planning_project / ".planning" / "config.json"
    text = "// settings\n" + OFF
    assert decide(planning_project, "Write", {"file_path": str(cfg), "content": text}) is None
    cfg.write_text(text)  # the host writes it
    assert "drops STATE.md's" in decide(planning_project, "Write", _wipe(planning_project))
    assert "guards` settings" in decide(planning_project, "Edit",
                                        {"file_path": str(cfg), "old_string": "// settings\n", "new_string": ""})


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_each_spelling_is_read_by_the_guards_as_the_write_check_reads_it(planning_project, spelling):
    from msd_core.hooks import guard_settings

    cfg = planning_project / ".planning" / "config.json"
    cfg.write_bytes(SPELLINGS[spelling].encode("utf-8"))
    read = guard_settings.load(str(planning_project))
    assert read["guards.planning_write"] is False  # what the user wrote there (a person may)
    assert guard_settings.guards_block(SPELLINGS[spelling]) == guard_settings._project_guards(str(planning_project))


HELD_UP = """
import sys, time
from msd_core.hooks import guard_server, pre_tool_use
guard_server.CALL_DEADLINE = 1
pre_tool_use.handle = lambda payload, ctx: time.sleep(60)  # a check held up on something
from msd_core.run.cmd_hook import answer
sys.exit(answer("pre-tool-use", None))
"""


def test_the_command_hook_refuses_a_call_whose_check_is_held_up_past_the_deadline(planning_project):
    """Without it the host's 30 s limit ends the hook and the call goes ahead unchecked."""
    import subprocess
    import sys

    payload = {"hook_event_name": "PreToolUse", "cwd": str(planning_project), "tool_name": "Write",
               "tool_input": _wipe(planning_project)}
    started = time.monotonic()
    r = subprocess.run([sys.executable, "-c", HELD_UP], input=json.dumps(payload), capture_output=True, text=True,
                       timeout=30, cwd=str(Path(__file__).resolve().parents[2]))
    assert time.monotonic() - started < 10
    assert r.returncode == 0, r.stderr
    spec = json.loads(r.stdout)["hookSpecificOutput"]
    assert spec["permissionDecision"] == "deny" and "did not finish within 1 seconds" in spec["permissionDecisionReason"]
