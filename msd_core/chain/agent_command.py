"""The command line `msd chain` starts for one agent step: a preset (`--agent claude`) or `--agent-cmd`.

Preset `claude` (verified with Claude Code 2.1.332 in headless mode):

    claude -p --allowedTools 'Bash(msd_run *)' Write Edit            (a step that writes files)
    claude -p --allowedTools 'Bash(msd_run *)' 'Bash(git add *)' 'Bash(git commit *)'   (a commit step)

- `-p`: headless; the brief arrives on stdin.
- `Bash(msd_run *)`: every step reports through `msd_run step-report` (and may read state).
- `Write`, `Edit`: steps that produce files (all but pure commit steps). Reading needs no rule.
- `Bash(git add *)`, `Bash(git commit *)`: steps that report `committed` or whose prompt
  asks for commits. The host checks each part of `git add … && git commit …` against
  these rules, so the compound form works too.
- `--allow RULE` adds rules (e.g. `Bash(npm test)` for an execute wave); nothing broader
  is ever added by msd.

With `--prompt-file` the brief is written to a file and the command gets one line telling
the model to read it, after `--` so that no list-valued option before it can swallow it:
`claude -p --allowedTools … -- "Read the step brief in <path> and follow it."`. An
`--agent-cmd` holding the word `{prompt}` gets the line in that place instead (no `--`).
"""

from __future__ import annotations

import re
import shlex

from msd_core.errors import UsageError

PRESETS = ("claude",)
PROMPT_TOKEN = "{prompt}"
REPORT_RULE = "Bash(msd_run *)"
WRITE_RULES = ("Write", "Edit")
GIT_RULES = ("Bash(git add *)", "Bash(git commit *)")
_COMMIT_WORD = re.compile(r"\bcommit", re.IGNORECASE)
_RULE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\([^()\n]*\))?$|^mcp__[A-Za-z0-9_-]+$")


def prompt_line(path: str) -> str:
    return f"Read the step brief in {path} and follow it."


def step_rules(step: dict) -> list[str]:
    """The narrowest permission rules one step needs (before --allow)."""
    expects = step.get("expects", {})
    fields = set(expects.get("fields", {}))
    files = expects.get("files", [])
    commits = "committed" in fields or bool(_COMMIT_WORD.search(step.get("prompt", "")))
    only_commit = fields <= {"committed"} and not files and "committed" in fields
    rules = [REPORT_RULE]
    if not only_commit:
        rules += WRITE_RULES
    if commits:
        rules += GIT_RULES
    return rules


class AgentCommand:
    def __init__(self, argv: list[str] | None = None, preset: str | None = None, allow: list[str] | None = None):
        if (argv is None) == (preset is None):
            raise UsageError("give either an agent preset or an agent command",
                             hint='e.g. the preset claude, or the command "my-agent --headless"')
        if preset is not None and preset not in PRESETS:
            raise UsageError(f"{preset!r} is not a known preset", hint="presets: " + ", ".join(PRESETS), about="agent")
        allow = list(allow or [])
        for rule in allow:
            if not _RULE_RE.match(rule):
                raise UsageError(f"{rule[:60]!r} is not a permission rule", hint="e.g. 'Bash(npm test)'", about="allow")
        if allow and preset is None:
            raise UsageError("permission rules work with agent presets", hint="put the flags into your agent command yourself",
                             about="allow")
        self.argv_base = argv
        self.preset = preset
        self.allow = allow

    def argv(self, step: dict, prompt_path: str | None = None) -> list[str]:
        """The command for `step`; with `prompt_path`, the line naming the brief file is placed safely."""
        line = prompt_line(prompt_path) if prompt_path else None
        if self.preset == "claude":
            rules = list(dict.fromkeys(step_rules(step) + self.allow))
            out = ["claude", "-p", "--allowedTools", *rules]
            return out + ["--", line] if line else out
        base = list(self.argv_base or [])
        if line is None:
            return [a for a in base if a != PROMPT_TOKEN]
        if PROMPT_TOKEN in base:
            return [line if a == PROMPT_TOKEN else a for a in base]
        return base + ["--", line]

    def shown(self, step: dict, prompt_file: bool) -> str:
        """The command line as --dry-run prints it."""
        if prompt_file:
            return shlex.join(self.argv(step, "<brief file>"))
        return shlex.join(self.argv(step)) + "  < brief on stdin"
