"""Rule `frontmatter`: every command and agent file opens with frontmatter the hosts can read.

A command's or agent's frontmatter must be valid YAML (an unquoted `: ` inside a description
breaks it, and the installer, the runtimes' converters and the hosts then reject the file), a
mapping, with a non-empty string `description`.
"""

from __future__ import annotations

from msd_core.checks.model import AGENT_RE, COMMAND_RE, CheckContext, Violation
from msd_core.checks.textlines import frontmatter

RULE = "frontmatter"
FIX = "quote the value or drop the `: ` from it; keep `description:` one plain line"


def check(ctx: CheckContext) -> list[Violation]:
    out: list[Violation] = []
    for rel in ctx.tree.markdown_files():
        if not (COMMAND_RE.match(rel) or AGENT_RE.match(rel)):
            continue
        meta, err = frontmatter(ctx.tree.lines(rel))
        if err:
            out.append(Violation(rel, 1, RULE, err, FIX))
        elif meta is None:
            out.append(Violation(rel, 1, RULE, "no frontmatter", "open the file with `---`, `description: ...`, `---`"))
        elif not isinstance(meta.get("description"), str) or not meta["description"].strip():
            out.append(Violation(rel, 1, RULE, "frontmatter has no `description` text", FIX))
    return out
