"""The SessionStart hook that puts msd_run's folder on Claude Code's PATH (runner_hook.py):
the shell command itself (sh and bash, with and without CLAUDE_ENV_FILE), the merge into a
user's settings (their hooks kept, re-install idempotent, uninstall removes only msd's entry),
bad settings files left untouched, the stale-path report, and the local install's per-machine
file kept out of git."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from msd_core.install import runner_hook, runner_path
from msd_core.install.health import status
from msd_core.install.installer import install
from msd_core.install.source import ContentSource
from msd_core.install.uninstaller import uninstall
from msd_core.paths import resolve_target
from tests.kit.installkit import copy_fixture

SHELLS = [s for s in ("sh", "bash") if shutil.which(s)]
USER_HOOK = {"matcher": "startup", "hooks": [{"type": "command", "command": "echo user-hook"}]}


def make_runner(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "msd_run"
    exe.write_text("#!/bin/sh\necho RUNNER-RAN \"$@\"\n")
    exe.chmod(0o755)
    return exe


@pytest.fixture
def runner(tmp_path, monkeypatch) -> Path:
    """The msd_run 'installed beside this msd': a script in a folder with a space and a quote."""
    exe = make_runner(tmp_path / "venv it's" / "bin")
    monkeypatch.setattr(runner_path, "own_runner", lambda: exe)
    return exe


@pytest.fixture
def content(tmp_path) -> ContentSource:
    return ContentSource.from_dir(copy_fixture(tmp_path / "content"))


def run_hook(shell: str, command: str, env_file: Path | None, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    if env_file is not None:
        env["CLAUDE_ENV_FILE"] = str(env_file)
    return subprocess.run([shell, "-c", command], env=env, capture_output=True, text=True, timeout=30)


# --- the command ------------------------------------------------------------------------

@pytest.mark.parametrize("shell", SHELLS)
def test_hook_command_exports_the_folder_and_bash_then_finds_msd_run(shell, runner, tmp_path):
    env_file = tmp_path / "session-env" / "sessionstart-hook-0.sh"
    env_file.parent.mkdir()
    r = run_hook(shell, runner_hook.command_for(runner.parent), env_file, tmp_path)
    assert (r.returncode, r.stderr) == (0, "")
    # what the host does before a Bash command: source the file, then run the command
    probe = subprocess.run(["bash", "-c", f'. "{env_file}"; msd_run resolve x'], env={"PATH": "/usr/bin:/bin"},
                           capture_output=True, text=True, timeout=30)
    assert probe.stdout.strip() == "RUNNER-RAN resolve x", probe.stderr
    assert runner_hook.bindir_of(runner_hook.command_for(runner.parent)) == str(runner.parent)


@pytest.mark.parametrize("shell", SHELLS)
def test_hook_never_fails_the_session(shell, runner, tmp_path):
    cmd = runner_hook.command_for(runner.parent)
    r = run_hook(shell, cmd, None, tmp_path)  # an older host: no CLAUDE_ENV_FILE
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = run_hook(shell, cmd, tmp_path / "no" / "such" / "dir" / "f.sh", tmp_path)  # unwritable
    assert (r.returncode, r.stderr) == (0, "")
    gone = tmp_path / "env.sh"
    r = run_hook(shell, runner_hook.command_for(tmp_path / "moved-away"), gone, tmp_path)  # msd_run gone
    assert (r.returncode, r.stderr) == (0, "") and not gone.exists()


def test_the_guard_is_needed_without_the_hook_bash_cannot_find_msd_run(tmp_path):
    """The fixture that proves the test above can fail: the same probe without the export."""
    env_file = tmp_path / "empty.sh"
    env_file.write_text("")
    probe = subprocess.run(["bash", "-c", f'. "{env_file}"; msd_run resolve x'], env={"PATH": "/usr/bin:/bin"},
                           capture_output=True, text=True, timeout=30)
    assert probe.returncode == 127 and "msd_run" in probe.stderr


# --- merge into settings ----------------------------------------------------------------

def hooks_of(path: Path) -> list:
    return json.loads(path.read_text()).get("hooks", {}).get("SessionStart", [])


def test_global_install_merges_with_user_hooks_and_uninstall_restores_every_byte(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    t.config.mkdir()
    settings = t.config / "settings.json"
    user = {"model": "x", "hooks": {"SessionStart": [USER_HOOK], "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    before = (json.dumps(user, indent=4) + "\n").encode()
    settings.write_bytes(before)
    res = install(t, source=content)
    assert res.data["runner_hook"] == {"path": str(settings), "runner_dir": str(runner.parent), "action": "added"}
    groups = hooks_of(settings)
    assert groups[0] == USER_HOOK and len(groups) == 2
    assert groups[1]["hooks"][0]["command"] == runner_hook.command_for(runner.parent)
    assert json.loads(settings.read_text())["hooks"]["Stop"] == user["hooks"]["Stop"]
    once = settings.read_bytes()
    again = install(t, source=content)
    assert again.data["runner_hook"]["action"] == "present" and settings.read_bytes() == once and not again.data["changed"]
    assert status(cwd=tmp_path, config_dir=t.config).data["installs"][0]["runner_hook"]["ok"] is True
    out = uninstall(t)
    assert out.data["runner_hook"]["action"] == "removed"
    assert settings.read_bytes() == before


def test_a_user_edit_made_after_install_survives_reinstall_and_uninstall(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    settings = t.config / "settings.json"
    obj = json.loads(settings.read_text())
    obj["hooks"]["SessionStart"].insert(0, USER_HOOK)
    obj["theme"] = "dark"
    settings.write_text(json.dumps(obj, indent=2) + "\n")
    install(t, source=content)
    obj = json.loads(settings.read_text())
    assert obj["theme"] == "dark" and obj["hooks"]["SessionStart"][0] == USER_HOOK
    assert sum(runner_hook.is_ours(h) for g in obj["hooks"]["SessionStart"] for h in g["hooks"]) == 1
    uninstall(t)
    assert json.loads(settings.read_text()) == {"hooks": {"SessionStart": [USER_HOOK]}, "theme": "dark"}


def test_a_moved_msd_run_is_reported_stale_and_reinstall_points_the_hook_at_the_new_one(tmp_path, runner, content, monkeypatch):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    shutil.rmtree(runner.parent)  # the venv was deleted
    hook = status(cwd=tmp_path, config_dir=t.config).data["installs"][0]["runner_hook"]
    assert hook["present"] and not hook["ok"]
    assert hook["problem"] == (f"the SessionStart hook points at {runner}, which does not exist (msd_run moved or was "
                               f"uninstalled); run `msd install --global --config-dir {t.config}`")
    new = make_runner(tmp_path / "new-venv" / "bin")
    monkeypatch.setattr(runner_path, "own_runner", lambda: new)
    assert install(t, source=content).data["runner_hook"]["action"] == "updated"
    assert [h["command"] for g in hooks_of(t.config / "settings.json") for h in g["hooks"]] == [runner_hook.command_for(new.parent)]
    assert status(cwd=tmp_path, config_dir=t.config).data["installs"][0]["runner_hook"]["ok"] is True


def test_a_missing_hook_is_reported_with_the_fix(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    settings = t.config / "settings.json"
    obj = json.loads(settings.read_text())
    del obj["hooks"]
    settings.write_text(json.dumps(obj))
    hook = status(cwd=tmp_path, config_dir=t.config).data["installs"][0]["runner_hook"]
    assert not hook["present"] and "no SessionStart hook puts msd_run" in hook["problem"]
    assert hook["problem"].endswith(f"run `msd install --global --config-dir {t.config}`")


@pytest.mark.parametrize("bad", [b"{not json", b"[1, 2]", b'{"hooks": []}', b'{"hooks": {"SessionStart": {}}}'])
def test_bad_settings_are_left_untouched_with_one_line(tmp_path, runner, content, bad):
    t = resolve_target("local", project_dir=tmp_path / "proj")
    (tmp_path / "proj" / ".claude").mkdir(parents=True)
    local = t.config / "settings.local.json"
    local.write_bytes(bad)
    res = install(t, source=content)
    assert res.data["runner_hook"]["action"] == "skipped"
    lines = [w for w in res.warnings if "SessionStart hook" in w]
    assert len(lines) == 1 and "\n" not in lines[0] and str(local) in lines[0]
    assert local.read_bytes() == bad
    assert "problem" in local_status(tmp_path / "proj")["runner_hook"]
    out = uninstall(t)
    assert local.read_bytes() == bad and out.data["runner_hook"]["action"] == "skipped"


def test_no_hook_without_an_msd_run_beside_msd(tmp_path, content, monkeypatch):
    monkeypatch.setattr(runner_path, "own_runner", lambda: tmp_path / "nowhere" / "msd_run")
    t = resolve_target("global", tmp_path / "cfg")
    res = install(t, source=content)
    assert res.data["runner_hook"]["action"].startswith("skipped (no msd_run")
    assert "hooks" not in json.loads((t.config / "settings.json").read_text())


# --- local install ----------------------------------------------------------------------

def local_status(proj: Path) -> dict:
    return next(i for i in status(cwd=proj).data["installs"] if i["scope"] == "local")


def test_local_hook_goes_to_the_per_machine_file_which_git_ignores(tmp_path, runner, content):
    if not shutil.which("git"):
        pytest.skip("git not installed")
    proj = tmp_path / "proj"
    proj.mkdir()
    git = ["git", "-C", str(proj), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    t = resolve_target("local", project_dir=proj)
    res = install(t, source=content)
    assert not [w for w in res.warnings if "git" in w], res.warnings
    local = t.config / "settings.local.json"
    assert hooks_of(local)[0]["hooks"][0]["command"] == runner_hook.command_for(runner.parent)
    assert "hooks" not in json.loads((t.config / "settings.json").read_text())
    subprocess.run([*git, "add", "-A"], check=True)
    tracked = subprocess.run([*git, "ls-files"], check=True, capture_output=True, text=True).stdout.split()
    assert ".claude/settings.json" in tracked and ".claude/settings.local.json" not in tracked
    for rel in tracked:
        assert str(runner.parent).encode() not in (proj / rel).read_bytes(), rel
    assert (proj / ".git" / "info" / "exclude").read_text().splitlines()[-1] == "/.claude/settings.local.json"
    assert not (proj / ".gitignore").exists()  # the project's own file is never edited
    install(t, source=content)  # a second install adds no second exclude line
    assert (proj / ".git" / "info" / "exclude").read_text().count("settings.local.json") == 1
    assert local_status(proj)["runner_hook"]["ok"] is True
    uninstall(t)
    assert not local.exists()


def test_local_uninstall_keeps_the_users_own_local_settings(tmp_path, runner, content):
    proj = tmp_path / "proj"
    (proj / ".claude").mkdir(parents=True)
    local = proj / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"permissions": {"allow": ["Bash(make *)"]}, "hooks": {"SessionStart": [USER_HOOK]}}))
    t = resolve_target("local", project_dir=proj)
    install(t, source=content)
    assert len(hooks_of(local)) == 2
    uninstall(t)
    assert json.loads(local.read_text()) == {"permissions": {"allow": ["Bash(make *)"]}, "hooks": {"SessionStart": [USER_HOOK]}}


def test_dry_run_writes_no_hook(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    t.config.mkdir()
    res = install(t, source=content, dry_run=True)
    assert res.data["runner_hook"]["action"] == "added"  # what the install would do
    assert not (t.config / "settings.json").exists()


def test_other_runtimes_get_no_hook(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "gem", runtime="gemini")
    res = install(t, source=content)
    assert res.data["runner_hook"] == {"action": "not applicable"}
    assert not any(os.path.basename(p) == "settings.local.json" for p in map(str, t.config.rglob("*")))


def test_a_repository_created_after_a_local_install_is_reported_and_reinstall_excludes_the_file(tmp_path, runner, content):
    if not shutil.which("git"):
        pytest.skip("git not installed")
    proj = tmp_path / "proj"
    proj.mkdir()
    t = resolve_target("local", project_dir=proj)
    install(t, source=content)  # no repository yet: nothing to exclude
    assert local_status(proj)["runner_hook"]["ok"] is True
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    hook = local_status(proj)["runner_hook"]
    assert not hook["ok"] and hook["problem"].startswith(f"{t.config / 'settings.local.json'} names this machine's msd_run "
                                                         "folder and git does not ignore it; run `msd install --local")
    install(t, source=content)
    assert local_status(proj)["runner_hook"]["ok"] is True


def test_uninstall_after_an_edit_deletes_the_settings_file_msd_created_when_nothing_is_left(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    settings = t.config / "settings.json"
    settings.write_text(json.dumps(json.loads(settings.read_text())))  # reformatted by another tool: no byte restore
    uninstall(t)
    assert not settings.exists()
