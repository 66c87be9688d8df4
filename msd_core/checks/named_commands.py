"""Rule `named-commands`: every command an installed file names is installed beside it.

An install profile (msd_core.shipped.profiles) holds some of the commands; the files it installs
(commands, workflows and their parts, agents, and the shared references and templates) must
name only those. A `/msd-<name>` that the profile does not hold sends the user (or the agent)
to a command that is not there: `--profile core` once suggested `/msd-map-codebase` at the very
first step. Checked for every profile, over the source files the profile selects, one
violation per file, line and command; `/msd-core` (the installed folder) is not a command.
"""

from __future__ import annotations

import re

from msd_core.checks.model import CheckContext, Violation
from msd_core.shipped import profiles

RULE = "named-commands"
NAMED = re.compile(r"(?<![\w/.~-])/msd-([a-z][a-z0-9-]*)")
NOT_COMMANDS = frozenset({"core"})


def check(ctx: CheckContext) -> list[Violation]:
    tree = ctx.tree
    files = [(rel, tree.data(rel)) for rel in tree.files]
    out: list[Violation] = []
    for profile in profiles.PROFILES:
        held = profiles.kept(files, profile)["command"]
        for rel, data in profiles.select(files, profile):
            if not rel.endswith((".md", ".toml", ".json")) or rel.endswith("registry.json"):
                continue
            text = data.decode("utf-8", errors="replace")
            if "/msd-" not in text:
                continue
            for n, line in enumerate(text.splitlines(), 1):
                for name in sorted({m.group(1) for m in NAMED.finditer(line)} - NOT_COMMANDS - held):
                    out.append(Violation(rel, n, RULE, f"names /msd-{name}, which the {profile} profile does not install",
                                         f"add {name} to the profile (msd_core/shipped/profiles.py) or name "
                                         "what the profile holds"))
    return out
