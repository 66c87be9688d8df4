"""msd's guard hook in the other agent CLIs that run hooks before a tool call: what the copilot, qwen
and kimi installs write (msd_core/runtimes/copilot.py, qwen_settings.py, kimi_config.py) with the
install guarantees (the user's own hooks and bytes kept, a manifest record, uninstall giving the
files back byte for byte), and the adapters (msd_core/hooks/copilot.py, qwen.py, kimi.py) answering the client's payload with msd's one
guard decision in the client's answer. The real CLIs: tests/runtimes/test_client_guards_cli.py."""

from __future__ import annotations

import hashlib
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

RUNNER = Path(sys.executable).parent / "msd_run"
USER_QWEN = ('{\n  // my settings: keep this comment\n  "hooks": {"PreToolUse": [\n'
             '    {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]},\n  ]},\n'
             '  "model": {"name": "x"},\n}\n')


def _tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and ".git/" not in str(p.relative_to(root)) + "/"}


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project


def _hook(event: str, payload: dict, cwd: Path) -> str:
    proc = subprocess.run([str(RUNNER), "hook", event], input=json.dumps(payload), capture_output=True, text=True,
                          cwd=cwd, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


# ------------------------------------------------------------------ Copilot CLI: an owned hook file


def test_copilot_local_install_adds_its_own_hook_file_and_uninstall_gives_the_tree_back(tmp_path):
    project = _project(tmp_path)
    mine = project / ".github/hooks/mine.json"
    mine.parent.mkdir(parents=True)
    mine.write_text('{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "echo mine"}]}}\n')
    before = _tree(project)
    t = resolve_target("local", project_dir=project, runtime="copilot")
    install(t, profile="core")
    hooks = json.loads((t.config / "hooks/msd-guard.json").read_text())
    assert hooks == {"version": 1, "hooks": {"preToolUse": [
        {"type": "command", "bash": "msd_run hook copilot-pre-tool-use --root .github/msd-core", "timeoutSec": 30}]}}
    assert "hooks/msd-guard.json" in load_manifest(t.config).files
    assert mine.read_text().endswith('"echo mine"}]}}\n')
    uninstall(t)
    assert _tree(project) == before


def test_copilot_global_hook_names_this_msd_run_and_the_absolute_root(tmp_path):
    t = resolve_target("global", project_dir=tmp_path, runtime="copilot")
    install(t, profile="core")
    bash = json.loads((t.config / "hooks/msd-guard.json").read_text())["hooks"]["preToolUse"][0]["bash"]
    assert bash == f"{RUNNER} hook copilot-pre-tool-use --root {t.config / 'msd-core'}"


def test_copilot_hook_refuses_a_secret_read_in_copilots_answer(tmp_path):
    project = _project(tmp_path)
    (project / ".env").write_text("API_KEY=x\n")
    base = {"sessionId": "s", "timestamp": 1, "cwd": str(project), "toolName": "bash"}
    for args in ({"command": "cat .env", "description": "d"}, json.dumps({"command": "cat .env"})):  # object (1.0.102), or text
        answer = json.loads(_hook("copilot-pre-tool-use", {**base, "toolArgs": args}, project))
        assert answer["permissionDecision"] == "deny" and set(answer) == {"permissionDecision", "permissionDecisionReason"}
        assert answer["permissionDecisionReason"].startswith("msd guard: this command is refused: it would print .env")
    viewed = json.loads(_hook("copilot-pre-tool-use", {**base, "toolName": "view", "toolArgs": {"path": str(project / ".env")}}, project))
    assert viewed["permissionDecision"] == "deny" and "reading" in viewed["permissionDecisionReason"]
    assert _hook("copilot-pre-tool-use", {**base, "toolArgs": {"command": "ls"}}, project) == ""
    assert _hook("copilot-pre-tool-use", {**base, "toolName": "glob", "toolArgs": {"pattern": ".env"}}, project) == ""
    assert _hook("copilot-pre-tool-use", {**base, "toolArgs": "not json"}, project) == ""


# ------------------------------------------------------------------ Qwen Code: one group in settings.json


def _qwen(tmp_path, scope="local"):
    project = _project(tmp_path)
    return project, resolve_target(scope, project_dir=project, runtime="qwen")


GROUP_CASES = {  # runtime: (its settings file, the user's text, its event, msd's group in a local install)
    "qwen": ("settings.json", USER_QWEN, "PreToolUse", {"matcher": "^(run_shell_command|read_file|write_file|edit)$", "hooks": [
        {"type": "command", "command": "msd_run hook qwen-pre-tool-use --root .qwen/msd-core", "timeout": 30}]}),
    "gemini": ("settings.json", USER_QWEN.replace("PreToolUse", "BeforeTool"), "BeforeTool", {
        "matcher": "^(run_shell_command|read_file|write_file|replace)$", "hooks": [
            {"type": "command", "command": "msd_run hook gemini-pre-tool-use --root .gemini/msd-core", "timeout": 30000}]}),
}


@pytest.mark.parametrize("runtime", sorted(GROUP_CASES))
def test_a_hook_group_is_added_with_every_user_byte_kept_and_uninstall_restores_them(runtime, tmp_path):
    name, user, event, ours = GROUP_CASES[runtime]
    project = _project(tmp_path)
    t = resolve_target("local", project_dir=project, runtime=runtime)
    t.config.mkdir(parents=True)
    settings = t.config / name
    settings.write_text(user)
    before = _tree(project)
    install(t, profile="core")
    after = settings.read_text()
    cut = user.index('"echo mine"}]},\n') + len('"echo mine"}]},\n')
    assert after.startswith(user[:cut]) and after.endswith(user[cut:])  # only msd's group inserted
    assert loads(after)["hooks"][event] == [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}, ours]
    install(t, profile="core")  # again: nothing to add
    assert len(loads(settings.read_text())["hooks"][event]) == 2
    uninstall(t)
    assert _tree(project) == before


