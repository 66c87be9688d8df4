"""Issue 29 item 2: other programs' files come back byte for byte.

Every file msd edits but does not own -- settings.json (global install, and msd mcp's permission),
settings.local.json (local install), ~/.claude.json (msd mcp --scope user), .mcp.json (--scope
project), opencode.json -- holding a user's file in each awkward form (CRLF, a BOM, tabs, number
spellings, escapes, duplicate keys, inline objects, empty containers of their own; comments and
trailing commas where the format allows them): install then uninstall leaves it byte-identical;
an edit the user makes in between survives with only msd's bytes taken out; a file msd created
is removed once nothing but msd's entry was ever in it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from msd_core.install.installer import install
from msd_core.install.source import ContentSource
from msd_core.install.uninstaller import uninstall
from msd_core.paths import resolve_target

BOM = b"\xef\xbb\xbf"
USER_FILES = {
    "crlf-bom-dupes-escapes-numbers": BOM + (
        b'{\r\n  "model": "x", "n": 1.50e3, "big": 12345678901234567890, "s": "caf\\u00e9 \\/ \\"q\\"",\r\n'
        b'  "permissions": {"allow": ["Read"], "allow": ["Bash(ls)"]},\r\n'
        b'  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}\r\n}\r\n'),
    "tabs-no-final-newline": b'{\n\t"theme": "dark",\n\t"permissions": {\n\t\t"allow": [\n\t\t\t"Read"\n\t\t]\n\t}\n}',
    "one-line": b'{"model":"x","permissions":{"deny":[]},"mcpServers":{}}',
    "their-empty-containers": b'{\n  "permissions": {},\n  "hooks": {\n  },\n  "mcpServers": {}\n}\n',
    "empty-object": b"{}",
    # the user's own guards on the events and matchers msd's rows use (issue 35): msd's groups go after theirs
    "their-tool-hooks": (
        b'{\n  "hooks": {\n    "PreToolUse": [\n      {"matcher": "Read", "hooks": [{"type": "command", "command": "my-read-guard"}]},\n'
        b'      {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-bash-guard", "if": "Bash(rm *)"}]}\n    ],\n'
        b'    "PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "fmt"}]}]\n  }\n}\n'),
    "claude-code-style": json.dumps({"numStartups": 3, "tipsHistory": {"ü-tip": 2}, "projects": {"/x": {"allowedTools": []}}},
                                    indent=2, ensure_ascii=False).encode(),
}
JSONC_FILES = {
    "comments-and-trailing-commas": b'{\n  // mine: keep\n  "model": "anthropic/x", /* and this */\n  "permission": {"edit": "ask",},\n}\n',
    "crlf-bom": BOM + b'{\r\n  "permission": {\r\n    "bash": {\r\n      "git *": "ask"\r\n    }\r\n  }\r\n}\r\n',
    **{k: v for k, v in USER_FILES.items() if k in ("one-line", "empty-object")},
}


@pytest.fixture(autouse=True)
def _msd_run_beside_msd(runner):
    """Every test here installs with an msd_run beside msd (tests/install/conftest.py)."""


@pytest.fixture
def content(fixture_content) -> ContentSource:
    return fixture_content


# a change a person makes by hand in each form that has a value to change
EDITS = {"crlf-bom-dupes-escapes-numbers": (b'"model": "x"', b'"model": "y"'),
         "tabs-no-final-newline": (b'"theme": "dark"', b'"theme": "light"'),
         "one-line": (b'"model":"x"', b'"model":"y"'),
         "claude-code-style": (b'"numStartups": 3', b'"numStartups": 4')}


@pytest.mark.parametrize("name", sorted(USER_FILES))
def test_global_install_and_uninstall_give_settings_json_back(tmp_path, content, name):
    t = resolve_target("global", tmp_path / "cfg")
    t.config.mkdir()
    settings = t.config / "settings.json"
    settings.write_bytes(USER_FILES[name])
    install(t, source=content)
    assert settings.read_bytes() != USER_FILES[name] and b"msd_run" in settings.read_bytes()
    if USER_FILES[name].startswith(BOM):
        assert settings.read_bytes().startswith(BOM)
    install(t, source=content)  # an update writes nothing new
    uninstall(t)
    assert settings.read_bytes() == USER_FILES[name]


@pytest.mark.parametrize("name", sorted(EDITS))
def test_a_user_edit_between_install_and_uninstall_keeps_every_byte_of_theirs(tmp_path, content, name):
    old, new = EDITS[name]
    t = resolve_target("global", tmp_path / "cfg")
    t.config.mkdir()
    settings = t.config / "settings.json"
    settings.write_bytes(USER_FILES[name])
    install(t, source=content)
    assert settings.read_bytes().count(old) == 1
    settings.write_bytes(settings.read_bytes().replace(old, new))  # no byte restore possible now
    uninstall(t)
    assert settings.read_bytes() == USER_FILES[name].replace(old, new)


@pytest.mark.parametrize("name", sorted(USER_FILES))
def test_local_install_and_uninstall_give_both_settings_files_back(tmp_path, content, name):
    t = resolve_target("local", project_dir=tmp_path / "proj")
    t.config.mkdir(parents=True)
    local, shared = t.config / "settings.local.json", t.config / "settings.json"
    local.write_bytes(USER_FILES[name])
    shared.write_bytes(USER_FILES[name])
    install(t, source=content)
    assert b"msd_run" in local.read_bytes() and b"Bash(msd_run *)" in shared.read_bytes()
    uninstall(t)
    assert local.read_bytes() == USER_FILES[name] and shared.read_bytes() == USER_FILES[name]


def test_files_an_install_created_are_removed_by_its_uninstall(tmp_path, content):
    t = resolve_target("local", project_dir=tmp_path / "proj")
    install(t, source=content)
    assert (t.config / "settings.local.json").exists() and (t.config / "settings.json").exists()
    uninstall(t)
    assert not t.config.exists()


# --- msd mcp install / uninstall -------------------------------------------------------------

pytest_mcp = pytest.importorskip("mcp", reason="the mcp extra is not installed")


def _mcp(action: str, scope: str, **where) -> dict:
    from msd_core.mcp import setup

    return getattr(setup, action)(scope, **where)


@pytest.mark.parametrize("name", sorted(USER_FILES))
def test_mcp_user_scope_gives_claude_json_and_settings_back(tmp_path, name):
    home = Path(os.environ["HOME"])
    claude_json, settings = home / ".claude.json", home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    claude_json.write_bytes(USER_FILES[name])
    settings.write_bytes(USER_FILES[name])
    out = _mcp("install", "user")
    assert out["server"]["action"] == "added" and out["permission"]["action"] == "added"
    assert json.loads(claude_json.read_bytes().lstrip(BOM))["mcpServers"]["msd"]["args"][-1] == "mcp"
    _mcp("uninstall", "user")
    assert claude_json.read_bytes() == USER_FILES[name] and settings.read_bytes() == USER_FILES[name]


@pytest.mark.parametrize("name", sorted(USER_FILES))
def test_mcp_project_scope_gives_mcp_json_and_project_settings_back(tmp_path, name):
    proj = tmp_path / "proj"
    (proj / ".claude").mkdir(parents=True)
    servers, settings = proj / ".mcp.json", proj / ".claude" / "settings.json"
    servers.write_bytes(USER_FILES[name])
    settings.write_bytes(USER_FILES[name])
    _mcp("install", "project", project_dir=str(proj))
    _mcp("uninstall", "project", project_dir=str(proj))
    assert servers.read_bytes() == USER_FILES[name] and settings.read_bytes() == USER_FILES[name]


def test_files_msd_mcp_created_are_removed_and_an_edited_one_is_kept(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    _mcp("install", "project", project_dir=str(proj))
    assert (proj / ".mcp.json").exists() and (proj / ".claude" / "settings.json").exists()
    _mcp("uninstall", "project", project_dir=str(proj))
    assert not (proj / ".mcp.json").exists() and not (proj / ".claude" / "settings.json").exists()
    _mcp("install", "project", project_dir=str(proj))
    mcp_json = proj / ".mcp.json"
    obj = json.loads(mcp_json.read_text())
    obj["mcpServers"]["theirs"] = {"type": "stdio", "command": "x", "args": [], "env": {}}
    mcp_json.write_text(json.dumps(obj, indent=2))
    _mcp("uninstall", "project", project_dir=str(proj))
    assert json.loads(mcp_json.read_text()) == {"mcpServers": {"theirs": {"type": "stdio", "command": "x", "args": [], "env": {}}}}


def test_a_mcp_record_that_cannot_be_read_falls_back_to_removing_just_the_entry(tmp_path):
    from msd_core import paths

    home = Path(os.environ["HOME"])
    claude_json = home / ".claude.json"
    claude_json.write_bytes(USER_FILES["claude-code-style"])
    _mcp("install", "user")
    paths.host_edits_path().write_text("{broken")
    _mcp("uninstall", "user")
    assert json.loads(claude_json.read_text()) == json.loads(USER_FILES["claude-code-style"])


# --- opencode.json -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(JSONC_FILES))
@pytest.mark.parametrize("scope", ["global", "local"])
def test_opencode_json_comes_back_byte_for_byte(tmp_path, name, scope):
    t = resolve_target(scope, project_dir=tmp_path / "proj", runtime="opencode")
    t.config.mkdir(parents=True)
    cfg = t.config / "opencode.json"
    cfg.write_bytes(JSONC_FILES[name])
    install(t)
    assert b'"msd_run *":' in cfg.read_bytes()
    uninstall(t)
    assert cfg.read_bytes() == JSONC_FILES[name]
