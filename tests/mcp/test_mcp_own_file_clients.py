"""`msd mcp install|uninstall --client gemini|codex|opencode`: msd's entry in each client's own file
(msd_core/mcp/clients.py; Codex's TOML: msd_core/mcp/toml_table.py), the user's bytes kept and given
back byte for byte, a foreign `msd` or a damaged file refused untouched with one line naming the way
forward, and `msd status` naming each registration. The real CLIs reading the entries:
tests/runtimes/test_mcp_own_file_clients_cli.py."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from msd_core.files import tomlread

pytest.importorskip("mcp", reason="the mcp extra is not installed")

VENV_BIN = str(Path(sys.executable).parent)
MSD = str(Path(VENV_BIN, "msd"))
CLIENTS = ("gemini", "codex", "opencode")
# each client's user file under HOME, and a user's own content as that client allows it (comments,
# CRLF, a trailing comma, no final newline)
USER_FILE = {"gemini": ".gemini/settings.json", "codex": ".codex/config.toml", "opencode": ".config/opencode/opencode.json"}
PROJECT_FILE = {"gemini": ".gemini/settings.json", "codex": ".codex/config.toml", "opencode": "opencode.json"}
OWN = {"gemini": '{\r\n  // my theme\r\n  "ui": {"theme": "Dracula"},\r\n'
                 '  "mcpServers": {"web": {"httpUrl": "https://example.invalid/mcp"}}\r\n}\r\n',
       "codex": '# my Codex\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["docs-mcp"]\n\n'
                '[profiles.fast]\nmodel = "o4-mini"',
       "opencode": '{\n  "$schema": "https://opencode.ai/config.json",\n  // mine\n  "mcp": {\n'
                   '    "web": {"type": "remote", "url": "https://example.invalid/mcp"},\n  },\n}\n'}
ENTRY = {"gemini": {"command": MSD, "args": ["mcp"]},
         "codex": {"command": MSD, "args": ["mcp"], "default_tools_approval_mode": "approve"},
         "opencode": {"type": "local", "command": [MSD, "mcp"]}}
VAR = {"gemini": ("GEMINI_CLI_HOME", ".gemini/settings.json"), "codex": ("CODEX_HOME", "config.toml"),
       "opencode": ("OPENCODE_CONFIG_DIR", "opencode.json")}


def _env(**extra):
    return {"PATH": VENV_BIN + os.pathsep + os.environ["PATH"], **extra}


def _home() -> Path:
    return Path(os.environ["HOME"])


def _servers(client: str, path: Path) -> dict:
    text = path.read_text()
    if client == "codex":
        return tomlread.loads(text)["mcp_servers"]
    from msd_core.files.jsonedit import loads

    return loads(text)["mcpServers" if client == "gemini" else "mcp"]


def _own(client: str, path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(OWN[client].encode())
    return OWN[client].encode()


@pytest.mark.parametrize("client", CLIENTS)
def test_user_scope_adds_msds_entry_and_uninstall_gives_the_file_back(msd, tmp_path, client):
    path = _home() / USER_FILE[client]
    own = _own(client, path)
    r = msd(["mcp", "install", "--scope", "user", "--client", client, "--json"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["server"]["path"] == str(path) and out["server"]["action"] == "added"
    assert out["permission"]["path"] is None
    servers = _servers(client, path)
    assert servers["msd"] == ENTRY[client]
    assert list(servers)[:-1] == ["docs" if client == "codex" else "web"]  # the user's server kept, first
    if client == "codex":  # appended after the user's last byte, never re-serialised
        assert path.read_bytes().startswith(own)
    else:
        assert b"// m" in path.read_bytes()  # the comment stays
    again = msd(["mcp", "install", "--scope", "user", "--client", client, "--json"], env=_env(), cwd=tmp_path)
    assert json.loads(again.stdout)["server"]["action"] == "unchanged"
    r = msd(["mcp", "uninstall", "--scope", "user", "--client", client], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert path.read_bytes() == own
    assert not (_home() / ".claude.json").exists()  # Claude's file untouched


@pytest.mark.parametrize("client", CLIENTS)
def test_the_clients_home_variable_names_the_folder_and_a_file_msd_made_goes(msd, tmp_path, client):
    var, rel = VAR[client]
    home = tmp_path / "client-home"
    home.mkdir()
    r = msd(["mcp", "install", "--scope", "user", "--client", client], env=_env(**{var: str(home)}), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert _servers(client, home / rel) == {"msd": ENTRY[client]}
    r = msd(["mcp", "uninstall", "--scope", "user", "--client", client], env=_env(**{var: str(home)}), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert not (home / rel).exists()


@pytest.mark.parametrize("client", CLIENTS)
def test_config_dir_names_the_clients_folder(msd, tmp_path, client):
    folder = tmp_path / "elsewhere"
    r = msd(["mcp", "install", "--scope", "user", "--client", client, "--config-dir", str(folder), "--json"],
            env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    name = {"gemini": "settings.json", "codex": "config.toml", "opencode": "opencode.json"}[client]
    assert json.loads(r.stdout)["server"]["path"] == str(folder / name)
    assert "msd" in _servers(client, folder / name)


@pytest.mark.parametrize("client", CLIENTS)
def test_project_scope_is_the_clients_own_project_file(msd, tmp_path, client):
    r = msd(["mcp", "install", "--scope", "project", "--client", client, "--cwd", str(tmp_path), "--json"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    path = tmp_path / PROJECT_FILE[client]
    assert json.loads(r.stdout)["server"]["path"] == str(path)
    relative = {"command": ["msd", "mcp"]} if client == "opencode" else {"command": "msd"}  # `msd` on PATH: a shared file
    assert _servers(client, path)["msd"] == {**ENTRY[client], **relative}
    assert not (tmp_path / ".mcp.json").exists()  # none of the three reads it
    if client != "opencode":  # Gemini and Codex start a project's servers only in a trusted folder
        assert "trust" in json.loads(r.stdout)["note"]
    r = msd(["mcp", "uninstall", "--scope", "project", "--client", client, "--cwd", str(tmp_path)], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert not path.exists()


def test_opencode_uses_the_jsonc_file_the_user_has(msd, tmp_path):
    """OpenCode's own `mcp add` edits the first of opencode.json, opencode.jsonc (then .opencode/...) that
    exists; msd does the same instead of making a second file."""
    project = tmp_path / "p"
    (project / ".opencode").mkdir(parents=True)
    own = (project / ".opencode" / "opencode.jsonc")
    own.write_text('{\n  // mine\n  "model": "x"\n}\n')
    r = msd(["mcp", "install", "--scope", "project", "--client", "opencode", "--cwd", str(project), "--json"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["server"]["path"] == str(own)
    assert not (project / "opencode.json").exists()


@pytest.mark.parametrize("client", CLIENTS)
def test_a_server_named_msd_that_is_not_msds_is_left_alone(msd, tmp_path, client):
    path = _home() / USER_FILE[client]
    path.parent.mkdir(parents=True)
    own = {"gemini": '{"mcpServers": {"msd": {"command": "my-own-msd"}}}',
           "codex": '[mcp_servers.msd]\ncommand = "my-own-msd"\n',
           "opencode": '{"mcp": {"msd": {"type": "local", "command": ["my-own-msd"]}}}'}[client]
    path.write_text(own)
    r = msd(["mcp", "install", "--scope", "user", "--client", client], env=_env(), cwd=tmp_path)
    assert r.returncode == 1 and "not msd-core's" in r.stderr
    where = {"gemini": "mcpServers.msd", "codex": "[mcp_servers.msd]", "opencode": "mcp.msd"}[client]
    assert f"remove {where} from {path} first" in r.stderr
    assert path.read_text() == own
    r = msd(["mcp", "uninstall", "--scope", "user", "--client", client, "--json"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["server"]["action"] in ("absent", "unchanged")
    assert path.read_text() == own


@pytest.mark.parametrize("client", CLIENTS)
def test_a_file_that_does_not_parse_is_left_untouched(msd, tmp_path, client):
    path = _home() / USER_FILE[client]
    path.parent.mkdir(parents=True)
    bad = '[mcp_servers.x\ncommand = "y"\n' if client == "codex" else '{"mcpServers": {'
    path.write_text(bad)
    r = msd(["mcp", "install", "--scope", "user", "--client", client], env=_env(), cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    line = r.stderr.strip().splitlines()[0]
    assert str(path) in line and "does not parse" in line and "left untouched" in line
    assert path.read_text() == bad


def test_a_codex_config_nested_too_deep_is_refused_through_the_bounded_reader(msd, tmp_path):
    path = _home() / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    deep = "x = " + "[" * 50_000 + "]" * 50_000 + "\n"
    path.write_text(deep)
    r = msd(["mcp", "install", "--scope", "user", "--client", "codex"], env=_env(), cwd=tmp_path)
    assert r.returncode in (1, 2), r.stderr
    assert "Traceback" not in r.stderr and "RecursionError" not in r.stderr
    assert str(path) in r.stderr and "nested" in r.stderr
    assert path.read_text() == deep
    s = msd(["status", "--json"], env=_env(), cwd=tmp_path)
    codex = [m for m in json.loads(s.stdout)["mcp"] if m.get("client") == "codex"]
    assert codex and "nested" in codex[0]["error"]


def test_an_inline_mcp_servers_table_is_refused_untouched(msd, tmp_path):
    """TOML cannot add a [mcp_servers.msd] table to an inline `mcp_servers = {...}`: msd checks the
    appended text parses before it writes."""
    path = _home() / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    own = 'mcp_servers = { docs = { command = "npx" } }\n'
    path.write_text(own)
    r = msd(["mcp", "install", "--scope", "user", "--client", "codex"], env=_env(), cwd=tmp_path)
    assert r.returncode == 1
    assert "msd's [mcp_servers.msd] table would not parse there" in r.stderr
    assert path.read_text() == own


def test_codex_lines_the_user_added_after_msds_table_stay_on_uninstall(msd, tmp_path):
    path = _home() / ".codex" / "config.toml"
    own = _own("codex", path)
    assert msd(["mcp", "install", "--client", "codex"], env=_env(), cwd=tmp_path).returncode == 0
    later = b'\n[profiles.slow]\nmodel = "o3"\n'
    path.write_bytes(path.read_bytes() + later)
    r = msd(["mcp", "uninstall", "--client", "codex"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert path.read_bytes() == own + later


def test_codex_a_table_the_user_edited_is_refused_on_uninstall(msd, tmp_path):
    path = _home() / ".codex" / "config.toml"
    _own("codex", path)
    assert msd(["mcp", "install", "--client", "codex"], env=_env(), cwd=tmp_path).returncode == 0
    edited = path.read_text().replace('default_tools_approval_mode = "approve"', 'default_tools_approval_mode = "prompt"')
    path.write_text(edited)
    r = msd(["mcp", "uninstall", "--client", "codex"], env=_env(), cwd=tmp_path)
    assert r.returncode == 1
    assert "no longer holds msd's [mcp_servers.msd] table as msd wrote it" in r.stderr
    assert path.read_text() == edited


def test_status_names_each_clients_registration_and_says_nothing_of_the_others(msd, tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    (_home() / ".gemini").mkdir()
    (_home() / ".gemini" / "settings.json").write_text('{"ui": {}}')  # a Gemini file without msd: no line
    assert msd(["mcp", "install", "--client", "codex"], env=_env(), cwd=project).returncode == 0
    r = msd(["mcp", "install", "--client", "opencode", "--scope", "project", "--cwd", str(project)], env=_env(), cwd=project)
    assert r.returncode == 0, r.stderr
    assert msd(["mcp", "install", "--client", "kimi"], env=_env(), cwd=project).returncode == 0
    s = msd(["status", "--json"], env=_env(), cwd=project)
    found = {(m.get("client", "claude"), m["scope"]): m for m in json.loads(s.stdout)["mcp"]}
    assert set(found) == {("claude", "user"), ("claude", "project"), ("codex", "user"), ("opencode", "project"), ("kimi", "user")}
    assert found["codex", "user"]["registered"] and found["codex", "user"]["path"] == str(_home() / ".codex" / "config.toml")
    assert found["opencode", "project"]["path"] == str(project / "opencode.json")
    human = msd(["status"], env=_env(COLUMNS="300"), cwd=project).stdout
    lines = [line for line in human.splitlines() if line.startswith("MCP server for")]
    assert sorted(lines) == sorted([f"MCP server for Codex CLI (user scope, {_home() / '.codex' / 'config.toml'}): registered",
                                    f"MCP server for OpenCode (project scope, {project / 'opencode.json'}): registered",
                                    f"MCP server for Kimi Code (user scope, {_home() / '.kimi-code' / 'mcp.json'}): registered"])


@pytest.mark.parametrize("client", CLIENTS)
def test_msd_uninstall_of_the_clients_global_install_takes_its_registration_out(msd, tmp_path, client):
    path = _home() / USER_FILE[client]
    own = _own(client, path)
    assert msd(["mcp", "install", "--scope", "user", "--client", client], env=_env(), cwd=tmp_path).returncode == 0
    assert msd(["install", "--global", "--runtime", client], env=_env(), cwd=tmp_path).returncode == 0
    r = msd(["uninstall", "--global", "--runtime", client, "--json"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["mcp"]["server"]["action"] == "removed"
    assert path.read_bytes() == own


def test_codex_a_moved_msd_replaces_msds_own_table_and_uninstall_still_gives_the_file_back(msd, tmp_path):
    """The entry names msd's absolute path: after msd moved, install replaces the table it wrote (one
    table, the user's bytes around it untouched) and uninstall still restores the file."""
    path = _home() / ".codex" / "config.toml"
    own = _own("codex", path)
    other = tmp_path / "other-bin"
    other.mkdir()
    (other / "msd").symlink_to(MSD)
    first = msd(["mcp", "install", "--client", "codex"], env={"PATH": str(other) + os.pathsep + _env()["PATH"]}, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert _servers("codex", path)["msd"]["command"] == str(other / "msd")
    r = msd(["mcp", "install", "--client", "codex", "--json"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["server"]["action"] == "updated"
    assert _servers("codex", path)["msd"] == ENTRY["codex"]
    assert path.read_text().count("[mcp_servers.msd]") == 1 and path.read_bytes().startswith(own)
    assert msd(["mcp", "uninstall", "--client", "codex"], env=_env(), cwd=tmp_path).returncode == 0
    assert path.read_bytes() == own
