"""The runtime seam: one module per agent CLI, each declaring how msd's content is written for it.

  base.py      the Runtime interface, and the shared helpers (frontmatter, command references)
  claude.py    Claude Code: skills/msd-<name>/SKILL.md, agents/*.md, settings.json permission
  gemini.py    Gemini CLI: commands/msd/<name>.toml, agents/*.md, policies/msd-core.toml,
               msd's guard hook in settings.json
  opencode.py  OpenCode: commands/msd-<name>.md, agents/*.md, the permission in its config
  codex.py     Codex CLI: skills/msd-<name>/SKILL.md, agents/*.toml, rules/msd-core.rules,
               msd's guard hook in hooks.json
  agents.py    Agent Skills (.agents/skills, read by most agent CLIs): skills/msd-<name>/SKILL.md
               with references/, agents unlisted under msd-core/agents/, no permission file
  qwen.py      Qwen Code: the Agent Skills of agents.py in .qwen/skills, msd's agents as Qwen
               subagents in .qwen/agents/ (listed in its `agent` tool), msd's guard hook in settings.json
  copilot.py   Copilot CLI: the same in .github/ (global ~/.copilot/), custom agents in agents/,
               msd's guard hook in hooks/msd-guard.json
  kimi.py      Kimi Code: the same in .kimi-code/, agents in agents/, msd's guard hook in the user's config.toml
  claude_settings.py  the settings.json permission that lets the agent run msd_run without a prompt
  claude_json.py      editing Claude Code's own JSON files under their owner's lock
  opencode_config.py  OpenCode's permission for msd_run in opencode.json
  opencode_plugin.py  msd's guard in OpenCode: our plugin file (plugins/msd-guard.js) that runs msd_run's hook
  hook_settings.py    msd's guard hook as one group in a client's settings.json hook list
  qwen_settings.py    msd's guard hook (hooks.PreToolUse) in Qwen Code's settings.json
  kimi_config.py      msd's guard hook (a [[hooks]] table) appended to Kimi Code's user config.toml
  gemini_settings.py  msd's guard hook (hooks.BeforeTool) in Gemini CLI's settings.json
  codex_hooks.py      msd's guard hook (hooks.PreToolUse) in Codex CLI's hooks.json
  config_entry.py     what those entries in another program's JSON config share (read, start of uninstall)

The installer, uninstaller, status and the content checks ask `get(name)` instead of naming
folders. Not on msd_run's hot path.
"""

from __future__ import annotations

from msd_core.paths import DEFAULT_RUNTIME, RUNTIMES

__all__ = ["get", "RUNTIMES", "DEFAULT_RUNTIME"]


def get(name: str):
    """The Runtime for `name`; ValueError for a runtime without a module."""
    if name not in RUNTIMES:
        raise ValueError(f"unknown runtime {name!r}: choose from {', '.join(RUNTIMES)}")
    if name == "claude":
        from msd_core.runtimes.claude import RUNTIME
    elif name == "gemini":
        from msd_core.runtimes.gemini import RUNTIME
    elif name == "opencode":
        from msd_core.runtimes.opencode import RUNTIME
    elif name == "codex":
        from msd_core.runtimes.codex import RUNTIME
    elif name == "agents":
        from msd_core.runtimes.agents import RUNTIME
    elif name == "qwen":
        from msd_core.runtimes import qwen

        return qwen.RUNTIME
    elif name == "copilot":
        from msd_core.runtimes import copilot

        return copilot.RUNTIME
    elif name == "kimi":
        from msd_core.runtimes import kimi

        return kimi.RUNTIME
    return RUNTIME


def permission_config(target):
    """The module (or stand-in) that plans the target runtime's shared-config permission entry."""
    from msd_core.runtimes.base import OWN_FILE_PERMISSION

    return get(target.runtime).shared or OWN_FILE_PERMISSION
