"""An agent name -> its role: the installed agent file's instructions, for a host agent that is not it.

A core install keeps msd's agent files out of the host's per-turn agent listing
(msd_core/shipped/profiles.py); the orchestrator then spawns the host's general agent, and the
skill payload it pastes starts with the line that has that agent run `msd_run agent-role
<agent>` first and act as the role printed (agents/skills.py, `role_line`). The text is the
installed agent file (the manifest registry's `core` path, hash-checked) without its
frontmatter, after one line naming the agent and the tools its file allows: the host does not
enforce those for a general agent, so the role says them.
"""

from __future__ import annotations

import os

from msd_core.agents.skills import agent_entry
from msd_core.errors import IntegrityError

AGENT_FILES = ("agents/", "msd-core/agents/")


def _split(text: str) -> tuple[dict[str, str], str]:
    """Top-level `key: value` lines of a frontmatter block, and the body after it."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 4)
    if end == -1:
        return {}, text
    meta = {}
    for line in text[4:end].splitlines():
        key, sep, value = line.partition(":")
        if sep and key and not key.startswith((" ", "\t", "#")):
            meta[key.strip()] = value.strip()
    return meta, text[end + len("\n---\n"):]


def agent_role(agent: str, root=None, cwd: str | os.PathLike | None = None) -> tuple[str, str]:
    """(installed path, role text) of `agent` in the install at `root`."""
    install, entry = agent_entry(agent, root)
    rel = entry.get("core") if isinstance(entry, dict) else None
    if not isinstance(rel, str) or not rel.startswith(AGENT_FILES) or ".." in rel.split("/"):
        raise IntegrityError(f"install manifest registry has an invalid path for agent {agent}")
    try:
        text = install.read(rel).decode("utf-8")
    except UnicodeDecodeError:
        raise IntegrityError(f"installed file {install.abspath(rel)} is not UTF-8") from None
    meta, body = _split(text)
    name = meta.get("name") or f"msd-{agent}"
    tools = meta.get("tools")
    head = f"Role: {name}; " + (f"use only these tools: {tools}." if tools else "any tool may be used.")
    return install.abspath(rel), head + "\n\n" + body.lstrip("\n")
