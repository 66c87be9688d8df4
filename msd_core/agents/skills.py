"""An agent name -> the skill payload an orchestrator appends when it spawns that agent.

compact on + a compact variant -> the compact payload; otherwise the canonical one.
Compact on without a compact variant -> the canonical payload with one line inserted
saying so (never empty, never an error). Every payload is hash-checked.
An agent the install keeps out of the host's listing (a core install: msd_core/shipped/profiles.py)
is spawned as the host's general agent; its payload then starts with the line that has that
agent fetch its role (`role_line`, `msd_run agent-role`), so the orchestrator, which pastes the
payload verbatim, passes it on without a rule of its own.
"""

from __future__ import annotations

import os

from msd_core.errors import IntegrityError, UsageError
from msd_core.resolve.installed import open_install, registered_relpath
from msd_core.resolve.names import check_name
from msd_core.resolve.parts import compact_for
from msd_core.shipped.layout import UNLISTED_AGENTS_PREFIX

SKILLS_PREFIX = "msd-core/agent-skills/"


def no_compact_line(agent: str) -> str:
    return (f"<!-- msd: compact content is on, but {agent} has no compact skill payload; "
            "this is the canonical payload -->")


class Payload:
    __slots__ = ("agent", "compact", "variant", "path", "text", "layers")

    def __init__(self, agent: str, compact: bool, variant: str | None, path: str | None, text: str, layers=None):
        self.agent = agent
        self.compact = compact
        self.variant = variant  # "compact" | "canonical" | None (the agent has no payload)
        self.path = path
        self.text = text
        self.layers = layers

    def to_json(self) -> dict:
        return {"agent": self.agent, "compact": self.compact, "variant": self.variant, "path": self.path, "text": self.text}


def insert_line(text: str, line: str) -> str:
    """`line` as the first line of the body (after a YAML frontmatter block, if any)."""
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end != -1:
            cut = end + len("\n---\n")
            return text[:cut] + line + "\n" + text[cut:]
    return line + "\n" + text


def agent_entry(agent: str, root=None):
    """(the install at `root`, its registry entry for `agent`); UsageError naming the closest agent."""
    check_name(agent, "agent name")
    install = open_install(root)
    agents = install.section("agents")
    entry = agents.get(agent)
    if entry is None:
        import difflib

        close = difflib.get_close_matches(agent, [k for k in agents if isinstance(k, str)], n=1)
        raise UsageError(f"unknown agent {agent!r} in the install at {install.root}",
                         hint=f"did you mean {close[0]}?" if close else "the name must be an installed agent")
    return install, entry


def agent_skills(agent: str, root=None, cwd: str | os.PathLike | None = None, layers=None) -> Payload:
    check_name(agent, "agent name")
    compact, layers = compact_for(cwd, layers)
    install, entry = agent_entry(agent, root)
    skills = entry.get("skills") if isinstance(entry, dict) else None
    if not isinstance(skills, dict):
        raise IntegrityError(f"install manifest registry entry for agent {agent} is invalid")
    canonical, compact_rel = skills.get("canonical"), skills.get("compact")
    if compact and compact_rel:
        variant, rel = "compact", compact_rel
    elif canonical:
        variant, rel = "canonical", canonical
    elif compact_rel:
        variant, rel = "compact", compact_rel
    else:
        return Payload(agent, compact, None, None, role_line(agent, install, entry) or "", layers)
    rel = registered_relpath(rel, SKILLS_PREFIX, agent)
    try:
        text = install.read(rel).decode("utf-8")
    except UnicodeDecodeError:
        raise IntegrityError(f"installed file {install.abspath(rel)} is not UTF-8") from None
    if compact and variant == "canonical":
        text = insert_line(text, no_compact_line(agent))
    role = role_line(agent, install, entry)
    if role:
        text = insert_line(text, role)
    return Payload(agent, compact, variant, install.abspath(rel), text, layers)


def role_line(agent: str, install, entry: dict) -> str | None:
    """The payload's first line for an agent installed where the host does not list it, else None."""
    core = entry.get("core") if isinstance(entry, dict) else None
    if isinstance(core, str) and core.startswith(UNLISTED_AGENTS_PREFIX):
        return f"Run `msd_run agent-role {agent} --root {install.root} --raw` first and act as the role it prints."
    return None
