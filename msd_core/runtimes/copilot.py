"""GitHub Copilot CLI: the Agent Skills install (agents.py) in Copilot's own folders, with msd's
agents as Copilot custom agents. Facts seen in the real Copilot CLI 1.0.102 (npm `@github/copilot`,
pinned in tests/runtimes/clis.py), offline against a stand-in model: it reads skills from a
project's `.github/skills/` and `$COPILOT_HOME` (default `~/.copilot`) `/skills/`, and custom agents
from `.github/agents/` and `~/.copilot/agents/` (`<name>.md` and `<name>.agent.md` alike), listing
them under "User-provided custom agents" in its `task` tool, whose `agent_type` names them
(tests/runtimes/test_subagents_cli.py). `copilot help` calls `.github/skills` and
`.github/agents` trusted configuration.

  commands/msd/<name>.md  ->  skills/msd-<name>/SKILL.md   the Agent Skills spine of agents.py; a
      spine that spawns agents says to use Copilot's `task` tool with `agent_type: msd-<name>`.
  agents/msd-<x>.md       ->  agents/msd-<x>.md          name, description, the body (subagent_file).
  permission              ->  none: Copilot asks before running `msd_run` (headless: its allow flags).
  MCP server              ->  `msd mcp install --client copilot` (msd_core/mcp/clients.py).

The local folder is the project's `.github/` (msd's tree in `.github/msd-core/`); use this or
`--runtime agents`, not both, in one project: Copilot would list each skill twice.
"""

from __future__ import annotations

from msd_core.runtimes.agents import ListedAgentSkills


class CopilotCLI(ListedAgentSkills):
    name = "copilot"
    label = "GitHub Copilot CLI (.github / ~/.copilot: skills and custom agents)"
    client = "Copilot CLI"
    spawn_tool = ("task", "agent_type")


RUNTIME = CopilotCLI()
