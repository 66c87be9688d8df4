"""OpenCode: commands and agents in its formats, and the one permission entry in the user's
opencode.json with every other byte kept (msd_core/runtimes/opencode_config.py, files/jsonedit.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from msd_core.files.jsonedit import loads
from msd_core.install.installer import install
from msd_core.install.uninstaller import uninstall
from msd_core.ownership.manifest import load_manifest
from msd_core.paths import resolve_target

REPO = Path(__file__).resolve().parents[2]
USER_JSONC = ('{\n  // my settings: keep this comment\n  "model": "anthropic/x", /* and this */\n'
              '  "theme": "a \\"quoted\\" {brace} // not a comment",\n  "permission": {"edit": "ask",},\n}\n')


def _t(scope, tmp_path):
    return resolve_target(scope, project_dir=tmp_path, runtime="opencode")


def test_commands_keep_claude_syntax_and_the_gate(tmp_path):
    t = _t("local", tmp_path)
    install(t)
    for src in (REPO / "msd_core/content/commands/msd").glob("*.md"):
        text = (t.config / "commands" / f"msd-{src.stem}.md").read_text()
        front = yaml.safe_load(text.split("---\n")[1])
        assert set(front) == {"description"}
        m = re.search(r"^!`msd_run resolve (\S+) --emit", src.read_text(), re.M)
        if m:  # the host renders shell context: the detail parts are inserted as in Claude Code
            assert f"!`msd_run resolve {m.group(1)} --emit --root .opencode/msd-core || true`" in text
        assert "$ARGUMENTS" in text and "~/.claude" not in text and ".claude/" not in text


def test_agents_are_subagents_with_denials_for_missing_tools(tmp_path):
    t = _t("local", tmp_path)
    install(t)
    checker = yaml.safe_load((t.config / "agents/msd-plan-checker.md").read_text().split("---\n")[1])
    assert checker == {"description": checker["description"], "mode": "subagent", "permission": {"edit": "deny", "webfetch": "deny"}}
    executor = yaml.safe_load((t.config / "agents/msd-executor.md").read_text().split("---\n")[1])
    assert executor["mode"] == "subagent" and executor.get("permission") == {"webfetch": "deny"}


@pytest.mark.parametrize("scope", ["global", "local"])
def test_users_config_is_byte_identical_outside_our_entry(scope, tmp_path):
    t = _t(scope, tmp_path)
    t.config.mkdir(parents=True)
    cfg = t.config / "opencode.json"
    cfg.write_text(USER_JSONC)
    install(t)
    after = cfg.read_text()
    assert after == USER_JSONC.replace('"edit": "ask",}', '"edit": "ask", "bash": {"msd_run *": "allow"},}')
    assert loads(after)["permission"]["bash"] == {"msd_run *": "allow"}
    assert load_manifest(t.config).extra["settings"]["created_keys"] == ["permission.bash"]
    install(t)  # an update leaves it as it is
    assert cfg.read_text() == after
    uninstall(t)
    assert cfg.read_text() == USER_JSONC


def test_uninstall_keeps_user_edits_made_after_install(tmp_path):
    t = _t("global", tmp_path)
    t.config.mkdir(parents=True)
    cfg = t.config / "opencode.json"
    cfg.write_text(USER_JSONC)
    install(t)
    edited = cfg.read_text().replace('"model": "anthropic/x"', '"model": "openai/y"')
    cfg.write_text(edited)
    r = uninstall(t)
    assert r.data["settings"]["action"] == "entry removed"
    assert cfg.read_text() == USER_JSONC.replace('"model": "anthropic/x"', '"model": "openai/y"')


def test_a_config_we_created_is_removed_and_one_we_cannot_edit_is_left(tmp_path):
    t = _t("local", tmp_path)
    install(t)
    assert json.loads((t.config / "opencode.json").read_text())["permission"] == {"bash": {"msd_run *": "allow"}}
    uninstall(t)
    assert not t.config.exists()
    for bad in ('{"permission": "ask"}\n', '{ not json\n', '[1, 2]\n'):
        t.config.mkdir(parents=True, exist_ok=True)
        (t.config / "opencode.json").write_text(bad)
        r = install(t)
        assert (t.config / "opencode.json").read_text() == bad
        assert r.data["settings"]["action"] == "skipped" and any("opencode.json" in w for w in r.warnings)
        uninstall(t)
        assert (t.config / "opencode.json").read_text() == bad


def test_an_entry_the_user_already_has_is_never_removed(tmp_path):
    t = _t("local", tmp_path)
    t.config.mkdir(parents=True)
    mine = '{"permission": {"bash": {"msd_run *": "allow"}}}\n'
    (t.config / "opencode.json").write_text(mine)
    assert install(t).data["settings"]["action"] == "present"
    uninstall(t)
    assert (t.config / "opencode.json").read_text() == mine


def test_an_older_install_recorded_the_inserted_text_and_uninstall_still_takes_out_only_the_entry(tmp_path):
    """Installs before the one byte editor recorded a `snippet` instead of `created_keys`."""
    from msd_core.runtimes import opencode_config

    t = _t("global", tmp_path)
    t.config.mkdir(parents=True)
    cfg = t.config / "opencode.json"
    cfg.write_text('{"model": "x", "permission": {"bash": {"msd_run *": "allow","git *": "ask"}}}\n')
    record = {"path": "opencode.json", "written_sha256": "0" * 64, "had_before": True, "snippet": '"msd_run *": "allow",'}
    change = opencode_config.plan_remove(t.config, record, opencode_config.PERMISSION, None)
    assert change.new_bytes == b'{"model": "x", "permission": {"bash": {"git *": "ask"}}}\n'


def test_three_runtimes_side_by_side_one_removed(tmp_path):
    from tests.runtimes.test_runtimes import _tree

    targets = {r: resolve_target("local", project_dir=tmp_path, runtime=r) for r in ("claude", "gemini", "opencode")}
    for t in targets.values():
        install(t)
    before = {r: _tree(t.config) for r, t in targets.items()}
    uninstall(targets["opencode"])
    assert not targets["opencode"].config.exists()
    assert {r: _tree(t.config) for r, t in targets.items() if r != "opencode"} == {r: before[r] for r in ("claude", "gemini")}
