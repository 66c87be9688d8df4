"""A global install's guard server (msd_core/install/guard_server_setup.py): registered in Claude
Code's ~/.claude.json beside the user's own servers and taken out byte for byte; the guard rows
call it and its tool is denied to the model; where it cannot be registered (a server of that name
that is not msd's, a file that does not parse) the rows stay command hooks with one warning; a
local install never registers it; the entry is written and taken out as a step of the install's
or uninstall's transaction, so a failed or interrupted one gives the file back byte for byte; status says when the rows call a server that is gone."""

from __future__ import annotations

import json

import pytest

from msd_core.errors import MsdError
from msd_core.files import txn
from msd_core.install import guard_server_setup as gs
from msd_core.install import host_hooks
from msd_core.install.health import status
from msd_core.install.installer import install
from msd_core.install.uninstaller import uninstall
from msd_core.paths import resolve_target

USER_SERVERS = b'{\r\n    "numStartups": 4,\r\n    "mcpServers": {\r\n        "db": {"type": "stdio", "command": "db-mcp", "args": [], "env": {}}\r\n    }\r\n}\r\n'


@pytest.fixture
def target(tmp_path):
    return resolve_target("global", tmp_path / "cfg")


def servers_path(t):
    return t.config / ".claude.json"  # a config folder other than ~/.claude keeps its own (mcp/setup.py host_files)


def guard_rows(t) -> list[dict]:
    obj = json.loads((t.config / "settings.json").read_text())
    return [h for g in obj["hooks"]["PreToolUse"] for h in g["hooks"]]


def denied(t) -> bool:
    return gs.PERMISSION in json.loads((t.config / "settings.json").read_text()).get("permissions", {}).get("deny", [])


def test_global_install_registers_the_server_beside_the_users_and_uninstall_gives_both_files_back(target, runner, fixture_content):
    target.config.mkdir()
    servers_path(target).write_bytes(USER_SERVERS)
    settings = target.config / "settings.json"
    before = b'{\n  "permissions": {\n    "deny": ["Bash(rm -rf *)"]\n  },\n  "theme": "dark"\n}\n'
    settings.write_bytes(before)
    res = install(target, source=fixture_content)
    assert res.data["guard_server"]["action"] == "added" and res.data["hooks"]["guards"].startswith("guard server")
    obj = json.loads(servers_path(target).read_text())
    assert obj["mcpServers"]["db"]["command"] == "db-mcp" and obj["numStartups"] == 4
    assert obj["mcpServers"][gs.SERVER] == gs.entry(str(target.config / "msd-core"))
    assert servers_path(target).read_bytes().startswith(USER_SERVERS[:USER_SERVERS.index(b'"db"')])  # only msd's bytes added
    assert b"\r\n" in servers_path(target).read_bytes()[len(USER_SERVERS) - 40:]
    rows = guard_rows(target)
    assert {(h["type"], h["server"], h["tool"]) for h in rows} == {("mcp_tool", gs.SERVER, gs.TOOL)}
    assert all(h["input"] == host_hooks.GUARD_INPUT for h in rows)
    assert json.loads(settings.read_text())["permissions"]["deny"] == ["Bash(rm -rf *)", gs.PERMISSION]
    assert status(cwd=target.config, config_dir=target.config).data["installs"][0]["hooks"]["ok"] is True
    again = install(target, source=fixture_content)
    assert again.data["guard_server"]["action"] == "unchanged" and not again.data["changed"]
    out = uninstall(target)
    assert out.data["guard_server"]["action"] == "removed"
    assert servers_path(target).read_bytes() == USER_SERVERS
    assert settings.read_bytes() == before


def test_a_file_msd_created_goes_with_uninstall(target, runner, fixture_content):
    install(target, source=fixture_content)
    assert servers_path(target).is_file() and denied(target)
    uninstall(target)
    assert not servers_path(target).exists()
    assert not (target.config / "settings.json").exists()


def test_the_host_may_write_the_file_meanwhile_and_keeps_its_keys(target, runner, fixture_content):
    install(target, source=fixture_content)
    obj = json.loads(servers_path(target).read_text())
    obj["numStartups"] = 9
    obj["projects"] = {"/p": {"allowedTools": []}}
    servers_path(target).write_text(json.dumps(obj, indent=2))
    uninstall(target)
    assert json.loads(servers_path(target).read_text()) == {"numStartups": 9, "projects": {"/p": {"allowedTools": []}}}


