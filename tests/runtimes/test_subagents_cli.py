"""The real Qwen Code, Copilot CLI and Kimi Code (pinned in tests/runtimes/clis.py) list msd's agents and
skills after `msd install --runtime qwen|copilot|kimi`, offline against the stand-in model: the first
model request offers the client's subagent tool (Qwen: `agent`, under "Available agent types";
Copilot: `task`, under "User-provided custom agents"; Kimi: `Agent`, "Available agent types") naming every installed `msd-*` agent with
its description, and names every installed skill. Project (`.qwen/`, `.github/`, `.kimi-code/`)
and user (`~/.qwen/`, `~/.copilot/`, `~/.kimi-code/`) level."""

from __future__ import annotations

import html
import json
import subprocess

import pytest
import yaml

from msd_core.install.installer import install
from msd_core.paths import resolve_target
from tests.runtimes import stand_ins
from tests.runtimes.agent_clients import run_copilot, run_kimi, run_qwen
from tests.runtimes.test_agents_spine_cli import turns_of

pytestmark = pytest.mark.slow

# client: (how it is run, its subagent tool, the heading its description lists custom agents under,
# an agent's line there)
CLIENTS = {"qwen": (run_qwen, "agent", "Available agent types", "- **{name}**: {description}"),
           "copilot": (run_copilot, "task", "User-provided custom agents", "- **{name}**: {description}"),
           "kimi": (run_kimi, "Agent", "Available agent types", "- {name}: {description}\n")}


def _tool(request: dict, name: str) -> str:
    """Tool `name`'s description in a chat-completions request, as the model reads it."""
    found = [t["function"] for t in request["tools"] if t.get("function", {}).get("name") == name]
    assert found, f"no {name!r} tool in the request: {[t.get('function', {}).get('name') for t in request['tools']]}"
    return html.unescape(found[0].get("description", ""))


@pytest.mark.parametrize("scope", ["local", "global"])
@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_the_client_lists_msds_agents_and_skills(client, scope, tmp_path):
    run, tool, heading, line = CLIENTS[client]
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    t = resolve_target(scope, project_dir=project, runtime=client)
    install(t, profile="full")
    agents = sorted((t.config / "agents").glob("msd-*.md"))
    assert len(agents) == 11
    with stand_ins.openai_api(tmp_path) as (base, record):
        proc = run(project, base, "Say hi.", tmp_path)
        assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-2000:]
        first = turns_of(record, "chat")[0]
    listed = _tool(first, tool).split(heading, 1)[1]
    for path in agents:
        meta = yaml.safe_load(path.read_text().split("---\n", 2)[1])
        assert line.format(**meta) in listed, path.name
    skills = html.unescape(json.dumps(first, ensure_ascii=False))  # the skill list is a message of the request
    for skill in sorted((t.config / "skills").iterdir()):
        assert skill.name in skills, skill.name


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_the_client_lists_no_msd_agent_from_the_agents_install(client, tmp_path):
    """The other side: with `--runtime agents` msd's agents stay where the client lists none (the
    spine's prose way), so the check above is not met by any install."""
    run, tool, _heading, _line = CLIENTS[client]
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    install(resolve_target("local", project_dir=project, runtime="agents"), profile="full")
    with stand_ins.openai_api(tmp_path) as (base, record):
        proc = run(project, base, "Say hi.", tmp_path)
        assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-2000:]
        first = turns_of(record, "chat")[0]
    assert "msd-" not in _tool(first, tool)
    assert "msd-plan-phase" in json.dumps(first)
