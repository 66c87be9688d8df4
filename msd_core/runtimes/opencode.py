"""OpenCode (formats from opencode.ai/docs commands, agents, permissions, and checked in the real
CLI 1.18.33 with `opencode debug config` and `opencode agent list`).

  commands/msd/<name>.md  ->  commands/msd-<name>.md   invoked as /msd-<name>
      markdown, frontmatter `description`; the body is the template: `$ARGUMENTS`, `@path`
      file references and !`cmd` shell output work as in Claude Code, so the lines stay as
      they are (the host renders shell context: detail parts are inserted).
  agents/msd-<x>.md       ->  agents/msd-<x>.md        frontmatter description, `mode: subagent`,
      and `permission` denying edit / webfetch where the Claude agent has no such tool.
  permission              ->  opencode.json            `permission.bash["msd_run *"] = "allow"`,
      only that entry (runtimes/opencode_config.py).
  guard                   ->  plugins/msd-guard.js     msd's own plugin file: before each tool call
      it runs `msd_run hook opencode-pre-tool-use` and stops a call msd refuses (opencode_plugin.py;
      msd_core/hooks/opencode.py). OpenCode has no command hooks; it loads every file in a config
      folder's plugins/ by itself. The manifest owns the file: uninstall removes exactly it.
"""

from __future__ import annotations

from msd_core.paths import Target
from msd_core.runtimes import opencode_config, opencode_plugin
from msd_core.runtimes.base import Runtime, description_of, parse_frontmatter, with_frontmatter


def _yaml(obj: dict) -> str:
    import yaml

    return yaml.safe_dump(obj, sort_keys=False, allow_unicode=True, width=1000)


class OpenCode(Runtime):
    name = "opencode"
    label = "OpenCode"
    renders_shell = True
    shared = opencode_config
    command_path = "commands/msd-{stem}.md"

    def owned_areas(self) -> tuple[str, ...]:
        return ("commands/", "agents/")

    def command(self, name: str, data: bytes, target: Target) -> tuple[bytes, list[str]]:
        meta, body = parse_frontmatter(data)
        front = {"description": description_of(meta, body, f"msd {name} command")}
        return with_frontmatter(_yaml(front), body.lstrip("\n")), []

    def agent(self, name: str, data: bytes, target: Target) -> bytes:
        meta, body = parse_frontmatter(data)
        tools = {t.strip() for t in str(meta.get("tools") or "").split(",") if t.strip()}
        front: dict = {"description": description_of(meta, body, f"msd agent {name}"), "mode": "subagent"}
        deny = {}
        if tools and not tools & {"Write", "Edit"}:
            deny["edit"] = "deny"
        if tools and "WebFetch" not in tools:
            deny["webfetch"] = "deny"
        if deny:
            front["permission"] = deny
        return with_frontmatter(_yaml(front), body.lstrip("\n"))

    def own_files(self, target: Target) -> dict[str, bytes]:
        return {opencode_plugin.PLUGIN_REL: opencode_plugin.plugin_file(target)}


RUNTIME = OpenCode()