@pytest.mark.parametrize("bad", ["foreign", "malformed"])
def test_where_the_server_cannot_be_registered_the_rows_stay_command_hooks(target, runner, fixture_content, bad):
    target.config.mkdir()
    data = (b'{"mcpServers": {"msd-guard": {"type": "stdio", "command": "their-guard", "args": [], "env": {}}}}\n'
            if bad == "foreign" else b'{"mcpServers": {,}\n')
    servers_path(target).write_bytes(data)
    res = install(target, source=fixture_content)
    assert res.data["guard_server"] == {"action": "not used"}
    assert any("start a process per guarded call" in w for w in res.warnings), res.warnings
    assert {h["type"] for h in guard_rows(target)} == {"command"} and not denied(target)
    assert servers_path(target).read_bytes() == data  # theirs (or the broken file) untouched
    uninstall(target)
    assert servers_path(target).read_bytes() == data


def test_a_local_install_keeps_command_rows_and_registers_nothing(tmp_path, runner, fixture_content):
    project = tmp_path / "proj"
    project.mkdir()
    t = resolve_target("local", project / ".claude")
    res = install(t, source=fixture_content)
    assert res.data["guard_server"] == {"action": "not used"}
    obj = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert {h["type"] for g in obj["hooks"]["PreToolUse"] for h in g["hooks"]} == {"command"}
    assert "permissions" not in obj
    assert not list(tmp_path.rglob(".claude.json"))


def test_a_failed_transaction_takes_the_server_it_added_back_out(target, runner, fixture_content, monkeypatch):
    target.config.mkdir()
    servers_path(target).write_bytes(USER_SERVERS)

    def fail(*_a, **_k):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:  # this test's own patch only: the HOME isolation stays
        m.setattr(txn, "apply", fail)
        with pytest.raises(MsdError, match="disk is full"):
            install(target, source=fixture_content)
    assert servers_path(target).read_bytes() == USER_SERVERS


def test_a_failed_uninstall_puts_the_server_back(target, runner, fixture_content, monkeypatch):
    install(target, source=fixture_content)
    registered = servers_path(target).read_bytes()

    def fail(*_a, **_k):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:  # this test's own patch only: the HOME isolation stays
        m.setattr(txn, "apply", fail)
        with pytest.raises(Exception):
            uninstall(target)
    assert json.loads(servers_path(target).read_bytes()) == json.loads(registered)
    assert {h["type"] for h in guard_rows(target)} == {"mcp_tool"}
    out = uninstall(target)
    assert not servers_path(target).exists(), (out.data.get("guard_server"), servers_path(target).read_text())


@pytest.mark.parametrize("stop", [".claude.json", "manifest.json"])
@pytest.mark.parametrize("blank", [None, b"", b"\n"])
def test_an_install_interrupted_at_or_after_the_entry_leaves_nothing_half_done(
        target, runner, fixture_content, monkeypatch, blank, stop):
    """The entry is one step of the install's transaction, right before the manifest: an install
    stopped as the entry is written, or after it, rolls back with everything else (the before-image,
    an empty file included, comes back byte for byte, with its mode: no rows calling a server that is
    not registered), and the next install then makes the whole install."""
    import os

    target.config.mkdir()
    before = USER_SERVERS if blank is None else blank
    servers_path(target).write_bytes(before)
    os.chmod(servers_path(target), 0o640)
    real = os.replace

    def stop_there(src, dst, *a, **k):
        if str(dst).endswith(stop):
            raise KeyboardInterrupt
        return real(src, dst, *a, **k)

    with monkeypatch.context() as m:  # this test's own patch only: the HOME isolation stays
        m.setattr(os, "replace", stop_there)
        with pytest.raises(KeyboardInterrupt):
            install(target, source=fixture_content)
    assert servers_path(target).read_bytes() == before and (servers_path(target).stat().st_mode & 0o777) == 0o640
    assert not (target.config / "settings.json").exists() and not txn.pending(target.config)
    res = install(target, source=fixture_content)
    assert res.data["guard_server"]["action"] == "added" and gs.registered(target)
    uninstall(target)
    assert servers_path(target).read_bytes() == before


def test_what_a_killed_writer_left_beside_the_file_goes_with_the_next_run(target, runner, fixture_content):
    import os
    import time

    install(target, source=fixture_content)
    lock = target.config / ".claude.json.lock"
    lock.mkdir()
    temp = target.config / "..claude.json.999999999-deadbeef.msd-tmp"  # a write of a pid that cannot be alive
    temp.write_text("{half")
    old = time.time() - 60
    os.utime(lock, (old, old))
    assert install(target, source=fixture_content).data["guard_server"]["action"] == "unchanged"
    assert not lock.exists() and not temp.exists()
    fresh = target.config / ".claude.json.lock"
    fresh.mkdir()  # a live writer's lock (fresh) is the host's: left alone
    install(target, source=fixture_content)
    assert fresh.exists()
    fresh.rmdir()


