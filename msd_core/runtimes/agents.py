"""Agent Skills: the open format (agentskills.io/specification) most agent CLIs read from a
project's `.agents/skills/` and a user's `~/.agents/skills/` (proven in six real CLIs, Codex,
Gemini CLI, OpenCode, Qwen Code, Copilot CLI and Kimi Code: tests/runtimes/test_agents_cli.py and
test_agents_spine_cli.py; the README's Agent Skills table gives their versions and the others).

  commands/msd/<name>.md  ->  skills/msd-<name>/SKILL.md   a small spine: frontmatter `name`
      (= the folder) and `description` only, the files the command includes copied beside it
      as `references/<file>.md` (one level deep, each named in the body), and for a split
      workflow the instruction to run `msd_run resolve <stem> --root <root> --raw` and read the
      files it lists: the format renders no shell context and has no `$ARGUMENTS`, so the
      arguments are the rest of the user's request and the argument hint is a line of the body.
  agents/msd-<x>.md       ->  msd-core/agents/msd-<x>.md   the format has no subagents: every
      agent lives where no client lists it, its registry entry says so, so its skill payload
      starts with `msd_run agent-role` (msd_core/agents/skills.py), and a spine that spawns
      agents says in prose how to do the step with a client's own subagent, or without one.
  permission              ->  none: each client asks before running `msd_run` under its own policy.

The installed folder is `.agents/` (global `~/.agents/`): the skills go in its `skills/`, msd's
tree in its `msd-core/` (a folder no client reads as skills).
"""

from __future__ import annotations

import json
import posixpath

from msd_core.paths import SOURCE_HOME_TOKEN, Target
from msd_core.runtimes import base
from msd_core.shipped.layout import AGENTS_PREFIX, UNLISTED_AGENTS_PREFIX

SPAWN_REF = "spawning-agents.md"


def spawn_prose(root: str) -> str:
    """What a spine that spawns msd agents adds for clients without msd's agent types."""
    return ("This client has no `msd-<name>` agent types. Where a step spawns one, follow "
            f"`references/{SPAWN_REF}` with your client's own general subagent if it has one (the payload's first "
            "line has it fetch its role); where your client has none, do that step yourself: run "
            f"`msd_run agent-role <name> --root {root} --raw` (`<name>` without `msd-`), act as the role it prints "
            "for that step only, then go on here.")


def reference_names(includes: list[str]) -> dict[str, str]:
    """{included path: its file name under references/}: the file's own name, or, when two
    included files share one, `<folder>-<name>` for the later ones."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for path in includes:
        name = posixpath.basename(path)
        if name in taken:
            name = f"{posixpath.basename(posixpath.dirname(path))}-{name}"
        taken.add(name)
        out[path] = name
    return out


class AgentSkills(base.Runtime):
    name = "agents"
    label = "Agent Skills (.agents/skills)"
    renders_shell = False
    agents_unlisted = True
    command_path = "skills/msd-{stem}/SKILL.md"

    def installed_relpath(self, source_rel: str) -> str | None:
        rel = super().installed_relpath(source_rel)
        if rel and rel.startswith(AGENTS_PREFIX):
            return UNLISTED_AGENTS_PREFIX + rel[len(AGENTS_PREFIX):]
        return rel

    def owned_areas(self) -> tuple[str, ...]:
        return ("skills/",)

    def command_ref(self, name: str) -> str:
        return f"msd-{name}"

    def gate_text(self, stem: str, root: str) -> str:
        return f"`{base.raw_resolve(stem, root)}`"

    def spawn_text(self, root: str) -> str:
        """What a spine that spawns msd agents adds on how to spawn them in this install's clients."""
        return spawn_prose(root)

    def command_references(self, name: str, data: bytes) -> dict[str, str]:
        """{installed relpath: source relpath} of the files command `name` includes, copied into
        its skill's references/ folder."""
        _meta, body = base.parse_frontmatter(data)
        includes = [m.group("path") for line in body.split("\n") if (m := base.INCLUDE_LINE.match(line))]
        out = {}
        for path, ref in reference_names(includes).items():
            if path.startswith(SOURCE_HOME_TOKEN):
                out[f"skills/msd-{name}/references/{ref}"] = path[len(SOURCE_HOME_TOKEN):]
        return out

    def command(self, name: str, data: bytes, target: Target) -> tuple[bytes, list[str]]:
        meta, body = base.parse_frontmatter(data)
        if any((m := base.SHELL_LINE.match(line)) and not base.resolve_call(m.group("cmd")) for line in body.split("\n")):
            raise ValueError("a shell line the Agent Skills format cannot render")
        includes, out = base.unrendered_body(self, body)
        refs = reference_names(includes)
        head = []
        if refs:
            head = ["Read these files of this skill first, in order (they are its instructions):", "",
                    *[f"- `references/{ref}`" for ref in refs.values()], ""]
        if SPAWN_REF in refs.values():
            head += [self.spawn_text(SOURCE_HOME_TOKEN + "msd-core"), ""]
        hint = meta.get("argument-hint")
        tail = ["", f"Arguments: `{' '.join(str(hint).split())}`"] if hint else []
        text = "\n".join([*head, *out]).strip("\n") + "\n" + ("\n".join(tail) + "\n" if tail else "")
        desc = base.description_of(meta, body, f"msd {name} command")
        return base.with_frontmatter(f"name: msd-{name}\ndescription: {json.dumps(desc, ensure_ascii=False)}\n", text), []


def subagent_file(name: str, data: bytes) -> bytes:
    """A subagent file for msd agent `name` (shipped bytes `data`) as Qwen Code and Copilot CLI read
    one: frontmatter `name` and `description` only, then the body (the agent's system prompt).
    Claude's `tools` names are not theirs and `color` is Claude's palette: both dropped, so the
    agent has the client's own tools."""
    meta, body = base.parse_frontmatter(data)
    desc = base.description_of(meta, body, f"msd agent {name}")
    front = f"name: {meta.get('name') or name}\ndescription: {json.dumps(desc, ensure_ascii=False)}\n"
    return base.with_frontmatter(front, body.lstrip("\n"))


class ListedAgentSkills(AgentSkills):
    """The Agent Skills install in a client's own folder where it also lists subagents
    (`<folder>/agents/msd-<x>.md`, subagent_file): qwen.py, copilot.py."""

    agents_unlisted = False
    client = ""  # the client's name in a spine's text
    spawn_tool = ("", "")  # (its subagent tool, that tool's parameter naming the agent type)

    def installed_relpath(self, source_rel: str) -> str | None:
        return base.Runtime.installed_relpath(self, source_rel)

    def spawn_text(self, root: str) -> str:
        tool, param = self.spawn_tool
        return (f"In {self.client} msd's agents are your `{tool}` tool's agent types: where a step spawns `msd-<name>`, "
                f"follow `references/{SPAWN_REF}` with that tool (`{param}: msd-<name>`; leave out `model`, "
                "the names `msd_run model` prints are Claude's).")

    def owned_areas(self) -> tuple[str, ...]:
        return ("skills/", "agents/")

    def agent(self, name: str, data: bytes, target: Target) -> bytes:
        return subagent_file(name, data)


RUNTIME = AgentSkills()
