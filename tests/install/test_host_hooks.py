"""The hooks and status line an install registers (msd_core/install/host_hooks.py): each is the
absolute path of msd_run with arguments, no shell; merged into a user's settings with their
hooks kept, re-install idempotent, uninstall gives the file back byte for byte; bad settings
left untouched; a hook the host cannot start is reported by status; a local install's
per-machine file kept out of git and its exclude line taken out again on uninstall; an older
install's shell hook replaced; the status line added only where the user has none."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from msd_core.install import host_hooks, runner_path
from msd_core.install.health import status
from msd_core.install.installer import install
from msd_core.install.source import ContentSource
from msd_core.install.uninstaller import uninstall
from msd_core.paths import resolve_target
from tests.kit.installkit import make_runner

USER_HOOK = {"matcher": "startup", "hooks": [{"type": "command", "command": "echo user-hook"}]}
LEGACY = ("d='/old/venv/bin'; { [ -n \"${CLAUDE_ENV_FILE:-}\" ] && [ -x \"$d/msd_run\" ] && printf \"%s\\n\" "
          "'export PATH='\"'\"'/old/venv/bin'\"'\"':\"$PATH\"' >> \"$CLAUDE_ENV_FILE\"; } 2>/dev/null; exit 0 # msd-core:runner-path")


@pytest.fixture
def content(fixture_content) -> ContentSource:
    return fixture_content


def ours(path: Path) -> dict[str, list[dict]]:
    return host_hooks.ours_in(json.loads(path.read_text()))


def run_as_host(hook: dict, payload: dict, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    """Start a hook entry the way Claude Code's exec form does: the program and its args, no shell."""
    return subprocess.run([hook["command"], *hook["args"]], input=json.dumps(payload), env=env, cwd=str(cwd),
                          capture_output=True, text=True, timeout=60)


# --- the hooks themselves -----------------------------------------------------------------

