"""`msd status` on the guard hook another agent CLI runs (msd_core/install/client_hooks_status.py):
real installs into the test's HOME for Copilot CLI, Qwen Code, Gemini CLI, Codex CLI and Kimi Code,
then the client's file as a user or the client could leave it: entry gone, matcher narrowed, runner
moved, file corrupt. Each is one problem line naming the fix, in --json and in the human output;
status writes nothing and keeps its exit code (0, as for Claude Code's hooks)."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from msd_core.files.jsonedit import loads
from msd_core.hooks.qwen import TOOLS
from msd_core.install.health import status
from msd_core.install.installer import install
from msd_core.paths import resolve_target

RUNNER = Path(sys.executable).parent / "msd_run"
FILE = {"qwen": "settings.json", "gemini": "settings.json", "codex": "hooks.json", "copilot": "hooks/msd-guard.json",
        "opencode": "plugins/msd-guard.js",
        "kimi": "config.toml"}
EVENT = {"qwen": "PreToolUse", "gemini": "BeforeTool", "codex": "PreToolUse", "copilot": "preToolUse", "kimi": "PreToolUse",
         "opencode": "tool.execute.before"}
# the file as a client or a user could rewrite it: their settings kept, msd's entry gone
WITHOUT_OURS = {"qwen": '{"model": {"name": "x"}}\n', "gemini": '{"hooks": {"BeforeTool": []}}\n', "codex": "{}\n",
                "copilot": '{"version": 1, "hooks": {"preToolUse": []}}\n', "kimi": 'default_model = "mine"\n',
                "opencode": "export const Mine = async () => ({})\n"}
CORRUPT = {"qwen": '{"hooks": ', "gemini": '{"hooks": ', "codex": "{\"hooks\": \"x\"", "copilot": "{\"version\": 1,", "kimi": "hooks = [\n",
           "opencode": 'const COMMAND = ["msd_run",\n'}
GLOBAL_FIX = {rt: f"msd install --global --runtime {rt}" for rt in FILE}
ALL = sorted(FILE)
WITH_MATCHER = [rt for rt in ALL if rt not in ("copilot", "opencode")]  # Copilot's preToolUse hook has no matcher:
# every tool; OpenCode's plugin names its tools in a list of its own (tests/runtimes/test_opencode_guard_plugin.py)


def _installed(tmp_path: Path, runtime: str, scope: str = "global"):
    project = tmp_path / "project"
    project.mkdir(parents=True, exist_ok=True)
    (project / ".git").mkdir(exist_ok=True)
    t = resolve_target(scope, project_dir=project, runtime=runtime)
    result = install(t, profile="core")
    assert result.exit_code == 0, result.errors
    return project, t


def _hook(project: Path, runtime: str, scope: str = "global") -> tuple[dict, int]:
    result = status(cwd=project)
    [inst] = [i for i in result.data["installs"] if i["runtime"] == runtime and i["scope"] == scope]
    return inst["hooks"], result.exit_code


def _rewritten(tmp_path: Path, runtime: str, text: str):
    """A global install whose client file then holds `text`: (project, target, file, its hooks status, exit code)."""
    project, t = _installed(tmp_path, runtime)
    path = t.config / FILE[runtime]
    path.write_text(text)
    hook, code = _hook(project, runtime)
    return project, t, path, hook, code


def _human(project: Path) -> str:
    from msd_core.cli.app import app

    cwd = os.getcwd()
    os.chdir(project)
    try:
        r = CliRunner().invoke(app, ["status"], env={"COLUMNS": "400"})
    finally:
        os.chdir(cwd)
    assert r.exit_code == 0, r.output
    return r.output


@pytest.mark.parametrize("runtime", ALL)
def test_an_installed_guard_hook_is_reported_ok_with_its_file_and_runner(runtime, tmp_path):
    project, t = _installed(tmp_path, runtime)
    hook, code = _hook(project, runtime)
    path = t.config / FILE[runtime]
    assert hook["ok"] is True and hook["present"] is True and "problem" not in hook, hook
    assert hook["path"] == str(path) and hook["runner"] == str(RUNNER) and hook["events"] == [EVENT[runtime]]
    assert code == 0
    assert f"hooks: {path} runs {RUNNER} on {EVENT[runtime]}" in _human(project)


@pytest.mark.parametrize("runtime", ALL)
def test_an_entry_gone_from_the_clients_file_is_a_problem_naming_the_install_that_puts_it_back(runtime, tmp_path):
    project, t, path, hook, code = _rewritten(tmp_path, runtime, WITHOUT_OURS[runtime])
    assert hook["ok"] is False and hook["present"] is False
    owned = runtime in ("copilot", "opencode")  # msd's own file: a plain install keeps the user's edit of it, --repair restores it
    fix = f"{GLOBAL_FIX[runtime]} --repair` (your edit is backed up first)" if owned else f"{GLOBAL_FIX[runtime]}`"
    assert hook["problem"] == (f"msd's guard hook is not in {path} ({EVENT[runtime]}): {hook['client']} runs no msd guard; "
                               f"run `{fix}")
    assert code == 0  # status's rule, as for Claude Code's hooks: reported, not an exit code
    assert f"hooks: {hook['problem']}" in _human(project)
    assert path.read_text() == WITHOUT_OURS[runtime]  # status wrote nothing
    install(t, profile="core", repair=owned)  # the fix it names works
    assert _hook(project, runtime)[0]["ok"] is True


def test_copilots_hook_file_deleted_is_restored_by_a_plain_install(tmp_path):
    project, t = _installed(tmp_path, "copilot")
    (t.config / "hooks/msd-guard.json").unlink()
    assert _hook(project, "copilot")[0]["problem"].endswith("runs no msd guard; run `msd install --global --runtime copilot`")
    install(t, profile="core")
    assert _hook(project, "copilot")[0]["ok"] is True


@pytest.mark.parametrize("runtime", ALL)
@pytest.mark.parametrize("how", ["moved", "broken"])
def test_a_runner_the_client_cannot_start_is_a_problem(runtime, how, tmp_path):
    project, t = _installed(tmp_path, runtime)
    path = t.config / FILE[runtime]
    stand_in = tmp_path / "elsewhere" / "msd_run"
    if how == "broken":  # there, but it fails to start (a venv whose python is gone)
        stand_in.parent.mkdir()
        stand_in.write_text("#!/bin/sh\necho 'bad interpreter' >&2\nexit 126\n")
        stand_in.chmod(stand_in.stat().st_mode | stat.S_IXUSR)
    text = path.read_text()
    assert str(RUNNER) in text
    path.write_text(text.replace(str(RUNNER), str(stand_in)))
    hook, _code = _hook(project, runtime)
    assert hook["present"] is True and hook["ok"] is False and hook["runner"] == str(stand_in)
    why = f"{stand_in} does not exist (msd_run moved or was uninstalled)" if how == "moved" \
        else f"{stand_in} cannot start: bad interpreter"
    assert hook["problem"] == f"{hook['client']} cannot start msd's guard hook: {why}; run `{GLOBAL_FIX[runtime]}`"


@pytest.mark.parametrize("runtime", ALL)
def test_a_corrupt_file_is_a_problem_and_stays_as_it_is(runtime, tmp_path):
    project, _t, path, hook, code = _rewritten(tmp_path, runtime, CORRUPT[runtime])
    assert hook["ok"] is False and hook["present"] is False and code == 0
    assert hook["problem"].startswith(f"{path} does not parse")
    assert hook["problem"].endswith(": msd cannot check its guard hook there (and install leaves the file alone); "
                                    f"fix the file, then run `{GLOBAL_FIX[runtime]}`")
    assert "left untouched" not in hook["problem"]
    _human(project)
    assert path.read_text() == CORRUPT[runtime]


def test_a_settings_file_behind_a_link_is_a_problem_and_is_not_followed(tmp_path):
    project, t = _installed(tmp_path, "qwen")
    path = t.config / "settings.json"
    mine = tmp_path / "dotfiles-settings.json"
    mine.write_text(path.read_text())
    path.unlink()
    path.symlink_to(mine)
    hook, _code = _hook(project, "qwen")
    assert hook["problem"].startswith(f"{path} is a symlink") and "msd cannot check its guard hook there" in hook["problem"]


@pytest.mark.parametrize("runtime", WITH_MATCHER)
def test_a_matcher_that_lets_a_guarded_tool_past_is_a_problem(runtime, tmp_path):
    project, t = _installed(tmp_path, runtime)
    path = t.config / FILE[runtime]
    hook, _code = _hook(project, runtime)
    matcher = hook["matcher"]
    path.write_text(path.read_text().replace(json.dumps(matcher)[1:-1], "^Nothing$"))
    hook, _code = _hook(project, runtime)
    assert hook["ok"] is False and hook["matcher"] == "^Nothing$"
    assert hook["problem"].startswith(f"msd's guard hook in {path} no longer matches ")
    assert "those calls go unguarded; " in hook["problem"]


def test_a_wider_matcher_still_covers_the_guarded_tools(tmp_path):
    project, t = _installed(tmp_path, "qwen")
    path = t.config / "settings.json"
    obj = loads(path.read_text())
    guarded = sorted(TOOLS)  # every tool msd's Qwen adapter judges
    obj["hooks"]["PreToolUse"][0]["matcher"] = "|".join([*guarded, "glob"])
    path.write_text(json.dumps(obj))
    assert _hook(project, "qwen")[0]["ok"] is True
    obj["hooks"]["PreToolUse"][0]["matcher"] = "("  # not a regular expression: covers nothing
    path.write_text(json.dumps(obj))
    problem = _hook(project, "qwen")[0]["problem"]
    assert "no longer matches " in problem and all(tool in problem for tool in guarded)


def test_an_entry_pointing_at_another_install_names_the_fix_each_client_needs(tmp_path):
    project, t = _installed(tmp_path, "kimi")
    config = t.config / "config.toml"
    config.write_text(config.read_text().replace(f"--root {t.config / 'msd-core'}", "--root /gone/msd-core"))
    problem = _hook(project, "kimi")[0]["problem"]
    assert problem.startswith(f"msd's guard hook in {config} runs ")
    assert problem.endswith(f"take msd's [[hooks]] table out of {config}, then run `msd install --global --runtime kimi`")
    _project, c = _installed(tmp_path, "copilot")
    guard = c.config / "hooks/msd-guard.json"
    guard.write_text(guard.read_text().replace("copilot-pre-tool-use", "copilot-pre-tool-use --root /gone"))
    problem = _hook(project, "copilot")[0]["problem"]
    assert problem.endswith("run `msd install --global --runtime copilot --repair` (your edit is backed up first)")


def test_the_known_caveats_are_notes_not_problems(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{RUNNER.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    project, _t = _installed(tmp_path, "codex")
    hook, _code = _hook(project, "codex")
    assert hook["ok"] is True and any("/hooks panel" in n for n in hook["notes"])
    _installed(tmp_path, "qwen", "local")
    hook, _code = _hook(project, "qwen", "local")
    assert hook["ok"] is True and hook["runner"] == "msd_run"
    assert hook["notes"] == ["Qwen Code runs a project's hooks only in a folder it trusts"]
    _installed(tmp_path, "kimi", "local")
    hook, _code = _hook(project, "kimi", "local")
    assert hook["ok"] is True and hook["applicable"] is False and "problem" not in hook
    assert "Kimi Code reads hooks only from its user config.toml" in hook["notes"][0]
    out = _human(project)
    assert "hooks note: Codex runs the hook only once you trust it in its /hooks panel" in out
    assert "hooks note: no guard hook here: Kimi Code reads hooks only from its user config.toml" in out


def test_a_local_hook_naming_msd_run_off_path_is_a_problem(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    project, _t = _installed(tmp_path, "gemini", "local")
    hook, _code = _hook(project, "gemini", "local")
    assert hook["problem"] == ("Gemini CLI cannot start msd's guard hook: msd_run is not on PATH; "
                               "put msd_run on PATH (the msd_run line below says how)")