def test_status_says_when_the_rows_call_a_server_that_is_gone(target, runner, fixture_content):
    install(target, source=fixture_content)
    obj = json.loads(servers_path(target).read_text())
    del obj["mcpServers"][gs.SERVER]
    servers_path(target).write_text(json.dumps(obj))
    hooks = status(cwd=target.config, config_dir=target.config).data["installs"][0]["hooks"]
    assert hooks["ok"] is False and "msd's guards are off" in hooks["problem"] and gs.SERVER in hooks["problem"]
    install(target, source=fixture_content)  # the fix status names
    assert status(cwd=target.config, config_dir=target.config).data["installs"][0]["hooks"]["ok"] is True


def test_status_says_when_the_servers_tool_is_offered_to_the_model(target, runner, fixture_content):
    install(target, source=fixture_content)
    settings = target.config / "settings.json"
    obj = json.loads(settings.read_text())
    obj["permissions"]["deny"].remove(gs.PERMISSION)
    settings.write_text(json.dumps(obj))
    hooks = status(cwd=target.config, config_dir=target.config).data["installs"][0]["hooks"]
    assert hooks["ok"] is False and gs.PERMISSION in hooks["problem"]


def test_status_says_when_the_servers_python_is_gone(target, runner, fixture_content):
    install(target, source=fixture_content)
    obj = json.loads(servers_path(target).read_text())
    obj["mcpServers"][gs.SERVER]["command"] = str(target.config / "no-such-python")
    servers_path(target).write_text(json.dumps(obj))
    hooks = status(cwd=target.config, config_dir=target.config).data["installs"][0]["hooks"]
    assert hooks["ok"] is False and "msd's guards are off" in hooks["problem"] and "no-such-python does not exist" in hooks["problem"]


def test_the_entry_is_recognised_only_by_its_start(target):
    entry = gs.entry("/r")
    assert gs.is_ours(entry)
    for other in ({**entry, "args": entry["args"][:4] + ["hook", "pre-tool-use"]}, {**entry, "args": ["-m", "x"]},
                  {"command": "their-guard"}, None, "msd-guard"):
        assert not gs.is_ours(other)


def test_an_empty_claude_json_in_home_stays_empty_through_install_and_uninstall(tmp_path, runner, fixture_content):
    """~/.claude.json of 0 bytes: a local install and its uninstall never touch it; a global install
    adds the guard server's entry and its uninstall gives the 0 bytes back, ~/.claude with it."""
    import os
    from pathlib import Path

    home = Path(os.environ["HOME"])
    claude_json = home / ".claude.json"
    claude_json.write_bytes(b"")
    project = tmp_path / "proj"
    project.mkdir()
    local = resolve_target("local", project_dir=project)
    install(local, source=fixture_content)
    uninstall(local)
    assert claude_json.read_bytes() == b""
    glob = resolve_target("global")
    assert glob.config == home / ".claude" and not glob.config.exists()
    install(glob, source=fixture_content)
    assert gs.registered(glob) and gs.servers_file(glob) == claude_json
    uninstall(glob)
    assert claude_json.read_bytes() == b"" and not glob.config.exists()


def test_an_uninstall_stopped_after_its_transaction_is_finished_by_the_next(tmp_path, runner, fixture_content, monkeypatch):
    """Stopped after its transaction (here: as it lets go of its lock), an uninstall of a ~/.claude
    msd created leaves msd's marker in it, so the next uninstall removes the folder: no empty
    ~/.claude is left behind, and ~/.claude.json is as it was before the install."""
    import os
    from pathlib import Path

    from msd_core.install.lock import LOCK_NAME

    home = Path(os.environ["HOME"])
    (home / ".claude.json").write_bytes(USER_SERVERS)
    glob = resolve_target("global")
    install(glob, source=fixture_content)
    real_unlink, real_close, released = os.unlink, os.close, []

    def unlink(path, *a, **k):
        real_unlink(path, *a, **k)
        if str(path).endswith(LOCK_NAME):
            released.append(path)

    def close(fd):
        real_close(fd)
        if released:  # the lock's file descriptor: the lock is let go, then the run stops
            raise KeyboardInterrupt

    with monkeypatch.context() as m:  # this test's own patch only: the HOME isolation stays
        m.setattr(os, "unlink", unlink)
        m.setattr(os, "close", close)
        with pytest.raises(KeyboardInterrupt):
            uninstall(glob)
    assert (home / ".claude.json").read_bytes() == USER_SERVERS
    assert glob.config.is_dir() and not (glob.config / "msd-core").exists()
    uninstall(glob)
    assert not glob.config.exists()