def test_qwen_uninstall_after_user_edits_takes_out_only_msds_group(tmp_path):
    project, t = _qwen(tmp_path)
    install(t, profile="core")
    settings = t.config / "settings.json"
    obj = loads(settings.read_text())
    obj["general"] = {"vimMode": True}
    obj["hooks"]["PreToolUse"].insert(0, {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]})
    settings.write_text(json.dumps(obj))
    uninstall(t)
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}
    assert loads(settings.read_text()) == {"general": {"vimMode": True}, "hooks": {"PreToolUse": [mine]}}


def test_qwen_settings_msd_created_are_removed_and_ones_it_cannot_edit_are_left(tmp_path):
    project, t = _qwen(tmp_path)
    install(t, profile="core")
    assert (t.config / "settings.json").exists()
    uninstall(t)
    assert not (t.config / "settings.json").exists()
    project2, t2 = _qwen(tmp_path / "b")
    t2.config.mkdir(parents=True)
    odd = '{"hooks": "off"}\n'
    (t2.config / "settings.json").write_text(odd)
    result = install(t2, profile="core")
    assert (t2.config / "settings.json").read_text() == odd
    assert any("'hooks'" in w and "left untouched" in w for w in result.warnings), result.warnings


@pytest.mark.parametrize("runtime, name, event, hook_event", [("qwen", "settings.json", "PreToolUse", "qwen-pre-tool-use"),
                                                         ("gemini", "settings.json", "BeforeTool", "gemini-pre-tool-use"),
                                                         ("codex", "hooks.json", "PreToolUse", "pre-tool-use")])
def test_a_global_hook_group_names_this_msd_run_and_the_absolute_root(runtime, name, event, hook_event, tmp_path):
    t = resolve_target("global", project_dir=_project(tmp_path), runtime=runtime)
    install(t, profile="core")
    hook = loads((t.config / name).read_text())["hooks"][event][0]["hooks"][0]
    assert hook["command"] == f"{RUNNER} hook {hook_event} --root {t.config / 'msd-core'}"
    uninstall(t)
    assert not (t.config / name).exists()  # msd's own file until uninstall


@pytest.mark.parametrize("tool, args", [("run_shell_command", {"command": "cat .env"}), ("read_file", {"file_path": ".env"})])
def test_qwen_hook_refuses_a_secret_read_in_claudes_answer(tool, args, tmp_path):
    project = _project(tmp_path)
    (project / ".env").write_text("API_KEY=x\n")
    payload = {"session_id": "s", "cwd": str(project), "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": args}
    decided = json.loads(_hook("qwen-pre-tool-use", payload, project))["hookSpecificOutput"]
    assert decided["permissionDecision"] == "deny" and decided["permissionDecisionReason"].startswith("msd guard: ")
    assert _hook("qwen-pre-tool-use", {**payload, "tool_input": {"command": "ls", "file_path": "a.txt"}}, project) == ""
    assert _hook("qwen-pre-tool-use", {**payload, "tool_name": "Bash"}, project) == ""  # Claude's names are not Qwen's ids


