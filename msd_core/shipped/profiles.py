"""Install profiles: which shipped commands an install holds, and the files they need.

  full   every command, workflow and agent (the default)
  core   the daily loop and what its content offers, CORE_COMMANDS, and the files those need

What a set of commands needs is read from the shipped text, so no hand-kept list can drift:
  - each command's source file (commands/msd/<name>.md);
  - every workflow such a file names (`workflows/<stem>` or `resolve <stem>`), and in turn
    every workflow a needed workflow's files name; a workflow's files are its spine
    (msd-core/workflows/<stem>.md), its detail parts (msd-core/workflows/<stem>/...) and its
    railroad flow (msd-core/flows/<stem>.toml);
  - every agent a needed file names (`msd-<agent>`, for a shipped agent); an agent's files are
    agents/msd-<agent>.md, its skill payloads (msd-core/agent-skills/<agent>[.compact].md) and
    its extensions (msd-core/agent-ext/<agent>/...).
Every other file (references, templates, registry.json, VERSION) belongs to no command or
agent and is in every profile. `select()` keeps the source files of a profile; the installer
(msd_core/install/transform.py) then decides where each goes; where a runtime lists every
agent to the model on every turn, a core install puts the agents' files where the host does not
list them (runtimes: `Runtime.unlisted_agent_relpath`), and the content spawns them through the
host's own general agent (references/spawning-agents.md), which fetches its role first (the
skill payload says how: msd_core/agents/skills.py).

Standard library only.
"""

from __future__ import annotations

import re

from msd_core.shipped.layout import AGENT_EXT_PREFIX, AGENT_SKILLS_PREFIX, AGENTS_PREFIX, COMMANDS_PREFIX, WORKFLOWS_PREFIX

FULL = "full"
CORE = "core"
PROFILES = (CORE, FULL)
DEFAULT = FULL
# the daily loop, the first steps a newcomer is pointed to (mapping existing code, settings), and the
# person-only commands the loop's content offers (they add nothing to the host's listing); every
# `/msd-<name>` a core install's files name is one of these (msd check content, rule named-commands)
CORE_COMMANDS = ("new-project", "discuss-phase", "plan-phase", "execute-phase", "verify-work", "progress",
                 "map-codebase", "settings", "ui-phase", "secure-phase", "ui-review", "add-tests")

FLOWS_PREFIX = "msd-core/flows/"
_WORKFLOW_NAMED = re.compile(r"(?:workflows/|\bresolve\s+)([a-z][a-z0-9-]*)")
_AGENT_NAMED = re.compile(r"\bmsd-([a-z][a-z0-9-]*)")


def check(profile: str) -> str:
    """The profile name, or ValueError naming the choices."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}: choose {' or '.join(PROFILES)}")
    return profile


def commands_of(profile: str, shipped: list[str]) -> list[str]:
    """The command names a profile holds, of the shipped ones."""
    check(profile)
    return list(shipped) if profile == FULL else [c for c in shipped if c in CORE_COMMANDS]


def owner(rel: str) -> tuple[str, str] | None:
    """("command" | "workflow" | "agent", name) of a source file that belongs to one; None when shared."""
    if rel.startswith(COMMANDS_PREFIX) and rel.endswith(".md") and "/" not in rel[len(COMMANDS_PREFIX):]:
        return "command", rel[len(COMMANDS_PREFIX):-3]
    if rel.startswith(WORKFLOWS_PREFIX):
        head = rel[len(WORKFLOWS_PREFIX):].split("/", 1)[0]
        return "workflow", head[:-3] if head.endswith(".md") else head
    if rel.startswith(FLOWS_PREFIX) and rel.endswith(".toml"):
        return "workflow", rel[len(FLOWS_PREFIX):-5]
    if rel.startswith(AGENTS_PREFIX) and rel.startswith(AGENTS_PREFIX + "msd-") and rel.endswith(".md"):
        return "agent", rel[len(AGENTS_PREFIX) + 4:-3]
    if rel.startswith(AGENT_SKILLS_PREFIX) and rel.endswith(".md"):
        name = rel[len(AGENT_SKILLS_PREFIX):-3]
        return "agent", name[:-len(".compact")] if name.endswith(".compact") else name
    if rel.startswith(AGENT_EXT_PREFIX):
        return "agent", rel[len(AGENT_EXT_PREFIX):].split("/", 1)[0]
    return None


def needed(files: list[tuple[str, bytes]], commands: list[str]) -> dict[str, set[str]]:
    """{"command", "workflow", "agent": names} the given commands need (module doc)."""
    owned: dict[tuple[str, str], list[bytes]] = {}
    for rel, data in files:
        key = owner(rel)
        if key is not None:
            owned.setdefault(key, []).append(data)
    agents = {name for kind, name in owned if kind == "agent"}
    workflows = {name for kind, name in owned if kind == "workflow"}
    out: dict[str, set[str]] = {"command": set(commands), "workflow": set(), "agent": set()}
    todo = [("command", c) for c in commands]
    while todo:
        key = todo.pop()
        for data in owned.get(key, ()):
            text = data.decode("utf-8", errors="replace")
            for stem in _WORKFLOW_NAMED.findall(text):
                if stem in workflows and stem not in out["workflow"]:
                    out["workflow"].add(stem)
                    todo.append(("workflow", stem))
            for name in _AGENT_NAMED.findall(text):
                if name in agents and name not in out["agent"]:
                    out["agent"].add(name)
                    todo.append(("agent", name))
    return out


def kept(files: list[tuple[str, bytes]], profile: str) -> dict[str, set[str]]:
    """{"command", "workflow", "agent": names} an install of `profile` holds, of source `files`."""
    shipped = [key[1] for rel, _ in files if (key := owner(rel)) and key[0] == "command"]
    if check(profile) == FULL:
        return {kind: {key[1] for rel, _ in files if (key := owner(rel)) and key[0] == kind}
                for kind in ("command", "workflow", "agent")}
    return needed(files, commands_of(profile, shipped))


def select(files: list[tuple[str, bytes]], profile: str) -> list[tuple[str, bytes]]:
    """The source files (relpath, bytes) an install of `profile` holds, in the given order."""
    if check(profile) == FULL:
        return list(files)
    keep = kept(files, profile)
    return [(rel, data) for rel, data in files if (key := owner(rel)) is None or key[1] in keep[key[0]]]
