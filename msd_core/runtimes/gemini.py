"""Gemini CLI (formats read from its docs and source, gemini-cli 0.56 nightly, Aug 2026:
docs/cli/custom-commands.md, docs/core/subagents.md, docs/reference/policy-engine.md).

  commands/msd/<name>.md  ->  commands/msd/<name>.toml   invoked as /msd:<name>
      TOML with `description` and `prompt`; in the prompt `{{args}}` is the argument
      placeholder, `@{path}` inserts a file and `!{cmd}` inserts a shell command's output
      before the model reads it (the host renders shell context, so detail parts are
      inserted as in Claude Code). `@{}` reads only inside the workspace: a local install
      (`.gemini/` in the project) is; a global one needs `--include-directories ~/.gemini`.
  agents/msd-<x>.md       ->  agents/msd-<x>.md          frontmatter name, description, tools
      (Gemini tool names); unknown keys such as `color` are dropped.
  permission              ->  policies/msd-core.toml     a policy file of our own allowing the
      `msd_run` shell prefix (user tier; the docs say workspace-tier policies are not read yet,
      so a local install's copy takes effect once Gemini reads them).
  guard                   ->  settings.json hooks.BeforeTool: msd's secret-read guard on Gemini's
      `run_shell_command` and `read_file` calls, its `.planning/` write guard on `write_file` and
      `replace` (gemini_settings.py; msd_core/hooks/gemini.py).
"""

from __future__ import annotations

import re

from msd_core.paths import Target
from msd_core.runtimes import gemini_settings
from msd_core.runtimes.base import (
    INCLUDE_LINE,
    SHELL_LINE,
    Runtime,
    description_of,
    parse_frontmatter,
    raw_resolve,
    resolve_call,
    toml_bytes,
    with_frontmatter,
)

TOOLS = {
    "Read": "read_file", "Write": "write_file", "Edit": "replace", "Bash": "run_shell_command",
    "Grep": "grep_search", "Glob": "glob", "WebFetch": "web_fetch", "WebSearch": "google_web_search",
}
POLICY_REL = "policies/msd-core.toml"
# Gemini CLI 0.61 can cut a `!{...}` output short when it runs the command in its
# pseudo-terminal (setting tools.shell.enableInteractiveShell, on by default): it inserted 4,000
# to 12,000 characters of longer outputs, then "[... terminated by signal 0]". The budget keeps
# the insertion small, and the prompt says how to read what was cut (tests/runtimes/test_gemini_cli.py).
EMIT_BUDGET = 8000


class Gemini(Runtime):
    name = "gemini"
    label = "Gemini CLI"
    renders_shell = True
    command_path = "commands/msd/{stem}.toml"
    shared = gemini_settings.SETTINGS  # type: ignore[assignment]  # plan_add/plan_remove (base.Runtime.shared)

    def owned_areas(self) -> tuple[str, ...]:
        return ("commands/msd/", "agents/")

    def command_ref(self, name: str) -> str:
        return f"/msd:{name}"

    def command(self, name: str, data: bytes, target: Target) -> tuple[bytes, list[str]]:
        meta, body = parse_frontmatter(data)
        lines = []
        for line in body.split("\n"):
            m = SHELL_LINE.match(line)
            if m:
                # No `|| true`: Gemini inserts a failed command's output with its exit status,
                # and the spine then runs alone (references/compact-content-gate.md).
                cmd = m.group("cmd")
                cmd = cmd[:-len(" || true")] if cmd.endswith(" || true") else cmd
                if " --emit --root " in cmd:  # parts over the budget are listed by path instead
                    cmd = cmd.replace(" --emit --root ", f" --emit --max-chars {EMIT_BUDGET} --root ", 1)
                lines.append("!{" + cmd + "}")
                found = resolve_call(cmd)
                if found:
                    lines.append("(If the detail parts above end early, at a `[Shell command` line, run "
                                 f"`{raw_resolve(*found)}` and read the files it lists that were not inserted.)")
                continue
            m = INCLUDE_LINE.match(line)
            if m:
                lines.append("@{" + m.group("path") + "}")
                continue
            lines.append(line.replace("$ARGUMENTS", "{{args}}"))
        prompt = "\n".join(lines).strip("\n") + "\n"
        doc = {"description": description_of(meta, body, f"msd {name} command"), "prompt": prompt}
        return toml_bytes(doc), []

    def agent(self, name: str, data: bytes, target: Target) -> bytes:
        meta, body = parse_frontmatter(data)
        out = [f"name: {meta.get('name') or name}",
               "description: " + _yaml_str(description_of(meta, body, f"msd agent {name}"))]
        tools = meta.get("tools")
        if isinstance(tools, str):
            names = [TOOLS.get(t.strip(), None) for t in tools.split(",") if t.strip()]
            mapped = [t for t in names if t]
            if mapped:
                out.append("tools:")
                out.extend(f"  - {t}" for t in mapped)
        return with_frontmatter("".join(line + "\n" for line in out), body.lstrip("\n"))

    def gate_text(self, stem: str, root: str) -> str:
        return f"!{{msd_run resolve {stem} --emit --max-chars {EMIT_BUDGET} --root {root}}}"

    def own_files(self, target: Target) -> dict[str, bytes]:
        policy = {"rule": [{
            "toolName": "run_shell_command", "commandPrefix": "msd_run", "decision": "allow", "priority": 100,
        }]}
        head = b"# Written by msd-core (msd install --runtime gemini): lets the agent run msd_run without a prompt.\n"
        return {POLICY_REL: head + toml_bytes(policy)}


def _yaml_str(text: str) -> str:
    import json

    return json.dumps(text, ensure_ascii=False) if re.search(r"[:#\"'{}\[\],&*!|>%@`]", text) else text


RUNTIME = Gemini()
