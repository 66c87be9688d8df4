"""An Agent Skills spine runs in the real CLIs that read `.agents/skills` (each pinned in
tests/runtimes/clis.py), offline against a stand-in model that follows the skill
(tests/runtimes/skill_script.py): the model activates `msd-plan-phase` through the client's own
skill tool, the client puts the spine (SKILL.md's body) in the next request, the model runs the
`msd_run resolve ... --raw` command the spine names through the client's shell tool, and what it
printed reaches the model in the request after that. Compact content off (the detail parts'
paths come back) and on (it prints nothing and exits 0), set in the project's config."""

from __future__ import annotations

import html
import json
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.install.installer import install
from msd_core.paths import resolve_target
from msd_core.shipped.profiles import CORE_COMMANDS
from tests.runtimes import skill_script, stand_ins
from tests.runtimes.agent_clients import CLIENTS, copilot_env, env
from tests.runtimes.clis import cli_binary

pytestmark = pytest.mark.slow

VENV_BIN = Path(sys.executable).parent
SKILL = "msd-plan-phase"


def _project(tmp_path: Path, compact: bool) -> tuple[Path, object]:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".planning").mkdir()
    (project / ".planning/config.json").write_text(json.dumps({"workflow": {"compact_content": compact}}))
    t = resolve_target("local", project_dir=project, runtime="agents")
    install(t, profile="core")
    return project, t


def _resolve_output(project: Path, t) -> str:
    out = subprocess.run([str(VENV_BIN / "msd_run"), "resolve", "plan-phase", "--root", ".agents/msd-core", "--raw"],
                         cwd=project, env=env(), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def check_listed(first: dict, t) -> None:
    """The client's first model request lists every skill of the core install, name and description."""
    text = html.unescape(json.dumps(first, ensure_ascii=False).replace('\\"', '"'))  # Qwen writes `&apos;`
    for stem in CORE_COMMANDS:
        skill = t.config / "skills" / f"msd-{stem}" / "SKILL.md"
        desc = json.loads(skill.read_text().split("description: ", 1)[1].split("\n", 1)[0])
        assert f"msd-{stem}" in text and desc in text, stem


def check_the_spine_ran(bodies: list[dict], api: str, project: Path, t, compact: bool) -> None:
    """`bodies`: the model requests (with tools) the client sent, in order, in `api`'s shape ("chat"
    or "gemini"). The first lists the skills and has no tool result, the second has the activated
    skill's spine after the model's call, the third also what the spine's `msd_run` call printed."""
    results, after = getattr(skill_script, f"{api}_results"), getattr(skill_script, f"{api}_after_call")
    check_listed(bodies[0], t)
    turns = [results(b) for b in bodies]
    assert [len(r) for r in turns[:3]] == [0, 1, 2], [len(r) for r in turns]
    spine = (t.config / "skills" / SKILL / "SKILL.md").read_text().split("---\n", 2)[2]
    got = after(bodies[1]).replace("\\n", "\n").replace('\\"', '"').replace("\\u2014", "\u2014")
    for line in (ln for ln in spine.splitlines() if ln.strip()):
        assert line in got, line  # the whole spine reached the model
    ran = turns[2][1].replace("\\n", "\n")
    printed = _resolve_output(project, t)
    parts = sorted((t.root / "workflows/plan-phase/detail").glob("*.md"))
    if compact:
        assert printed == ""
        assert not any(str(p) in ran for p in parts)
    else:
        assert printed.split() == [str(p) for p in parts] and parts
        assert all(str(p) in ran for p in parts)  # msd_run's answer reached the model
    for bad in ("command not found", "No such file", "rejected", "denied", "Traceback"):
        assert bad not in ran, ran[-800:]


def _with_tools(record: Path, *path_ends: str) -> list[dict]:
    reqs = [r["body"] for r in stand_ins.requests(record) if r["path"].split("?")[0].endswith(path_ends)]
    return [b for b in reqs if isinstance(b, dict) and b.get("tools")]


def turns_of(record: Path, api: str) -> list[dict]:
    """The model requests offering tools the client sent, in order (its side queries offer none)."""
    ends = (":streamGenerateContent", ":generateContent") if api == "gemini" else ("/chat/completions",)
    reqs = [r["body"] for r in stand_ins.requests(record) if r["path"].split("?")[0].endswith(ends)]
    return [b for b in reqs if isinstance(b, dict) and b.get("tools")]


@pytest.mark.parametrize("compact", [False, True], ids=["compact-off", "compact-on"])
@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_the_client_runs_the_spines_msd_run_call(client, compact, tmp_path, monkeypatch):
    """Each client (tests/runtimes/agent_clients.py says how it is run): Gemini CLI (`activate_skill`,
    `run_shell_command`), OpenCode (`skill`, `bash`), Qwen Code (`skill`, `run_shell_command`), Copilot
    CLI (`skill`, `bash`; the body comes as a user message after the tool result), Kimi Code (`Skill`,
    `Bash`; likewise)."""
    c = CLIENTS[client]
    project, t = _project(tmp_path, compact)
    monkeypatch.setenv("MSD_STANDIN_SKILL", SKILL)
    monkeypatch.delenv("MSD_TEST_COMPACT_LOG", raising=False)
    api = stand_ins.gemini_api if c.api == "gemini" else stand_ins.openai_api
    with api(tmp_path) as (base, record):
        proc = c.run(project, base, "Plan phase 3 with msd.", tmp_path)
        assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-2000:]
        turns = turns_of(record, c.api)
    check_the_spine_ran(turns, c.api, project, t, compact)


def test_copilot_lists_the_skills_from_the_agents_folder(tmp_path):
    """`copilot skill list` (offline, no login) names every msd skill of the project's `.agents/skills`."""
    exe = cli_binary("copilot")
    project, t = _project(tmp_path, False)
    proc = subprocess.run([str(exe), "skill", "list"], cwd=project, env=copilot_env("http://127.0.0.1:9/v1"),
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    project_part = proc.stdout.split("Project skills:", 1)[1].split("\n\n", 1)[0]
    for stem in CORE_COMMANDS:
        desc = json.loads((t.config / "skills" / f"msd-{stem}" / "SKILL.md").read_text().split("description: ", 1)[1].split("\n", 1)[0])
        assert f"msd-{stem} - {desc}" in project_part
