"""msd's guard hook in Gemini CLI: the `hooks.BeforeTool` group the gemini install adds to settings.json
(msd_core/runtimes/gemini_settings.py, hook_settings.py) with the install guarantees (the user's own
hooks and bytes kept, uninstall giving the files back byte for byte), and the adapter
(msd_core/hooks/gemini.py) answering Gemini's payload with msd's one guard decision in Gemini's answer
(`{"decision": "deny", "reason": ...}`). The real CLI: tests/runtimes/test_client_guards_cli.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.files.jsonedit import loads
from msd_core.install.installer import install
from msd_core.install.uninstaller import uninstall
from msd_core.ownership.manifest import load_manifest
from msd_core.paths import resolve_target
from tests.runtimes.test_client_guard_hooks import HELD_UP, _hook, _project, _tree

OURS = {"matcher": "^(run_shell_command|read_file|write_file|replace)$", "hooks": [
    {"type": "command", "command": "msd_run hook gemini-pre-tool-use --root .gemini/msd-core", "timeout": 30000}]}


def _gemini(tmp_path, scope="local"):
    project = _project(tmp_path)
    return project, resolve_target(scope, project_dir=project, runtime="gemini")


def test_gemini_settings_msd_created_are_removed_and_edited_ones_keep_the_users_part(tmp_path):
    project, t = _gemini(tmp_path)
    before = _tree(project)
    install(t, profile="core")
    settings = t.config / "settings.json"
    assert loads(settings.read_text()) == {"hooks": {"BeforeTool": [OURS]}}
    assert load_manifest(t.config).settings_permission == "hooks.BeforeTool: msd_run hook gemini-pre-tool-use"
    uninstall(t)
    assert _tree(project) == before
    install(t, profile="core")
    obj = loads(settings.read_text())
    obj["general"] = {"vimMode": True}
    settings.write_text(json.dumps(obj))
    uninstall(t)
    assert loads(settings.read_text()) == {"general": {"vimMode": True}}


@pytest.mark.parametrize("tool, args", [("run_shell_command", {"command": "cat .env"}), ("read_file", {"file_path": ".env"})])
def test_gemini_hook_refuses_a_secret_read_in_geminis_answer(tool, args, tmp_path):
    project = _project(tmp_path)
    (project / ".env").write_text("API_KEY=x\n")
    payload = {"session_id": "s", "cwd": str(project), "hook_event_name": "BeforeTool", "tool_name": tool, "tool_input": args,
               "transcript_path": "", "timestamp": "2026-12-07T09:00:00Z"}
    answer = json.loads(_hook("gemini-pre-tool-use", payload, project))
    assert set(answer) == {"decision", "reason"} and answer["decision"] == "deny", answer
    assert answer["reason"].startswith("msd guard: ")
    assert _hook("gemini-pre-tool-use", {**payload, "tool_input": {"command": "ls", "file_path": "a.txt"}}, project) == ""
    assert _hook("gemini-pre-tool-use", {**payload, "tool_name": "Bash"}, project) == ""  # Claude's names are not Gemini's


def test_a_check_held_up_past_the_deadline_is_refused_in_geminis_answer():
    """Gemini CLI lets a call whose hook failed or timed out go ahead (a warning, its hooks reference):
    the guard refuses it itself, in the form Gemini reads."""
    payload = {"cwd": "/", "tool_name": "run_shell_command", "tool_input": {"command": "cat .env"}}
    r = subprocess.run([sys.executable, "-c", HELD_UP, "gemini-pre-tool-use"], input=json.dumps(payload), capture_output=True,
                       text=True, timeout=30, cwd=str(Path(__file__).resolve().parents[2]))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["decision"] == "deny" and "did not finish within 1 seconds" in out["reason"], out


def test_every_clients_guard_event_stays_on_the_lean_hot_path(tmp_path):
    """The host starts one process per tool call: each guard event (cmd_hook.GUARD_EVENTS, Gemini's
    included) answers an unguarded call without loading pathlib (run/entry.py's hook fast path)."""
    from msd_core.run.cmd_hook import GUARD_EVENTS

    probe = ("import sys\nfrom msd_core.run.entry import _hook\n_hook(['hook', sys.argv[1]])\n"
             "print('pathlib' in sys.modules, file=sys.stderr)")
    payload = json.dumps({"cwd": str(tmp_path), "tool_name": "run_shell_command", "tool_input": {"command": "ls"},
                          "toolName": "bash", "toolArgs": {"command": "ls"}})
    for event in GUARD_EVENTS:
        r = subprocess.run([sys.executable, "-c", probe, event], input=payload, capture_output=True, text=True,
                           timeout=30, cwd=tmp_path)
        assert r.stderr.strip().splitlines()[-1] == "False", (event, r.stderr)
