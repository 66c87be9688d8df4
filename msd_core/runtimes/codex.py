"""Codex CLI (formats from developers.openai.com/codex skills, subagents and rules pages, and
checked in the real CLI 0.171.0: `codex debug prompt-input` lists the skills it loaded,
`codex execpolicy check` evaluates our rules file). Custom prompts were removed from Codex,
so commands ship as skills.

  commands/msd/<name>.md  ->  skills/msd-<name>/SKILL.md   ($CODEX_HOME/skills globally,
      <project>/.codex/skills locally; both listed by Codex 0.171). Frontmatter `name` and
      `description` only. Codex renders no shell context and has no `@` includes, so the
      include lines become a list of files to read first, and a split workflow's shell line
      becomes the instruction to run `msd_run resolve <stem> --root <root> --raw` and read the
      listed files (references/compact-content-gate.md). A skill is invoked as `$msd-<name>`;
      its arguments are the rest of the user's message.
  agents/msd-<x>.md       ->  agents/msd-<x>.toml          name, description, developer_instructions
  permission              ->  rules/msd-core.rules         prefix_rule allowing `msd_run` (a file
      of our own; project rules load only in a trusted project).
  guard                   ->  hooks.json hooks.PreToolUse: msd's secret-read guard on Codex's shell
      tool and its `.planning/` write guard on its `apply_patch` (codex_hooks.py), run once the user
      trusts it in Codex's `/hooks` panel.
"""

from __future__ import annotations

import json

from msd_core.paths import Target
from msd_core.runtimes import codex_hooks
from msd_core.runtimes.base import Runtime, description_of, parse_frontmatter, raw_resolve, toml_bytes, unrendered_body, with_frontmatter

RULES_REL = "rules/msd-core.rules"


class Codex(Runtime):
    name = "codex"
    label = "Codex CLI"
    shared = codex_hooks.SETTINGS  # type: ignore[assignment]  # plan_add/plan_remove (base.Runtime.shared)
    renders_shell = False
    command_path = "skills/msd-{stem}/SKILL.md"

    def installed_relpath(self, source_rel: str) -> str | None:
        rel = super().installed_relpath(source_rel)
        if rel and rel.startswith("agents/"):
            return rel[:-3] + ".toml"
        return rel

    def owned_areas(self) -> tuple[str, ...]:
        return ("skills/", "agents/")

    def command_ref(self, name: str) -> str:
        return f"$msd-{name}"

    def gate_text(self, stem: str, root: str) -> str:
        return f"`{raw_resolve(stem, root)}`"

    def command(self, name: str, data: bytes, target: Target) -> tuple[bytes, list[str]]:
        meta, body = parse_frontmatter(data)
        reads, out = unrendered_body(self, body)
        head = []
        if reads:
            head = ["Read these files first, in order (they are this skill's instructions):", "",
                    *[f"- `{p}`" for p in reads], ""]
        text = "\n".join([*head, *out]).strip("\n") + "\n"
        desc = description_of(meta, body, f"msd {name} command")
        return with_frontmatter(f"name: msd-{name}\ndescription: {json.dumps(desc, ensure_ascii=False)}\n", text), []

    def agent(self, name: str, data: bytes, target: Target) -> bytes:
        meta, body = parse_frontmatter(data)
        doc = {"name": str(meta.get("name") or name), "description": description_of(meta, body, f"msd agent {name}"),
               "developer_instructions": body.strip("\n") + "\n"}
        return toml_bytes(doc)

    def own_files(self, target: Target) -> dict[str, bytes]:
        rules = (
            "# Written by msd-core (msd install --runtime codex): lets the agent run msd_run without a prompt.\n"
            "prefix_rule(\n"
            '    pattern = ["msd_run"],\n'
            '    decision = "allow",\n'
            '    justification = "msd-core\'s own runtime: reads and updates the project\'s .planning files",\n'
            '    match = ["msd_run state json", "msd_run resolve plan-phase --raw"],\n'
            '    not_match = ["msd run", "rm -rf msd_run"],\n'
            ")\n"
        )
        return {RULES_REL: rules.encode("utf-8")}


RUNTIME = Codex()
