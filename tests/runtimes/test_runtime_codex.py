"""Codex CLI: commands as skills with no shell rendering (the gate is an instruction), agents
as TOML, the permission as a rules file of our own."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from msd_core.files.tomlread import loads as toml_loads
from msd_core.install.installer import install
from msd_core.install.uninstaller import uninstall
from msd_core.paths import resolve_target

REPO = Path(__file__).resolve().parents[2]


def test_skills_carry_the_gate_as_an_instruction(tmp_path):
    t = resolve_target("local", project_dir=tmp_path, runtime="codex")
    install(t)
    for src in (REPO / "msd_core/content/commands/msd").glob("*.md"):
        text = (t.config / "skills" / f"msd-{src.stem}" / "SKILL.md").read_text()
        front = yaml.safe_load(text.split("---\n")[1])
        assert front == {"name": f"msd-{src.stem}", "description": front["description"]} and front["description"]
        body = text.split("---\n", 2)[2]
        assert not re.search(r"^[@!]", body, re.M) and "$ARGUMENTS" not in body
        includes = re.findall(r"^@~/\.claude/(\S+)$", src.read_text(), re.M)
        assert includes and all(f"- `.codex/{inc}`" in body for inc in includes)
        m = re.search(r"^!`msd_run resolve (\S+) --emit", src.read_text(), re.M)
        if m:
            assert f"run `msd_run resolve {m.group(1)} --root .codex/msd-core --raw` and read each file it lists" in body
        assert "/msd-" not in body.replace("msd-core", "")


def test_agents_are_toml_with_the_three_keys(tmp_path):
    t = resolve_target("global", runtime="codex")
    install(t)
    agents = sorted((t.config / "agents").glob("msd-*.toml"))
    assert len(agents) == len(list((REPO / "msd_core/content/agents").glob("msd-*.md")))
    for p in agents:
        doc = toml_loads(p.read_text())
        assert set(doc) == {"name", "description", "developer_instructions"} and doc["name"] == p.stem
        assert str(t.config / "msd-core") in doc["developer_instructions"] or "msd-core" not in doc["developer_instructions"]


def test_rules_file_is_ours_and_leaves_the_users_alone(tmp_path):
    t = resolve_target("global", runtime="codex")
    (t.config / "rules").mkdir(parents=True)
    mine = b'prefix_rule(pattern = ["git", "push"], decision = "prompt")\n'
    (t.config / "rules" / "default.rules").write_bytes(mine)
    (t.config / "config.toml").write_bytes(b'model = "x"\n')
    install(t)
    rules = (t.config / "rules" / "msd-core.rules").read_text()
    assert 'pattern = ["msd_run"]' in rules and 'decision = "allow"' in rules
    uninstall(t)
    assert (t.config / "rules" / "default.rules").read_bytes() == mine
    assert (t.config / "config.toml").read_bytes() == b'model = "x"\n'
    assert sorted(p.relative_to(t.config).as_posix() for p in t.config.rglob("*")) == ["config.toml", "rules", "rules/default.rules"]
