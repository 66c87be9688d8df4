"""`msd mcp install|uninstall --scope user|project`: the server entry and the mcp__msd permission,
written the way `claude mcp add` writes them, without ever corrupting a user's file."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

# ~/.claude.json as Claude Code writes it: JSON.stringify(obj, null, 2), no final newline, non-ASCII kept
CLAUDE_JSON = json.dumps({"numStartups": 3, "theme": "dark", "tipsHistory": {"ü-tip": 2}, "projects": {"/x": {"allowedTools": []}},
                          "userID": "abc"}, indent=2, ensure_ascii=False)
VENV_BIN = str(Path(sys.executable).parent)


def _env():
    return {"PATH": VENV_BIN + os.pathsep + os.environ["PATH"]}


def _home() -> Path:
    return Path(os.environ["HOME"])


def test_user_scope_adds_only_msds_entry_and_permission(msd, tmp_path):
    claude_json = _home() / ".claude.json"
    claude_json.write_text(CLAUDE_JSON)
    settings = _home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{\n  "model": "opus",\n  "permissions": {\n    "allow": [\n      "Bash(ls)"\n    ]\n  }\n}\n')
    r = msd(["mcp", "install", "--scope", "user", "--json"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    new = claude_json.read_text()
    # every byte before the final brace is the user's, in order; msd's entry follows, in Claude's format
    assert new.startswith(CLAUDE_JSON[:-2] + ",\n  \"mcpServers\": {\n    \"msd\": {\n      \"type\": \"stdio\",")
    assert not new.endswith("\n")  # the file's own style: no final newline
    data = json.loads(new)
    assert list(data) == ["numStartups", "theme", "tipsHistory", "projects", "userID", "mcpServers"]
    assert data["mcpServers"]["msd"] == {"type": "stdio", "command": str(Path(VENV_BIN, "msd")), "args": ["mcp"], "env": {}}
    assert json.loads(settings.read_text()) == {"model": "opus", "permissions": {"allow": ["Bash(ls)", "mcp__msd"]}}
    # again: nothing changes
    r = msd(["mcp", "install", "--scope", "user", "--json"], env=_env(), cwd=tmp_path)
    out = json.loads(r.stdout)
    assert out["server"]["action"] == "unchanged" and out["permission"]["action"] == "unchanged"
    # status shows it
    status = json.loads(msd(["status", "--json"], env=_env(), cwd=tmp_path).stdout)["mcp"]
    assert status[0] == {"scope": "user", "path": str(claude_json), "registered": True, "permission": True}
    # uninstall: the user's bytes come back exactly
    r = msd(["mcp", "uninstall", "--scope", "user"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert claude_json.read_text() == CLAUDE_JSON
    assert settings.read_text() == '{\n  "model": "opus",\n  "permissions": {\n    "allow": [\n      "Bash(ls)"\n    ]\n  }\n}\n'


@pytest.mark.parametrize("own", ['{"permissions": {"allow": ["mcp__msd"]}}\n',
                                 '{\n  "permissions": {\n    "allow": [\n      "Bash(ls)",\n      "mcp__msd"\n    ]\n  }\n}\n'])
def test_uninstall_keeps_a_permission_the_user_wrote_themselves(msd, tmp_path, own):
    """msd's record says what `msd mcp install` added: a `mcp__msd` rule that was there before is
    the user's, and `msd mcp uninstall` (also through `msd uninstall`) leaves it byte for byte."""
    settings = _home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(own)
    r = msd(["mcp", "install", "--scope", "user", "--json"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["permission"]["action"] == "unchanged", r.stderr
    r = msd(["mcp", "uninstall", "--scope", "user", "--json"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["server"]["action"] == "removed" and out["permission"]["action"] == "kept"
    assert settings.read_text() == own


@pytest.mark.parametrize("blank", [b"", b"\n", b"  \r\n"])
def test_an_empty_claude_json_is_given_back_exactly(msd, tmp_path, blank):
    """A blank ~/.claude.json (0 bytes, or only white space): untouched where nothing is to change,
    and given back exactly as it was after msd added an entry and took it out again."""
    claude_json = _home() / ".claude.json"
    claude_json.write_bytes(blank)
    r = msd(["mcp", "uninstall", "--scope", "user"], env=_env(), cwd=tmp_path)  # nothing of msd's there
    assert r.returncode == 0 and claude_json.read_bytes() == blank, r.stderr
    r = msd(["mcp", "install", "--scope", "user"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0 and "mcpServers" in claude_json.read_text(), r.stderr
    r = msd(["mcp", "uninstall", "--scope", "user"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert claude_json.read_bytes() == blank


def test_a_new_claude_json_in_the_config_dir_is_private(msd, tmp_path):
    config = tmp_path / "cfg"
    r = msd(["mcp", "install", "--json"], env={**_env(), "CLAUDE_CONFIG_DIR": str(config)}, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    made = config / ".claude.json"
    assert stat.S_IMODE(made.stat().st_mode) == 0o600  # as Claude Code creates it
    assert not (_home() / ".claude.json").exists()
    assert json.loads((config / "settings.json").read_text()) == {"permissions": {"allow": ["mcp__msd"]}}


def test_project_scope_writes_mcp_json_and_project_settings(msd, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"hooks": {}}\n')
    r = msd(["mcp", "install", "--scope", "project", "--cwd", str(project)], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "trust this folder" in r.stdout
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["msd"]
    assert entry == {"type": "stdio", "command": "msd", "args": ["mcp"], "env": {}}
    assert json.loads((project / ".claude" / "settings.json").read_text()) == {"hooks": {}, "permissions": {"allow": ["mcp__msd"]}}
    r = msd(["mcp", "uninstall", "--scope", "project", "--cwd", str(project)], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert not (project / ".mcp.json").exists()  # it held only msd's entry
    assert json.loads((project / ".claude" / "settings.json").read_text()) == {"hooks": {}}


def test_without_msd_on_path_the_entry_runs_this_interpreter(tmp_path, monkeypatch):
    from msd_core.mcp import setup as mcp_setup

    monkeypatch.setenv("PATH", str(tmp_path))
    assert mcp_setup.server_entry("user") == {"type": "stdio", "command": sys.executable, "args": ["-m", "msd_core", "mcp"], "env": {}}
    assert mcp_setup.is_ours(mcp_setup.server_entry("user"))


@pytest.mark.parametrize("which", ["servers", "settings"])
@pytest.mark.parametrize("content", ['{"a": 1,', "[1, 2]", "\xff\xfe"])
def test_an_unparseable_file_is_left_untouched_with_an_error(msd, tmp_path, which, content):
    claude_json = _home() / ".claude.json"
    settings = _home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    claude_json.write_text(CLAUDE_JSON)
    settings.write_text("{}\n")
    bad = claude_json if which == "servers" else settings
    bad.write_bytes(content.encode("latin-1"))
    before = {p: p.read_bytes() for p in (claude_json, settings)}
    r = msd(["mcp", "install"], env=_env(), cwd=tmp_path)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(bad) in lines[0] and "left untouched" in lines[0] and "Traceback" not in r.stderr
    assert {p: p.read_bytes() for p in (claude_json, settings)} == before  # neither file touched


def test_a_symlinked_claude_json_is_not_written_through(msd, tmp_path):
    real = tmp_path / "dotfiles-claude.json"
    real.write_text(CLAUDE_JSON)
    (_home() / ".claude.json").symlink_to(real)
    r = msd(["mcp", "install"], env=_env(), cwd=tmp_path)
    assert r.returncode == 1 and "is a symlink; msd does not write through it" in r.stderr
    assert real.read_text() == CLAUDE_JSON


def test_another_server_named_msd_is_never_replaced_or_removed(msd, tmp_path):
    claude_json = _home() / ".claude.json"
    theirs = {"mcpServers": {"msd": {"type": "stdio", "command": "node", "args": ["my-msd.js"], "env": {}}}}
    claude_json.write_text(json.dumps(theirs, indent=2))
    r = msd(["mcp", "install"], env=_env(), cwd=tmp_path)
    assert r.returncode == 1 and "is already registered and is not msd-core's" in r.stderr
    r = msd(["mcp", "uninstall"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0 and json.loads(claude_json.read_text()) == theirs


def test_a_host_rewrite_during_the_edit_is_not_lost(tmp_path, monkeypatch):
    """Claude Code rewrites ~/.claude.json often: when the file changes between msd's read and
    its write, msd starts over from the new content (the host's change survives)."""
    from msd_core.mcp import setup as mcp_setup
    from msd_core.runtimes import claude_json as cjson

    path = tmp_path / ".claude.json"
    path.write_text('{"a": 1}')
    real_read = cjson.read_file
    calls = {"n": 0}

    def racing_read(p):
        calls["n"] += 1
        if calls["n"] == 2:  # between the first read and the write: the host writes
            path.write_text('{"a": 1, "host": "wrote this"}')
        return real_read(p)

    monkeypatch.setattr(cjson, "read_file", racing_read)
    note = cjson.edit_json(path, mcp_setup._add_permission)
    assert note == "added"
    assert json.loads(path.read_text()) == {"a": 1, "host": "wrote this", "permissions": {"allow": ["mcp__msd"]}}


def test_msd_uninstall_removes_the_registration_of_its_scope(msd, tmp_path):
    r = msd(["install", "--global"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    settings = _home() / ".claude" / "settings.json"
    installed = settings.read_bytes()
    assert msd(["mcp", "install"], env=_env(), cwd=tmp_path).returncode == 0
    assert b"mcp__msd" in settings.read_bytes()
    dry = msd(["uninstall", "--global", "--dry-run", "--json"], env=_env(), cwd=tmp_path)
    assert json.loads(dry.stdout)["mcp"]["server"]["action"] == "would remove"
    assert b"mcp__msd" in settings.read_bytes()
    r = msd(["uninstall", "--global", "--json"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["mcp"]["server"]["action"] == "removed" and data["mcp"]["permission"]["action"] == "removed"
    assert not (_home() / ".claude.json").exists()  # msd mcp install created it: nothing else was ever in it
    # msd install created settings.json; with mcp__msd gone first it matched install's bytes and went with it
    assert installed and not settings.exists()


def test_the_hosts_own_lock_is_honoured(tmp_path, monkeypatch):
    """Claude Code locks its settings files with a `<file>.lock` folder: msd waits for it,
    gives exit 4 when it stays, and takes over only a stale one (as the host does)."""
    from msd_core.errors import LockTimeout
    from msd_core.mcp import setup as mcp_setup
    from msd_core.runtimes import claude_json as cjson

    path = tmp_path / "settings.json"
    path.write_text("{}\n")
    lock = tmp_path / "settings.json.lock"
    lock.mkdir()
    monkeypatch.setattr(cjson, "HOST_LOCK_WAIT", 0.3)
    with pytest.raises(LockTimeout) as err:
        with cjson.host_lock(path, wait=0.3):
            pass
    assert err.value.exit_code == 4 and "is held" in err.value.message
    assert path.read_text() == "{}\n" and lock.is_dir()
    old = __import__("time").time() - 60
    os.utime(lock, (old, old))  # stale: taken over, then released
    assert cjson.edit_json(path, mcp_setup._add_permission) == "added"
    assert not lock.exists()
    assert json.loads(path.read_text()) == {"permissions": {"allow": ["mcp__msd"]}}


def test_a_held_host_lock_is_exit_4_from_the_cli(msd, tmp_path):
    """A lock folder its holder keeps fresh (as Claude Code does while it writes) is waited for,
    then exit 4; nothing written."""
    import threading

    settings = _home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{}\n")
    lock = settings.parent / "settings.json.lock"
    lock.mkdir()
    done = threading.Event()

    def keep_fresh():
        while not done.wait(0.2):
            os.utime(lock)

    toucher = threading.Thread(target=keep_fresh, daemon=True)
    toucher.start()
    try:
        r = msd(["mcp", "install"], env={**_env(), "MSD_LOCK_TIMEOUT": "1.5"}, cwd=tmp_path, timeout=60)
    finally:
        done.set()
        toucher.join()
    assert r.returncode == 4 and "settings.json.lock is held" in r.stderr
    assert settings.read_text() == "{}\n"


def test_a_lock_nobody_refreshes_is_taken_over_once_stale(tmp_path, monkeypatch):
    """The host's rule: a lock folder older than its stale age belongs to a writer that died."""
    import time

    from msd_core.mcp import setup as mcp_setup
    from msd_core.runtimes import claude_json as cjson

    monkeypatch.setattr(cjson, "HOST_LOCK_STALE", 0.6)
    path = tmp_path / "settings.json"
    path.write_text("{}\n")
    (tmp_path / "settings.json.lock").mkdir()
    t0 = time.monotonic()
    assert cjson.edit_json(path, mcp_setup._add_permission) == "added"
    assert 0.5 < time.monotonic() - t0 < 5 and not (tmp_path / "settings.json.lock").exists()


def test_concurrent_editors_lose_nothing(tmp_path):
    """Eight processes edit one file at once through edit_json: every change survives and the
    file is valid JSON throughout (bounded: 8 writers, 60 s)."""
    import subprocess

    path = tmp_path / "shared.json"
    path.write_text('{"keep": true}\n')
    code = ("import sys; from pathlib import Path; from msd_core.mcp import setup as mcp_setup\n"
            "from msd_core.runtimes import claude_json as cjson\n"
            "i = sys.argv[2]\n"
            "def change(o):\n"
            "    if 'k' + i in o: return None\n"
            "    o['k' + i] = int(i); return 'added'\n"
            "print(cjson.edit_json(Path(sys.argv[1]), change))\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path), str(i)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for i in range(8)]
    outs = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    data = json.loads(path.read_text())
    assert data == {"keep": True, **{f"k{i}": i for i in range(8)}}
    assert not (tmp_path / "shared.json.lock").exists()


def test_a_file_where_the_lock_folder_belongs_is_named(tmp_path):
    from msd_core.errors import OperationFailed
    from msd_core.mcp import setup as mcp_setup
    from msd_core.runtimes import claude_json as cjson

    path = tmp_path / "settings.json"
    path.write_text("{}\n")
    (tmp_path / "settings.json.lock").write_text("not a folder")
    old = __import__("time").time() - 60
    os.utime(tmp_path / "settings.json.lock", (old, old))
    with pytest.raises(OperationFailed) as err:
        cjson.edit_json(path, mcp_setup._add_permission)
    assert "is not a lock folder" in err.value.message and path.read_text() == "{}\n"


def test_msd_uninstall_goes_on_when_the_host_file_is_broken(msd, tmp_path):
    assert msd(["install", "--global"], env=_env(), cwd=tmp_path).returncode == 0
    assert msd(["mcp", "install"], env=_env(), cwd=tmp_path).returncode == 0
    claude_json = _home() / ".claude.json"
    claude_json.write_text('{"broken": ')
    r = msd(["uninstall", "--global", "--json"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert "does not parse as JSON" in out["mcp"]["warning"] and any("does not parse" in w for w in out["warnings"])
    assert claude_json.read_text() == '{"broken": '  # left untouched
    assert not (_home() / ".claude" / "msd-core").exists()  # msd's files went anyway
    assert not (_home() / ".claude" / "settings.json").exists()  # mcp__msd removed on its own, then install's file


@pytest.mark.parametrize("verb", ["install", "uninstall"])
def test_an_unknown_scope_is_bad_usage_and_writes_nothing(msd, tmp_path, verb):
    r = msd(["mcp", verb, "--scope", "team"], env=_env(), cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.strip() == "msd: error: --scope 'team' is not one of user, project"
    assert not (_home() / ".claude.json").exists() and not (_home() / ".claude").exists()
