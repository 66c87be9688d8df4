"""How the shipped content tree maps onto an installed Claude Code config folder.

Source (msd_core/content/)             Installed (<config>/)
  commands/msd/<name>.md          ->     skills/msd-<name>/SKILL.md
  agents/msd-<name>.md            ->     agents/msd-<name>.md
  msd-core/<anything>             ->     msd-core/<anything>

Standard library only.
"""

from __future__ import annotations

import re

COMMANDS_PREFIX = "commands/msd/"
AGENTS_PREFIX = "agents/"
CORE_PREFIX = "msd-core/"
WORKFLOWS_PREFIX = "msd-core/workflows/"
AGENT_EXT_PREFIX = "msd-core/agent-ext/"
AGENT_SKILLS_PREFIX = "msd-core/agent-skills/"
REGISTRY_SOURCE = "msd-core/registry.json"
UNLISTED_AGENTS_PREFIX = "msd-core/agents/"  # a core install's agent files on a host that lists agents/ every turn

# Names of commands, agents, workflow stems and extensions: lower-case words joined by '-'.
NAME_RE = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
MAX_NAME_LEN = 64


def is_static_name(name: str) -> bool:
    """A name that may appear as a stem/agent/command: ASCII lower-case, digits, single hyphens."""
    return isinstance(name, str) and 0 < len(name) <= MAX_NAME_LEN and bool(NAME_RE.fullmatch(name))


def installed_relpath(source_relpath: str) -> str | None:
    """Map a path inside msd_core/content to its path under <config>; None if not shipped."""
    rel = source_relpath.replace("\\", "/")
    if rel.startswith(COMMANDS_PREFIX):
        name = rel[len(COMMANDS_PREFIX):]
        if "/" in name or not name.endswith(".md"):
            return None
        stem = name[:-3]
        return f"skills/msd-{stem}/SKILL.md"
    if rel.startswith(AGENTS_PREFIX):
        name = rel[len(AGENTS_PREFIX):]
        if "/" in name or not (name.startswith("msd-") and name.endswith(".md")):
            return None
        return rel
    if rel.startswith(CORE_PREFIX):
        return rel
    return None


def command_name_from_source(source_relpath: str) -> str | None:
    rel = source_relpath.replace("\\", "/")
    if rel.startswith(COMMANDS_PREFIX) and rel.endswith(".md") and "/" not in rel[len(COMMANDS_PREFIX):]:
        return rel[len(COMMANDS_PREFIX):-3]
    return None
