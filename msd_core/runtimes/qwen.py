"""Qwen Code: the Agent Skills install (agents.py) in Qwen's own folder, with msd's agents as
Qwen subagents. Facts read from the real Qwen Code 0.24.4 (npm `@qwen-code/qwen-code`, pinned in
tests/runtimes/clis.py): its bundled `parseSubagentContent` and its `/agents` UI strings, and a
headless run against a stand-in model (tests/runtimes/test_subagents_cli.py).

  commands/msd/<name>.md  ->  skills/msd-<name>/SKILL.md   the Agent Skills spine of agents.py
      (Qwen reads `.qwen/skills/` as it reads `.agents/skills/`); a spine that spawns agents
      says to use Qwen's `agent` tool with `subagent_type: msd-<name>`.
  agents/msd-<x>.md       ->  agents/msd-<x>.md          Qwen's subagent file: frontmatter
      `name` and `description` (both required), the body its system prompt. Claude's `tools`
      names are not Qwen's (a listed tool it does not know is left out), so the key is dropped
      and the agent has Qwen's tools; `color` (Qwen validates its own palette) is dropped too.
      Qwen reads project `.qwen/agents/` and user `~/.qwen/agents/` and lists each in its
      `agent` tool's "Available agent types".
  permission              ->  none: Qwen asks before running `msd_run` under its approval mode.
  guard                   ->  settings.json hooks.PreToolUse: msd's secret-read guard on Qwen's
      `run_shell_command` and `read_file` calls, its `.planning/` write guard on `write_file` and
      `edit` (qwen_settings.py; msd_core/hooks/qwen.py).

Use this or `--runtime agents`, not both, in one project: Qwen would list each skill twice.
"""

from __future__ import annotations

from msd_core.runtimes import qwen_settings
from msd_core.runtimes.agents import ListedAgentSkills


class QwenCode(ListedAgentSkills):
    name = "qwen"
    label = "Qwen Code (.qwen: skills and subagents)"
    client = "Qwen Code"
    spawn_tool = ("agent", "subagent_type")
    shared = qwen_settings.SETTINGS  # type: ignore[assignment]  # plan_add/plan_remove (base.Runtime.shared)


RUNTIME = QwenCode()
