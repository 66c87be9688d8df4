"""Kimi Code: the Agent Skills install (agents.py) in Kimi's own folder, with msd's agents as Kimi
agent files. Facts read from the real Kimi Code 2.1.0 (npm `@moonshot-ai/kimi-code`, pinned in
tests/runtimes/clis.py): its bundled agentRoots (user `agents` under its home, `$KIMI_CODE_HOME`
else `~/.kimi-code`, and `~/.agents/agents`; project `.kimi-code/agents` and `.agents/agents`, at
the top of the git work tree), and a headless run against a stand-in model: it lists a project's
`.kimi-code/skills/` and the agents of those folders in its `Agent` tool, "Available agent types"
(tests/runtimes/test_subagents_cli.py).

  commands/msd/<name>.md  ->  skills/msd-<name>/SKILL.md   the Agent Skills spine of agents.py; a
      spine that spawns agents says to use Kimi's `Agent` tool with `subagent_type: msd-<name>`.
  agents/msd-<x>.md       ->  agents/msd-<x>.md          name, description, the body (subagent_file).
  permission              ->  none: `kimi -p` approves tools itself; interactive runs ask.
  MCP server              ->  `msd mcp install --client kimi` (msd_core/mcp/clients.py).
  guard                   ->  config.toml [[hooks]]: msd's secret-read guard on Kimi's `Bash` and
      `Read` calls, its `.planning/` write guard on `Write` and `Edit` (kimi_config.py;
      msd_core/hooks/kimi.py). Kimi reads hooks from its user config.toml only: a global install
      adds it, a local one cannot.

Use this or `--runtime agents`, not both, in one project: Kimi would list each skill twice.
"""

from __future__ import annotations

from msd_core.runtimes import kimi_config
from msd_core.runtimes.agents import ListedAgentSkills


class KimiCode(ListedAgentSkills):
    name = "kimi"
    label = "Kimi Code (.kimi-code: skills and agents)"
    client = "Kimi Code"
    spawn_tool = ("Agent", "subagent_type")
    shared = kimi_config  # type: ignore[assignment]  # a module with plan_add/plan_remove (base.Runtime.shared)


RUNTIME = KimiCode()
