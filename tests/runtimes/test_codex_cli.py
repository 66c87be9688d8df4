"""The real Codex CLI (npm @openai/codex, pinned in tests/runtimes/clis.py), offline:
`codex debug prompt-input` renders the model-visible prompt without calling a model; it must
list every msd skill (with our description, from our folder) and every msd agent as a role.
`codex execpolicy check` evaluates our rules file: msd_run allowed, nothing else matched.
Against a stand-in Responses API (tests/runtimes/openai_server.py): `$msd-plan-phase 3` puts our
SKILL.md, with its gate instruction, in front of the model."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from msd_core.install.installer import install
from msd_core.paths import resolve_target
from tests.runtimes.clis import cli_binary

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
STEMS = sorted(p.stem for p in (REPO / "msd_core/content/commands/msd").glob("*.md"))
AGENTS = sorted(p.stem for p in (REPO / "msd_core/content/agents").glob("msd-*.md"))


def _codex(exe: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), *args], cwd=cwd, env=dict(os.environ), capture_output=True, text=True, timeout=120)


def _strings(node) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


def _prompt(exe: Path, cwd: Path) -> str:
    """Every text of the model-visible prompt input, joined."""
    proc = _codex(exe, cwd, "debug", "prompt-input", "hello")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return "\n".join(_strings(json.loads(proc.stdout)))


@pytest.mark.parametrize("scope", ["global", "local"])
def test_skills_and_agents_are_loaded(scope, tmp_path):
    exe = cli_binary("codex")
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    t = resolve_target(scope, project_dir=project, runtime="codex")
    if scope == "local":  # Codex reads a project's .codex/agents (and rules) only in a trusted project
        home_cfg = Path(os.environ["HOME"]) / ".codex" / "config.toml"
        home_cfg.parent.mkdir(parents=True, exist_ok=True)
        home_cfg.write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    before = _prompt(exe, project)
    assert "msd-plan-phase" not in before  # guard: nothing of ours before the install
    install(t)
    text = _prompt(exe, project)
    assert str(t.config / "skills") in text  # the skills root Codex read them from
    for stem in STEMS:
        desc = json.loads((t.config / "skills" / f"msd-{stem}" / "SKILL.md").read_text().split("description: ", 1)[1].split("\n", 1)[0])
        assert f"- msd-{stem}: {desc[:40]}" in text  # Codex may shorten long descriptions
    for name in AGENTS:
        assert f"\n{name}: {{\n" in text  # a spawnable role


def test_rules_allow_msd_run_only(tmp_path):
    exe = cli_binary("codex")
    t = resolve_target("global", runtime="codex")
    install(t)
    rules = str(t.config / "rules" / "msd-core.rules")
    ok = json.loads(_codex(exe, tmp_path, "execpolicy", "check", "--rules", rules, "msd_run", "state", "json").stdout)
    assert ok["decision"] == "allow"
    other = json.loads(_codex(exe, tmp_path, "execpolicy", "check", "--rules", rules, "rm", "-rf", "x").stdout)
    assert other["matchedRules"] == []


def test_a_skill_reaches_the_model_with_its_gate(tmp_path):
    """`codex exec '$msd-plan-phase 3'` against a stand-in Responses API: Codex inserts our
    SKILL.md (the files to read, the `msd_run resolve --raw` instruction) and the request."""
    from tests.runtimes.stand_ins import openai_api, requests

    exe = cli_binary("codex")
    project = tmp_path / "project"
    project.mkdir()
    t = resolve_target("global", runtime="codex")
    install(t)
    with openai_api(tmp_path) as (base, record):
        (t.config / "config.toml").write_text(  # the test's own CODEX home: a provider pointing at the stand-in
            f'model = "stand-in"\nmodel_provider = "local"\n[model_providers.local]\nname = "local"\n'
            f'base_url = "{base}"\nwire_api = "responses"\n')
        proc = _codex(exe, project, "exec", "--skip-git-repo-check", "$msd-plan-phase 3")
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "MSD-OPENAI-OK" in proc.stdout
        sent = [r for r in requests(record) if r["path"].endswith("/responses")]
    assert sent
    text = "\n".join(_strings(sent[-1]["body"]))
    skill = (t.config / "skills/msd-plan-phase/SKILL.md").read_text()
    assert skill.split("---\n", 2)[2].strip() in text
    assert f"run `msd_run resolve plan-phase --root {t.config}/msd-core --raw`" in text and "$msd-plan-phase 3" in text
