"""`msd mcp install|uninstall --client copilot|kimi`: msd's entry in Copilot CLI's or Kimi Code's own
file (msd_core/mcp/clients.py), the user's entries kept byte for byte, no permission file, and the
same entry `copilot mcp add` writes. The real CLIs reading it: tests/runtimes/test_mcp_clients_cli.py."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

VENV_BIN = str(Path(sys.executable).parent)
MSD = str(Path(VENV_BIN, "msd"))
# a user's own file as each client writes it (Copilot: `copilot mcp add` output; Kimi: hand-written, CRLF)
OWN = {"copilot": '{\n  "mcpServers": {\n    "ctx": {\n      "tools": [\n        "*"\n      ],\n      "type": "local",\n'
                  '      "command": "npx",\n      "args": [\n        "ctx-mcp"\n      ]\n    }\n  }\n}\n',
       "kimi": '{"mcpServers": {"web": {"url": "https://example.invalid/mcp"}}}\r\n'}
FILE = {"copilot": (".copilot", "mcp-config.json", "COPILOT_HOME"), "kimi": (".kimi-code", "mcp.json", "KIMI_CODE_HOME")}
ENTRY = {"copilot": {"type": "local", "command": MSD, "args": ["mcp"], "tools": ["*"]},
         "kimi": {"command": MSD, "args": ["mcp"]}}


def _env(**extra):
    return {"PATH": VENV_BIN + os.pathsep + os.environ["PATH"], **extra}


@pytest.mark.parametrize("client", sorted(FILE))
def test_user_scope_adds_msds_entry_and_uninstall_gives_the_file_back(msd, tmp_path, client):
    folder, name, _var = FILE[client]
    path = Path(os.environ["HOME"]) / folder / name
    path.parent.mkdir(parents=True)
    path.write_bytes(OWN[client].encode())
    r = msd(["mcp", "install", "--scope", "user", "--client", client, "--json"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["server"]["path"] == str(path) and out["server"]["action"] == "added"
    assert out["permission"]["path"] is None  # no permission file: the client asks
    servers = json.loads(path.read_text())["mcpServers"]
    assert servers["msd"] == ENTRY[client]
    assert list(servers) == [*json.loads(OWN[client])["mcpServers"], "msd"]
    assert not (Path(os.environ["HOME"]) / ".claude.json").exists()  # Claude's file untouched
    again = msd(["mcp", "install", "--scope", "user", "--client", client, "--json"], env=_env(), cwd=tmp_path)
    assert json.loads(again.stdout)["server"]["action"] == "unchanged"
    r = msd(["mcp", "uninstall", "--scope", "user", "--client", client], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert path.read_bytes() == OWN[client].encode()


@pytest.mark.parametrize("client", sorted(FILE))
def test_the_clients_home_variable_names_the_folder_and_a_file_msd_made_goes(msd, tmp_path, client):
    _folder, name, var = FILE[client]
    home = tmp_path / "client-home"
    r = msd(["mcp", "install", "--scope", "user", "--client", client], env=_env(**{var: str(home)}), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads((home / name).read_text()) == {"mcpServers": {"msd": ENTRY[client]}}
    r = msd(["mcp", "uninstall", "--scope", "user", "--client", client], env=_env(**{var: str(home)}), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert not (home / name).exists()


@pytest.mark.parametrize("client", sorted(FILE))
def test_project_scope_is_the_shared_mcp_json_without_claudes_permission(msd, tmp_path, client):
    r = msd(["mcp", "install", "--scope", "project", "--client", client, "--cwd", str(tmp_path)], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["msd"]["args"] == ["mcp"]
    assert not (tmp_path / ".claude").exists()
    assert "trust" in r.stdout.lower()  # both clients start a project's servers only in a trusted folder


def test_a_server_named_msd_that_is_not_msds_is_left_alone(msd, tmp_path):
    path = Path(os.environ["HOME"]) / ".kimi-code" / "mcp.json"
    path.parent.mkdir(parents=True)
    own = '{"mcpServers": {"msd": {"command": "my-own-msd"}}}'
    path.write_text(own)
    r = msd(["mcp", "install", "--scope", "user", "--client", "kimi"], env=_env(), cwd=tmp_path)
    assert r.returncode == 1 and "not msd-core's" in r.stderr
    assert f"remove mcpServers.msd from {path} first" in r.stderr  # Kimi's own file, not Claude's command
    assert path.read_text() == own


def test_an_unknown_client_is_one_line_naming_the_choices(msd, tmp_path):
    r = msd(["mcp", "install", "--client", "cursor"], env=_env(), cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "msd: error: argument --client: 'cursor' is not one of claude, copilot, kimi, gemini, codex, opencode"]


@pytest.mark.parametrize("client", sorted(FILE))
def test_msd_uninstall_of_the_clients_global_install_takes_its_registration_out(msd, tmp_path, client):
    """`msd uninstall --runtime copilot|kimi --global` removes msd's entry from that client's user file
    (as `msd uninstall --global` does from ~/.claude.json); the user's own entries stay byte for byte."""
    folder, name, _var = FILE[client]
    path = Path(os.environ["HOME"]) / folder / name
    path.parent.mkdir(parents=True)
    path.write_bytes(OWN[client].encode())
    assert msd(["install", "--global", "--runtime", client], env=_env(), cwd=tmp_path).returncode == 0
    assert msd(["mcp", "install", "--scope", "user", "--client", client], env=_env(), cwd=tmp_path).returncode == 0
    assert "msd" in json.loads(path.read_text())["mcpServers"]
    r = msd(["uninstall", "--global", "--runtime", client, "--json"], env=_env(), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["mcp"]["server"]["action"] == "removed"
    assert path.read_bytes() == OWN[client].encode()