# ------------------------------------------------------------------ Kimi Code: one [[hooks]] table in the user's config.toml

USER_KIMI = ('# my Kimi config: keep this comment\ndefault_model = "mine"\n\n[[hooks]]\nevent = "PreToolUse"\n'
             'matcher = "Bash"\ncommand = "echo mine"\n\n[providers.mine]\ntype = "openai"\napi_key = "sk-keep"')  # no final newline


def _kimi(tmp_path, scope="global"):
    project = _project(tmp_path)
    return project, resolve_target(scope, project_dir=project, runtime="kimi")


def test_kimi_table_is_appended_after_every_user_byte_and_uninstall_gives_the_file_back(tmp_path):
    from msd_core.files.tomlread import loads as toml

    _project_dir, t = _kimi(tmp_path)
    t.config.mkdir(parents=True)
    config = t.config / "config.toml"
    config.write_text(USER_KIMI)
    install(t, profile="core")
    after = config.read_text()
    assert after.startswith(USER_KIMI + "\n\n")  # the user's bytes, then msd's table
    assert "sk-keep" not in "".join(p.read_text(errors="ignore") for p in (t.config / "msd-core").rglob("*") if p.is_file())
    hooks = toml(after)["hooks"]
    assert hooks == [{"event": "PreToolUse", "matcher": "Bash", "command": "echo mine"},
                     {"event": "PreToolUse", "matcher": "^(Bash|Read|Write|Edit)$", "timeout": 30,
                      "command": f"{RUNNER} hook kimi-pre-tool-use --root {t.config / 'msd-core'}"}]
    install(t, profile="core")  # again: nothing to add
    assert config.read_text() == after
    uninstall(t)
    assert config.read_text() == USER_KIMI


def test_kimi_uninstall_after_user_edits_takes_out_only_msds_table(tmp_path):
    _project_dir, t = _kimi(tmp_path)
    install(t, profile="core")
    config = t.config / "config.toml"
    ours = config.read_text()
    config.write_text('default_model = "mine"\n\n' + ours + '\n[[hooks]]\nevent = "Stop"\ncommand = "echo later"\n')
    uninstall(t)
    assert config.read_text() == 'default_model = "mine"\n\n\n[[hooks]]\nevent = "Stop"\ncommand = "echo later"\n'


def test_kimi_reinstall_from_another_msd_replaces_its_table_and_uninstall_still_gives_the_file_back(tmp_path, monkeypatch):
    from msd_core.files.tomlread import loads as toml
    from msd_core.runtimes import kimi_config

    _project_dir, t = _kimi(tmp_path)
    t.config.mkdir(parents=True)
    config = t.config / "config.toml"
    config.write_text(USER_KIMI)
    with monkeypatch.context() as m:
        m.setattr(kimi_config, "guard_command", lambda event, cfg, local: f"/old/venv/bin/msd_run hook {event} --root R")
        install(t, profile="core")
    assert "/old/venv/bin/msd_run" in config.read_text()
    install(t, profile="core")  # this msd, another msd_run: msd's one table now names it
    ours = [h for h in toml(config.read_text())["hooks"] if kimi_config.is_ours(h)]
    assert [h["command"].split()[0] for h in ours] == [str(RUNNER)]
    uninstall(t)
    assert config.read_text() == USER_KIMI


def test_kimi_config_msd_created_is_removed_and_one_it_cannot_extend_is_left(tmp_path):
    _project_dir, t = _kimi(tmp_path)
    install(t, profile="core")
    assert (t.config / "config.toml").exists()
    uninstall(t)
    assert not (t.config / "config.toml").exists()
    deep = "x = " + "[" * 50_000 + "]" * 50_000 + "\n"  # past the one bounded reader's depth: never handed to tomllib
    for odd in ('hooks = []\n', 'default_model = \n', deep):  # an inline array msd's [[hooks]] would clash with; no TOML
        t.config.mkdir(parents=True, exist_ok=True)
        (t.config / "config.toml").write_text(odd)
        result = install(t, profile="core")
        assert (t.config / "config.toml").read_text() == odd
        assert any("left untouched" in w and "config.toml" in w for w in result.warnings), result.warnings
        uninstall(t)
        assert (t.config / "config.toml").read_text() == odd


