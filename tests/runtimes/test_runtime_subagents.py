"""Qwen Code, Copilot CLI and Kimi Code (`msd install --runtime qwen|copilot|kimi`): the Agent
Skills install in the client's own folder (`.qwen/`; `.github/`, global `~/.copilot/`;
`.kimi-code/`), msd's agents as its subagents in `<folder>/agents/` (the file shape Qwen Code
0.24.4's parseSubagentContent reads: frontmatter then body, `name` and `description` required;
Copilot CLI 1.0.102 and Kimi Code 2.1.0 read the same), spines that spawn
them naming the client's own tool; a user's own agents and edits kept, uninstall leaves the folder
as it was. That the real clients list them: tests/runtimes/test_subagents_cli.py."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml

from msd_core.install.installer import install
from msd_core.install.uninstaller import uninstall
from msd_core.paths import resolve_target
from msd_core.runtimes.agents import subagent_file as agent_file
from msd_core.shipped.profiles import CORE
from tests.runtimes.agent_skills_spec import violations

REPO = Path(__file__).resolve().parents[2]
SHIPPED_AGENTS = REPO / "msd_core/content/agents"
QWEN_FILE = re.compile(r"^---\n([\s\S]*?)\n---\n([\s\S]*)$")  # Qwen Code 0.24.4's frontmatterRegex


def _qwen_parse(data: str) -> tuple[dict, str]:
    m = QWEN_FILE.match(data)
    assert m, "Qwen would refuse it: missing YAML frontmatter"
    return yaml.safe_load(m.group(1)), m.group(2)


RUNTIMES = ["qwen", "copilot", "kimi"]
LOCAL = {"qwen": ".qwen", "copilot": ".github", "kimi": ".kimi-code"}
SPAWN = {"qwen": ("`agent` tool", "`subagent_type: msd-<name>`"), "copilot": ("`task` tool", "`agent_type: msd-<name>`"),
         "kimi": ("`Agent` tool", "`subagent_type: msd-<name>`")}


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("scope", ["global", "local"])
@pytest.mark.parametrize("profile", ["full", CORE])
def test_every_agent_is_a_subagent_file_and_every_skill_keeps_the_format(runtime, scope, profile, tmp_path):
    t = resolve_target(scope, project_dir=tmp_path, runtime=runtime)
    install(t, profile=profile)
    agents = sorted((t.config / "agents").glob("*.md"))
    assert agents and not (t.config / "msd-core" / "agents").exists()
    for path in agents:
        meta, body = _qwen_parse(path.read_text())
        assert sorted(meta) == ["description", "name"] and meta["name"] == path.stem, path.name
        shipped, shipped_body = _qwen_parse((SHIPPED_AGENTS / path.name).read_text())
        assert meta["description"] == " ".join(shipped["description"].split())
        home = f"{t.config}/" if scope == "global" else f"{LOCAL[runtime]}/"  # the install's own folder in place of ~/.claude/
        assert body.strip() == shipped_body.strip().replace("~/.claude/", home), path.name
    for skill in sorted(p for p in (t.config / "skills").iterdir() if p.is_dir()):
        assert violations(skill) == [], skill.name


def test_agent_file_drops_keys_qwen_reads_otherwise():
    src = b"---\nname: msd-x\ndescription: >-\n  Does x:\n  in two lines.\ntools: Read, Bash\ncolor: green\n---\n\nYou are x.\n"
    assert agent_file("msd-x", src) == b'---\nname: msd-x\ndescription: "Does x: in two lines."\n---\nYou are x.\n'
    assert agent_file("msd-y", b"No frontmatter here.\n").startswith(b"---\nname: msd-y\ndescription: \"No frontmatter here.\"\n---\n")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_spines_spawn_with_the_clients_own_tool(runtime, tmp_path):
    t = resolve_target("local", project_dir=tmp_path, runtime=runtime)
    install(t)
    spine = (t.config / "skills/msd-execute-phase/SKILL.md").read_text()
    assert all(s in spine for s in SPAWN[runtime])
    assert "has no `msd-<name>` agent types" not in spine
    a = resolve_target("local", project_dir=tmp_path / "other", runtime="agents")
    install(a)
    assert "has no `msd-<name>` agent types" in (a.config / "skills/msd-execute-phase/SKILL.md").read_text()


def test_each_install_is_the_folder_the_client_reads(tmp_path, monkeypatch):
    home = Path(os.environ["HOME"])
    assert resolve_target("global", runtime="qwen").config == home / ".qwen"
    assert resolve_target("local", project_dir=tmp_path, runtime="qwen").config == tmp_path / ".qwen"
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    assert resolve_target("global", runtime="copilot").config == home / ".copilot"
    assert resolve_target("local", project_dir=tmp_path, runtime="copilot").config == tmp_path / ".github"
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "ch"))  # `copilot help environment`
    assert resolve_target("global", runtime="copilot").config == tmp_path / "ch"
    monkeypatch.delenv("KIMI_CODE_HOME", raising=False)
    assert resolve_target("global", runtime="kimi").config == home / ".kimi-code"
    assert resolve_target("local", project_dir=tmp_path, runtime="kimi").config == tmp_path / ".kimi-code"
    monkeypatch.setenv("KIMI_CODE_HOME", str(tmp_path / "kh"))
    assert resolve_target("global", runtime="kimi").config == tmp_path / "kh"


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_users_own_agents_and_edits_survive_and_uninstall_leaves_the_folder_as_it_was(runtime, tmp_path):
    t = resolve_target("local", project_dir=tmp_path, runtime=runtime)
    mine = t.config / "agents" / "my-reviewer.md"
    mine.parent.mkdir(parents=True)
    mine.write_bytes(b"---\nname: my-reviewer\ndescription: Mine.\n---\nReview.\n")
    (t.config / "settings.json").write_bytes(b'{"model": {"name": "mine"}}\n')
    before = {p.relative_to(t.config).as_posix(): p.read_bytes() for p in t.config.rglob("*") if p.is_file()}
    install(t)
    planner = t.config / "agents/msd-planner.md"
    edited = planner.read_bytes() + b"\nOur team's rule.\n"
    planner.write_bytes(edited)
    r = install(t)
    assert {f["path"]: f["verdict"] for f in r.data["files"]}["agents/msd-planner.md"] == "kept"
    assert planner.read_bytes() == edited
    uninstall(t, force=True)
    after = {p.relative_to(t.config).as_posix(): p.read_bytes() for p in t.config.rglob("*") if p.is_file()}
    assert after == before
