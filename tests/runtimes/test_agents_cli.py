"""Agent Skills (`msd install --runtime agents`) in the real Codex CLI (npm @openai/codex, pinned in
tests/runtimes/clis.py), offline: Codex lists every msd skill from a project's `.agents/skills` and
from `~/.agents/skills` (`codex debug prompt-input`), and against a stand-in Responses API that
follows the spine's instruction (tests/runtimes/openai_server.py, MSD_STANDIN_FOLLOW_RESOLVE),
`$msd-plan-phase 3` makes Codex run the spine's `msd_run resolve ... --raw` and hand its output,
the detail parts' paths, back to the model. The real Gemini CLI lists the skills of both folders
to the model too, and OpenCode loads them (`opencode debug skill`)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from msd_core.install.installer import install
from msd_core.install.runner_path import own_runner
from msd_core.paths import resolve_target
from msd_core.shipped.profiles import CORE_COMMANDS
from tests.runtimes.clis import cli_binary
from tests.runtimes.test_codex_cli import _codex, _prompt, _strings

pytestmark = pytest.mark.slow


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project


@pytest.mark.parametrize("scope", ["global", "local"])
def test_codex_lists_the_skills_from_the_agents_folder(scope, tmp_path):
    exe = cli_binary("codex")
    project = _project(tmp_path)
    t = resolve_target(scope, project_dir=project, runtime="agents")
    assert "msd-plan-phase" not in _prompt(exe, project)  # guard: nothing of ours before the install
    install(t, profile="core")
    text = _prompt(exe, project)
    assert str(t.config / "skills") in text  # the skills root Codex read them from (no trust needed)
    for stem in CORE_COMMANDS:
        desc = json.loads((t.config / "skills" / f"msd-{stem}" / "SKILL.md").read_text().split("description: ", 1)[1].split("\n", 1)[0])
        assert f"- msd-{stem}: {desc}" in text


def test_the_spines_msd_run_call_runs_in_codex(tmp_path, monkeypatch):
    from tests.runtimes.stand_ins import openai_api, requests

    exe = cli_binary("codex")
    project = _project(tmp_path)
    t = resolve_target("local", project_dir=project, runtime="agents")
    install(t)
    monkeypatch.setenv("MSD_STANDIN_FOLLOW_RESOLVE", "1")
    # the test session's compact-read recorder (tests/kit/compact_site) would write its log outside
    # the folders Codex's read-only sandbox lets msd_run write; a slow test is not recorded anyway
    monkeypatch.delenv("MSD_TEST_COMPACT_LOG", raising=False)
    monkeypatch.setenv("PATH", f"{own_runner().parent}{os.pathsep}{os.environ['PATH']}")
    codex_home = Path(os.environ["HOME"]) / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    with openai_api(tmp_path) as (base, record):
        (codex_home / "config.toml").write_text(
            f'model = "stand-in"\nmodel_provider = "local"\n[model_providers.local]\nname = "local"\n'
            f'base_url = "{base}"\nwire_api = "responses"\n')
        proc = _codex(exe, project, "exec", "$msd-plan-phase 3")
        assert proc.returncode == 0, proc.stderr[-2000:]
        sent = [r for r in requests(record) if r["path"].endswith("/responses")]
    assert len(sent) == 2  # the tool call, then the answer with its output
    first = "\n".join(_strings(sent[0]["body"]))
    skill = (t.config / "skills/msd-plan-phase/SKILL.md").read_text()
    assert skill.split("---\n", 2)[2].strip() in first  # Codex put our spine before the model
    outputs = [item for item in sent[1]["body"]["input"] if isinstance(item, dict) and item.get("type") == "function_call_output"]
    assert len(outputs) == 1
    out = json.dumps(outputs[0])
    assert "exited with code 0" in out
    for part in sorted((t.root / "workflows/plan-phase/detail").glob("*.md")):
        assert str(part) in out


@pytest.mark.parametrize("scope", ["global", "local"])
def test_gemini_lists_the_skills_from_the_agents_folder(scope, tmp_path):
    """Gemini CLI (pinned in tests/runtimes/clis.py) against its stand-in API: the request it sends
    for a plain prompt lists every msd skill of a core install, name and description (its docs:
    `~/.agents/skills` and a workspace's `.agents/skills` are read as skills)."""
    from tests.runtimes import stand_ins
    from tests.runtimes.test_gemini_cli import _run

    exe = cli_binary("gemini")
    project = _project(tmp_path)
    t = resolve_target(scope, project_dir=project, runtime="agents")
    install(t, profile="core")
    with stand_ins.gemini_api(tmp_path) as (api, record):
        proc = _run(exe, api, project, ["-p", "hello"])
        assert proc.returncode == 0, proc.stderr[-2000:]
        main = [r for r in stand_ins.requests(record) if ":streamGenerateContent" in r["path"] or ":generateContent" in r["path"]]
    assert main
    text = "\n".join(_strings(main[-1]["body"]))
    for stem in CORE_COMMANDS:
        desc = json.loads((t.config / "skills" / f"msd-{stem}" / "SKILL.md").read_text().split("description: ", 1)[1].split("\n", 1)[0])
        assert f"msd-{stem}" in text and desc in text, stem


@pytest.mark.parametrize("scope", ["global", "local"])
def test_opencode_loads_the_skills_from_the_agents_folder(scope, tmp_path):
    """OpenCode (pinned in tests/runtimes/clis.py): `opencode debug skill` lists every skill it
    loaded with its location; each msd skill of a core install is there, from our folder, with its
    description and its body."""
    from tests.runtimes.test_opencode_cli import _oc

    exe = cli_binary("opencode")
    project = _project(tmp_path)
    t = resolve_target(scope, project_dir=project, runtime="agents")
    install(t, profile="core")
    listed = {s["name"]: s for s in json.loads(_oc(exe, project, "debug", "skill")) if s["name"].startswith("msd-")}
    assert sorted(listed) == sorted(f"msd-{c}" for c in CORE_COMMANDS)
    for stem in CORE_COMMANDS:
        skill = t.config / "skills" / f"msd-{stem}" / "SKILL.md"
        got = listed[f"msd-{stem}"]
        assert Path(got["location"]).resolve() == skill.resolve()
        assert got["description"] == json.loads(skill.read_text().split("description: ", 1)[1].split("\n", 1)[0])
        assert got["content"].strip() == skill.read_text().split("---\n", 2)[2].strip()