def test_every_hook_is_msd_run_with_arguments_and_no_shell(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    obj = json.loads((t.config / "settings.json").read_text())
    found = host_hooks.ours_in(obj)
    assert sorted(found) == sorted(host_hooks.EVENTS)
    expected: dict = {}
    for event, matcher, rule, arg in host_hooks.HOOKS:
        # a global install's guard rows call the guard server (its start is tried in test_guard_server_install.py); the others are msd_run
        if arg == "pre-tool-use":
            entry = {"type": "mcp_tool", "server": "msd-guard", "tool": "check", "input": {
                "tool_name": "${tool_name}", "tool_input": "${tool_input}", "cwd": "${cwd}", "session_id": "${session_id}",
                "agent_id": "${agent_id}"}, "timeout": host_hooks.TIMEOUT, **({"if": rule} if rule else {})}
        else:
            entry = {"type": "command", "command": str(runner), "args": ["hook", arg, "--root", str(t.config / "msd-core")],
                     "timeout": host_hooks.TIMEOUT, **({"if": rule} if rule else {})}
        expected.setdefault(event, {}).setdefault(matcher, []).append(entry)

    def shown(h):
        return h

    for event, by_matcher in expected.items():
        # one group per event and matcher, its entries in HOOKS order
        assert [(g.get("matcher"), [shown(h) for h in g["hooks"]]) for g in obj["hooks"][event]] == list(by_matcher.items())
        assert [shown(h) for h in found[event]] == [e for entries in by_matcher.values() for e in entries]
    # the rows the guard work relies on: msd's PostToolUse rows on its own Bash calls only; one guard
    # entry with no `if` for every Bash call (a rule never sees a redirection, and a loop matched one
    # rule per secret word, a process each)
    assert {(g.get("matcher"), tuple(h.get("if") for h in g["hooks"])) for g in obj["hooks"]["PostToolUse"]} == {
        ("Agent", (None,)), ("Bash", ("Bash(msd_run step-done *)", "Bash(msd_run commit *)"))}
    (bash,) = [g for g in obj["hooks"]["PreToolUse"] if g["matcher"] == "Bash"]
    assert [h.get("if") for h in bash["hooks"]] == [None]
    # every tool that writes a file reaches the guard, whatever its path (a symlink's path never matches a rule)
    (writes,) = [g for g in obj["hooks"]["PreToolUse"] if g["matcher"] == "Write|Edit|MultiEdit|NotebookEdit"]
    assert [h.get("if") for h in writes["hooks"]] == [None]
    from msd_core.lean.guard_limits import WRITE_TOOLS

    assert writes["matcher"].split("|") == list(WRITE_TOOLS)  # the tools the hook judges are the tools the host asks about
    # the status line has no exec form: one command line, the path quoted for the shell that splits it
    assert obj["statusLine"]["type"] == "command"
    words = subprocess.run(["sh", "-c", f'printf "%s\\n" {obj["statusLine"]["command"]}'], capture_output=True, text=True).stdout
    assert words.splitlines() == [str(runner), "statusline", "--root", str(t.config / "msd-core")]


def test_the_session_start_hook_puts_msd_run_on_the_path_the_host_sources(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    (hook,) = ours(t.config / "settings.json")["SessionStart"]
    env_file = tmp_path / "session-env" / "sessionstart-hook-0.sh"
    env_file.parent.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CLAUDE_ENV_FILE": str(env_file)}
    r = run_as_host(hook, {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(tmp_path)}, env, tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")  # a new session: nothing reaches the model
    # what the host does before a Bash command: source the file, then run the command
    probe = subprocess.run(["bash", "-c", f'. "{env_file}"; msd_run hook probe'], env={"PATH": "/usr/bin:/bin"},
                           capture_output=True, text=True, timeout=30)
    assert probe.stdout.strip() == "ok", probe.stderr


def test_without_the_export_bash_cannot_find_msd_run(tmp_path):
    """The fixture that proves the test above can fail: the same probe without the line."""
    env_file = tmp_path / "empty.sh"
    env_file.write_text("")
    probe = subprocess.run(["bash", "-c", f'. "{env_file}"; msd_run hook probe'], env={"PATH": "/usr/bin:/bin"},
                           capture_output=True, text=True, timeout=30)
    assert probe.returncode == 127 and "msd_run" in probe.stderr


def test_a_hook_never_fails_the_session(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    found = ours(t.config / "settings.json")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    server = json.loads((t.config / ".claude.json").read_text())["mcpServers"]["msd-guard"]
    for event, hooks in found.items():
        if hooks[0]["type"] == "mcp_tool":  # the guard rows' server, its input closed at once: no output, exit 0
            r = subprocess.run([server["command"], *server["args"]], input="", env=env, cwd=str(tmp_path), capture_output=True,
                               text=True, timeout=60)
        else:
            r = run_as_host(hooks[0], {"hook_event_name": event}, env, tmp_path)  # no CLAUDE_ENV_FILE, no project
        assert (r.returncode, r.stdout, r.stderr) == (0, "", ""), event
    bad = {**env, "CLAUDE_ENV_FILE": str(tmp_path / "no" / "such" / "dir" / "f.sh")}
    r = run_as_host(found["SessionStart"][0], {"source": "startup"}, bad, tmp_path)
    assert (r.returncode, r.stderr) == (0, "")
    r = subprocess.run([found["PreCompact"][0]["command"], "hook", "pre-compact"], input="{not json", env=env,
                       cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = subprocess.run([str(runner), "hook", "no-such-event"], input="{}", env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr.startswith("msd_run hook: unknown event 'no-such-event'")


# --- merge into settings ------------------------------------------------------------------

def test_global_install_merges_with_user_hooks_and_uninstall_restores_every_byte(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    t.config.mkdir()
    settings = t.config / "settings.json"
    user = {"model": "x", "hooks": {"SessionStart": [USER_HOOK], "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    before = (json.dumps(user, indent=4) + "\n").encode()
    settings.write_bytes(before)
    res = install(t, source=content)
    assert res.data["hooks"]["action"] == "added" and res.data["hooks"]["runner_dir"] == str(runner.parent)
    obj = json.loads(settings.read_text())
    assert obj["hooks"]["SessionStart"][0] == USER_HOOK and len(obj["hooks"]["SessionStart"]) == 2
    assert obj["hooks"]["Stop"] == user["hooks"]["Stop"]
    assert settings.read_bytes().startswith(before[: before.index(b'"SessionStart"')])  # only msd's bytes were added
    once = settings.read_bytes()
    again = install(t, source=content)
    assert again.data["hooks"]["action"] == "present" and settings.read_bytes() == once and not again.data["changed"]
    assert status(cwd=tmp_path, config_dir=t.config).data["installs"][0]["hooks"]["ok"] is True
    out = uninstall(t)
    assert out.data["hooks"]["action"] == "removed"
    assert settings.read_bytes() == before


def test_the_guard_rows_sit_beside_the_users_tool_hooks_and_leave_with_uninstall(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    t.config.mkdir()
    settings = t.config / "settings.json"
    theirs = {"matcher": "Read", "hooks": [{"type": "command", "command": "my-read-guard"}]}
    before = (json.dumps({"hooks": {"PreToolUse": [theirs]}}, indent=2) + "\n").encode()
    settings.write_bytes(before)
    install(t, source=content)
    obj = json.loads(settings.read_text())
    pre = obj["hooks"]["PreToolUse"]
    assert pre[0] == theirs  # theirs first and untouched, ours after it
    assert [g["matcher"] for g in pre[1:]] == ["Write|Edit|MultiEdit|NotebookEdit", "Read", "Bash", "Grep"]
    assert len(pre[3]["hooks"]) == 1 and "if" not in pre[3]["hooks"][0]  # one entry, every Bash call
    uninstall(t)
    assert settings.read_bytes() == before


def test_an_older_installs_budget_hook_on_every_bash_call_is_replaced(tmp_path, runner, content, monkeypatch):
    """An install made before issue 35 registered PostToolUse `Bash|Agent` (a hook process on every
    Bash call): re-installing replaces it with the filtered rows; uninstall then gives back the
    user's file as it was before either install."""
    t = resolve_target("global", tmp_path / "cfg")
    t.config.mkdir()
    settings = t.config / "settings.json"
    before = b'{\n  "theme": "dark"\n}\n'
    settings.write_bytes(before)
    old_rows = (("SessionStart", None, None, "session-start"), ("PreCompact", None, None, "pre-compact"),
                ("PostToolUse", "Bash|Agent", None, "post-tool-use"))
    monkeypatch.setattr(host_hooks, "HOOKS", old_rows)
    monkeypatch.setattr(host_hooks, "EVENTS", ("SessionStart", "PreCompact", "PostToolUse"))
    install(t, source=content)
    assert [g["matcher"] for g in json.loads(settings.read_text())["hooks"]["PostToolUse"]] == ["Bash|Agent"]
    monkeypatch.undo()
    assert install(t, source=content).data["hooks"]["action"] == "updated"
    post = json.loads(settings.read_text())["hooks"]["PostToolUse"]
    assert [g["matcher"] for g in post] == ["Agent", "Bash"] and all("if" in h for h in post[1]["hooks"])
    uninstall(t)
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
    assert sum(host_hooks.is_ours(h) for g in obj["hooks"]["SessionStart"] for h in g["hooks"]) == 1
    uninstall(t)
    assert json.loads(settings.read_text()) == {"hooks": {"SessionStart": [USER_HOOK]}, "theme": "dark"}


def test_a_hook_the_host_cannot_start_is_reported_and_reinstall_points_it_at_the_new_msd_run(tmp_path, runner, content, monkeypatch):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    runner.write_text("#!/nonexistent/python3\n")  # the venv's interpreter was deleted: the program cannot start
    hook = status(cwd=tmp_path, config_dir=t.config).data["installs"][0]["hooks"]
    assert hook["present"] and not hook["ok"] and hook["problem"].startswith(f"the host cannot start msd's hooks: {runner} cannot start")
    shutil.rmtree(runner.parent)  # the venv itself was deleted
    hook = status(cwd=tmp_path, config_dir=t.config).data["installs"][0]["hooks"]
    assert hook["problem"] == (f"the host cannot start msd's hooks: {runner} does not exist (msd_run moved or was uninstalled); "
                               f"run `msd install --global --config-dir {t.config}`")
    new = make_runner(tmp_path / "new-venv" / "bin")
    monkeypatch.setattr(runner_path, "own_runner", lambda: new)
    assert install(t, source=content).data["hooks"]["action"] == "updated"
    assert {h.get("command") for hs in ours(t.config / "settings.json").values() for h in hs} == {str(new), None}  # None: mcp_tool rows
    assert status(cwd=tmp_path, config_dir=t.config).data["installs"][0]["hooks"]["ok"] is True


def test_missing_hooks_are_reported_with_the_fix(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    settings = t.config / "settings.json"
    obj = json.loads(settings.read_text())
    del obj["hooks"]["PreCompact"]
    settings.write_text(json.dumps(obj))
    hook = status(cwd=tmp_path, config_dir=t.config).data["installs"][0]["hooks"]
    assert hook["problem"] == f"msd's PreCompact hook is missing from {settings}; run `msd install --global --config-dir {t.config}`"
    del obj["hooks"]
    settings.write_text(json.dumps(obj))
    hook = status(cwd=tmp_path, config_dir=t.config).data["installs"][0]["hooks"]
    assert not hook["present"] and hook["problem"].startswith(f"msd's hooks are not in {settings}")


@pytest.mark.parametrize("bad", [b"{not json", b"[1, 2]", b'{"hooks": []}', b'{"hooks": {"SessionStart": {}}}'])
def test_bad_settings_are_left_untouched_with_one_line(tmp_path, runner, content, bad):
    t = resolve_target("local", project_dir=tmp_path / "proj")
    (tmp_path / "proj" / ".claude").mkdir(parents=True)
    local = t.config / "settings.local.json"
    local.write_bytes(bad)
    res = install(t, source=content)
    assert res.data["hooks"]["action"] == "skipped"
    lines = [w for w in res.warnings if "msd's hooks" in w]
    assert len(lines) == 1 and "\n" not in lines[0] and str(local) in lines[0]
    assert local.read_bytes() == bad
    assert "problem" in local_status(tmp_path / "proj")["hooks"]
    out = uninstall(t)
    # what does not parse is skipped; what parses holds nothing of msd's
    assert local.read_bytes() == bad and out.data["hooks"]["action"] == ("skipped" if b"hooks" not in bad else "absent")


def test_no_hooks_without_an_msd_run_beside_msd(tmp_path, content, monkeypatch):
    monkeypatch.setattr(runner_path, "own_runner", lambda: tmp_path / "nowhere" / "msd_run")
    t = resolve_target("global", tmp_path / "cfg")
    res = install(t, source=content)
    assert res.data["hooks"]["action"].startswith("skipped (no msd_run")
    assert "hooks" not in json.loads((t.config / "settings.json").read_text())


def test_an_older_installs_shell_hook_is_replaced_and_uninstall_takes_the_new_ones_out(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    settings = t.config / "settings.json"
    obj = json.loads(settings.read_text())
    for event in list(obj["hooks"]):
        obj["hooks"][event] = [g for g in obj["hooks"][event] if not any(host_hooks.is_ours(h) for h in g["hooks"])]
        if not obj["hooks"][event]:
            del obj["hooks"][event]
    obj["hooks"]["SessionStart"] = [USER_HOOK, {"hooks": [{"type": "command", "command": LEGACY}]}]
    settings.write_text(json.dumps(obj, indent=2) + "\n")
    assert "older install's shell hook" in status(cwd=tmp_path, config_dir=t.config).data["installs"][0]["hooks"]["problem"]
    assert install(t, source=content).data["hooks"]["action"] == "updated"
    after = json.loads(settings.read_text())
    assert LEGACY not in settings.read_text() and after["hooks"]["SessionStart"][0] == USER_HOOK
    assert [h["args"][1] for h in ours(settings)["SessionStart"]] == ["session-start"]
    uninstall(t)
    assert json.loads(settings.read_text()) == {"hooks": {"SessionStart": [USER_HOOK]}}


# --- the status line ------------------------------------------------------------------------

def test_the_status_line_is_added_only_where_the_user_has_none(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    t.config.mkdir()
    settings = t.config / "settings.json"
    theirs = b'{\n  "statusLine": {"type": "command", "command": "~/bin/my-line.sh"}\n}\n'
    settings.write_bytes(theirs)
    res = install(t, source=content)
    assert res.data["hooks"]["status_line"] == f"yours kept ({settings})"
    assert json.loads(settings.read_text())["statusLine"] == {"type": "command", "command": "~/bin/my-line.sh"}
    uninstall(t)
    assert settings.read_bytes() == theirs


def test_a_local_install_never_shadows_the_users_global_status_line(tmp_path, runner, content, monkeypatch):
    home_cfg = tmp_path / "home" / ".claude"
    home_cfg.mkdir(parents=True)
    (home_cfg / "settings.json").write_text('{"statusLine": {"type": "command", "command": "mine"}}')
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home_cfg))
    t = resolve_target("local", project_dir=tmp_path / "proj")
    res = install(t, source=content)
    assert "statusLine" not in json.loads((t.config / "settings.local.json").read_text())
    assert res.data["hooks"]["status_line"].startswith("yours kept")


def test_a_status_line_the_user_set_after_install_is_never_removed(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    settings = t.config / "settings.json"
    obj = json.loads(settings.read_text())
    obj["statusLine"] = {"type": "command", "command": "mine"}
    settings.write_text(json.dumps(obj, indent=2))
    install(t, source=content)
    assert json.loads(settings.read_text())["statusLine"] == {"type": "command", "command": "mine"}
    uninstall(t)
    assert json.loads(settings.read_text()) == {"statusLine": {"type": "command", "command": "mine"}}


# --- local install --------------------------------------------------------------------------

def local_status(proj: Path) -> dict:
    return next(i for i in status(cwd=proj).data["installs"] if i["scope"] == "local")


def _git_repo(proj: Path) -> list[str]:
    if not shutil.which("git"):
        pytest.skip("git not installed")
    proj.mkdir(exist_ok=True)
    git = ["git", "-C", str(proj), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    return git


def test_local_hooks_go_to_the_per_machine_file_which_git_ignores(tmp_path, runner, content):
    proj = tmp_path / "proj"
    git = _git_repo(proj)
    exclude = proj / ".git" / "info" / "exclude"
    before = exclude.read_bytes()
    t = resolve_target("local", project_dir=proj)
    res = install(t, source=content)
    assert not [w for w in res.warnings if "git" in w], res.warnings
    local = t.config / "settings.local.json"
    assert ours(local)["SessionStart"][0]["command"] == str(runner)
    assert "hooks" not in json.loads((t.config / "settings.json").read_text())
    subprocess.run([*git, "add", "-A"], check=True)
    tracked = subprocess.run([*git, "ls-files"], check=True, capture_output=True, text=True).stdout.split()
    assert ".claude/settings.json" in tracked and ".claude/settings.local.json" not in tracked
    for rel in tracked:
        assert str(runner.parent).encode() not in (proj / rel).read_bytes(), rel
    assert exclude.read_text().splitlines()[-1] == "/.claude/settings.local.json"
    assert not (proj / ".gitignore").exists()  # the project's own file is never edited
    install(t, source=content)  # a second install adds no second exclude line
    assert exclude.read_text().count("settings.local.json") == 1
    assert local_status(proj)["hooks"]["ok"] is True
    uninstall(t)
    assert not local.exists()
    assert exclude.read_bytes() == before  # issue 29 item 10: exactly what install added is gone


@pytest.mark.parametrize("exclude_text", [None, b"", b"# mine\n*.log", b"# mine\r\n*.log\r\n"])
def test_uninstall_gives_the_exclude_file_back_byte_for_byte(tmp_path, runner, content, exclude_text):
    proj = tmp_path / "proj"
    _git_repo(proj)
    exclude = proj / ".git" / "info" / "exclude"
    if exclude_text is None:
        exclude.unlink()
    else:
        exclude.write_bytes(exclude_text)
    t = resolve_target("local", project_dir=proj)
    install(t, source=content)
    assert b"/.claude/settings.local.json\n" in exclude.read_bytes()
    uninstall(t)
    assert (exclude.read_bytes() if exclude.exists() else None) == exclude_text


def test_uninstall_keeps_what_the_user_added_to_the_exclude_file_after_install(tmp_path, runner, content):
    proj = tmp_path / "proj"
    _git_repo(proj)
    exclude = proj / ".git" / "info" / "exclude"
    exclude.write_bytes(b"# mine\n")
    t = resolve_target("local", project_dir=proj)
    install(t, source=content)
    exclude.write_bytes(exclude.read_bytes() + b"build/\n")
    uninstall(t)
    assert exclude.read_bytes() == b"# mine\nbuild/\n"


def test_local_uninstall_keeps_the_users_own_local_settings_byte_for_byte(tmp_path, runner, content):
    proj = tmp_path / "proj"
    (proj / ".claude").mkdir(parents=True)
    local = proj / ".claude" / "settings.local.json"
    mine = b'{"permissions": {"allow": ["Bash(make *)"]},\r\n "hooks": {"SessionStart": [%s]}}' % json.dumps(USER_HOOK).encode()
    local.write_bytes(mine)
    t = resolve_target("local", project_dir=proj)
    install(t, source=content)
    assert len(json.loads(local.read_text())["hooks"]["SessionStart"]) == 2
    uninstall(t)
    assert local.read_bytes() == mine


def test_dry_run_writes_no_hook(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    t.config.mkdir()
    res = install(t, source=content, dry_run=True)
    assert res.data["hooks"]["action"] == "added"  # what the install would do
    assert not (t.config / "settings.json").exists()


def test_other_runtimes_get_no_hook(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "gem", runtime="gemini")
    res = install(t, source=content)
    assert res.data["hooks"] == {"action": "not applicable"}
    assert not any(os.path.basename(p) == "settings.local.json" for p in map(str, t.config.rglob("*")))


def test_a_repository_created_after_a_local_install_is_reported_and_reinstall_excludes_the_file(tmp_path, runner, content):
    proj = tmp_path / "proj"
    proj.mkdir()
    t = resolve_target("local", project_dir=proj)
    install(t, source=content)  # no repository yet: nothing to exclude
    assert local_status(proj)["hooks"]["ok"] is True
    _git_repo(proj)
    hook = local_status(proj)["hooks"]
    assert not hook["ok"] and hook["problem"].startswith(f"{t.config / 'settings.local.json'} names this machine's msd_run "
                                                         "folder and git does not ignore it; run `msd install --local")
    install(t, source=content)
    assert local_status(proj)["hooks"]["ok"] is True
    uninstall(t)
    assert b"settings.local.json" not in (proj / ".git" / "info" / "exclude").read_bytes()


def test_uninstall_after_an_edit_deletes_the_settings_file_msd_created_when_nothing_is_left(tmp_path, runner, content):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    settings = t.config / "settings.json"
    settings.write_text(json.dumps(json.loads(settings.read_text())))  # reformatted by another tool: no byte restore
    uninstall(t)
    assert not settings.exists()
