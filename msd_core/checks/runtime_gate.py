"""The gate per runtime: every command that loads the spine of a split workflow (and carries
Claude Code's gate, which shell.py checks) carries, in each other runtime's installed form, the
instruction that runtime needs to get the detail parts.

Runtimes that render shell context before the model reads a command (Claude Code, Gemini CLI,
OpenCode) carry the runtime's `msd_run resolve <stem> --emit` line, so the parts are inserted;
the others carry the instruction to run `msd_run resolve <stem> ... --raw` and read the listed
files (msd_core/runtimes: `Runtime.gate_text`). The installed bytes are built here exactly as
`msd install` builds them, for a global target in a placeholder folder.
"""

from __future__ import annotations

import re
from pathlib import Path

from msd_core.checks.model import CheckContext, Violation
from msd_core.paths import Target

RULE = "runtime-gate"
SPINE_INCLUDE = re.compile(r"^@~/\.claude/msd-core/workflows/([a-z0-9-]+)\.md\s*$")
PLACEHOLDER = Path("/msd-runtime-gate-placeholder")


def check(ctx: CheckContext) -> list[Violation]:
    from msd_core.install.transform import installed_files
    from msd_core.runtimes import RUNTIMES, get
    from msd_core.shipped.layout import command_name_from_source

    tree = ctx.tree
    split = {s for s, wf in tree.workflows.items() if wf.spine and wf.parts}
    commands = {}
    for rel in tree.files:
        name = command_name_from_source(rel)
        if name is None:
            continue
        lines = tree.lines(rel)
        # Only commands whose own (Claude Code) gate is in place: a missing one is shell-context's report.
        stems = [m.group(1) for line in lines if (m := SPINE_INCLUDE.match(line.strip())) and m.group(1) in split
                 and any(x.strip().startswith(f"!`msd_run resolve {m.group(1)} --emit ") for x in lines)]
        if stems:
            commands[rel] = stems
    if not commands:
        return []
    files = [(rel, tree.data(rel)) for rel in tree.files]
    out: list[Violation] = []
    for name in RUNTIMES[1:]:  # Claude Code's own form is checked by shell.py
        rt = get(name)
        target = Target("global", PLACEHOLDER / name, name)
        desired, _warnings, skipped = installed_files(files, target, "0")
        for rel, stems in sorted(commands.items()):
            dest = rt.installed_relpath(rel)
            data = desired.get(dest or "")
            if data is None:
                why = next((s for s in skipped if s.startswith(rel + ":")), "not installed")
                out.append(Violation(rel, 1, RULE, f"{rt.label}: the command is not installed ({why})", "fix the command's frontmatter"))
                continue
            text = data.decode("utf-8", "replace")
            for stem in stems:
                want = rt.gate_text(stem, str(target.root))
                if want not in text:
                    out.append(Violation(rel, 1, RULE, f"{rt.label}: loads split workflow {stem!r} without its gate ({want!r})",
                                         "keep the `!`msd_run resolve <stem> --emit ...`` line right after the spine include"))
    return out
