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
  guard                   ->  hooks/msd-guard.json        msd's own file in Copilot's hooks folder (`.github/hooks/`,
      `~/.copilot/hooks/`): a preToolUse hook running `msd_run hook copilot-pre-tool-use`, msd's
      secret-read guard on Copilot's `bash` and `view` calls (msd_core/hooks/copilot.py). The user's
      own hook files are other files there, never touched; the manifest owns this one, so uninstall
      removes exactly it. A local install names `msd_run` by name (the committed `.github/` names no
      folder of this machine; Copilot runs the hook through the shell, so it must be on PATH, as the
      skills need): a hook that cannot start denies every tool call in Copilot (1.0.102), so the
      cause is seen at once. Copilot runs a repository's hooks only in a folder it trusts.

The local folder is the project's `.github/` (msd's tree in `.github/msd-core/`); use this or
`--runtime agents`, not both, in one project: Copilot would list each skill twice.
"""

from __future__ import annotations

import json
from pathlib import Path

from msd_core.paths import Target
from msd_core.runtimes.agents import ListedAgentSkills
from msd_core.runtimes.base import guard_command

GUARD_REL = "hooks/msd-guard.json"
GUARD_EVENT = "copilot-pre-tool-use"
TIMEOUT = 30  # seconds; the guard answers in milliseconds


def guard_hook(target: Target) -> bytes:
    """Copilot's hook file running msd's guard before each tool call (base.guard_command)."""
    command = guard_command(GUARD_EVENT, target.config, target.scope == "local")
    hooks = {"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": command, "timeoutSec": TIMEOUT}]}}
    return (json.dumps(hooks, indent=2) + "\n").encode("utf-8")


def find_guard(config) -> tuple[Path, dict | None, str | None]:
    """Where msd's hook is now (`msd status`; never writes): (its file, msd's preToolUse entry or None, why the
    file cannot be read)."""
    from msd_core.files.jsonedit import peek_at
    from msd_core.runtimes.config_entry import read_to_look

    obj, problem = read_to_look(config, GUARD_REL)
    if problem:
        return Path(config) / GUARD_REL, None, problem
    listed = peek_at(obj, ("hooks", "preToolUse"))
    ours = [h for h in listed if isinstance(h, dict) and f" hook {GUARD_EVENT} " in f" {h.get('bash')} "] \
        if isinstance(listed, list) else []
    return Path(config) / GUARD_REL, (ours[-1] if ours else None), None


class CopilotCLI(ListedAgentSkills):
    name = "copilot"
    label = "GitHub Copilot CLI (.github / ~/.copilot: skills and custom agents)"
    client = "Copilot CLI"
    spawn_tool = ("task", "agent_type")

    def own_files(self, target: Target) -> dict[str, bytes]:
        return {GUARD_REL: guard_hook(target)}


RUNTIME = CopilotCLI()