def test_kimi_local_install_writes_no_hook_kimi_would_not_read(tmp_path):
    project, t = _kimi(tmp_path, "local")
    result = install(t, profile="core")
    assert not (t.config / "config.toml").exists()
    assert "user config.toml" in result.data["settings"]["action"] and "--global" in result.data["settings"]["action"]


@pytest.mark.parametrize("tool, args", [("Bash", {"command": "cat .env"}), ("Read", {"path": ".env"})])
def test_kimi_hook_refuses_a_secret_read_in_claudes_answer(tool, args, tmp_path):
    project = _project(tmp_path)
    (project / ".env").write_text("API_KEY=x\n")
    payload = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project), "client_type": "cli",
               "tool_name": tool, "tool_input": args, "tool_call_id": "c1"}
    decided = json.loads(_hook("kimi-pre-tool-use", payload, project))["hookSpecificOutput"]
    assert decided["permissionDecision"] == "deny" and decided["permissionDecisionReason"].startswith("msd guard: ")
    assert _hook("kimi-pre-tool-use", {**payload, "tool_input": {"command": "ls", "path": "a.txt"}}, project) == ""
    assert _hook("kimi-pre-tool-use", {**payload, "tool_name": "run_shell_command"}, project) == ""  # Qwen's ids are not Kimi's


def test_kimi_bash_is_judged_in_the_folder_it_names(tmp_path, monkeypatch):
    from msd_core.hooks import kimi, pre_tool_use

    seen = []
    monkeypatch.setattr(pre_tool_use, "handle", lambda payload, ctx: seen.append(payload["cwd"]))
    for ran_in in ("sub", str(tmp_path / "elsewhere"), None):
        args = {"command": "ls", **({"cwd": ran_in} if ran_in else {})}
        kimi.handle({"cwd": str(tmp_path), "tool_name": "Bash", "tool_input": args}, None)
    assert seen == [str(tmp_path / "sub"), str(tmp_path / "elsewhere"), str(tmp_path)]


@pytest.mark.parametrize("event, payload", [
    ("copilot-pre-tool-use", {"toolName": "bash", "toolArgs": {"command": "ls"}}),
    ("qwen-pre-tool-use", {"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
    ("kimi-pre-tool-use", {"tool_name": "Bash", "tool_input": {"command": "ls", "cwd": "sub"}}),
])
def test_a_clients_guard_call_takes_the_fast_path(event, payload, tmp_path):
    """Every client's guard event starts as lean as Claude Code's (tests/hooks/test_hooks.py FAST):
    msd_run's process entry answers it without argparse, the dispatcher or pathlib."""
    from tests.hooks.test_hooks import FAST

    project = _project(tmp_path)
    out = tmp_path / "modules.json"
    r = subprocess.run([sys.executable, "-c", FAST, str(out), "hook", event, "--root", ".x/msd-core"],
                       input=json.dumps({"cwd": str(project), "session_id": "S", **payload}), cwd=project,
                       capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert not {"argparse", "pathlib", "msd_core.run.dispatch"} & set(json.loads(out.read_text()))


HELD_UP = """
import sys, time
from msd_core.hooks import guard_server, pre_tool_use
guard_server.CALL_DEADLINE = 1
pre_tool_use.handle = lambda payload, ctx: time.sleep(60)  # a check held up on something
from msd_core.run.cmd_hook import answer
sys.exit(answer(sys.argv[1], None))
"""


@pytest.mark.parametrize("event, payload", [
    ("copilot-pre-tool-use", {"cwd": "/", "toolName": "bash", "toolArgs": {"command": "cat .env"}}),
    ("qwen-pre-tool-use", {"cwd": "/", "tool_name": "run_shell_command", "tool_input": {"command": "cat .env"}}),
    ("kimi-pre-tool-use", {"cwd": "/", "tool_name": "Bash", "tool_input": {"command": "cat .env"}}),
])
def test_a_check_held_up_past_the_deadline_is_refused_in_the_clients_answer(event, payload):
    """Qwen Code lets a call whose hook timed out go ahead (a non-blocking error, its hooks.md), and so
    does Kimi Code (its runner's timeout answers "allow"): the guard refuses it itself, in the form the
    client reads."""
    r = subprocess.run([sys.executable, "-c", HELD_UP, event], input=json.dumps(payload), capture_output=True, text=True,
                       timeout=30, cwd=str(Path(__file__).resolve().parents[2]))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    decided = out if event.startswith("copilot") else out["hookSpecificOutput"]
    assert decided["permissionDecision"] == "deny" and "did not finish within 1 seconds" in decided["permissionDecisionReason"]
