"""Rule `includes`: `@` include lines resolve to shipped files; none in detail parts.

An include line is a line outside fenced code whose first non-space character is `@`
followed by a path (fenced code holds examples, e.g. Python decorators, not includes).
Checked in commands and workflow files (spines and whole workflows):
  - `@~/.claude/<path>`: <path> must be the installed path of a file in this tree
    (msd-core/... directly; skills/msd-<name>/SKILL.md and agents/msd-<name>.md through
    msd_core.shipped.layout); no `..` segment;
  - `@.planning/<path>`: a project file, allowed (no `..` segment);
  - anything else fails.
In a detail part any include line fails: parts are read, not expanded, so it would be dead text.
"""

from __future__ import annotations

import re

from msd_core.checks.model import PART_RE, WORKFLOW_RE, CheckContext, Violation, is_command
from msd_core.checks.textlines import FENCE_RE
from msd_core.paths import SOURCE_HOME_TOKEN
from msd_core.shipped.layout import installed_relpath

RULE = "includes"
INCLUDE_RE = re.compile(r"^\s*@(\S+)")


def include_lines(lines: list[str]) -> list[tuple[int, str]]:
    """(line, target) of every include line outside fenced code."""
    out = []
    fence: str | None = None
    for i, line in enumerate(lines, 1):
        m = FENCE_RE.match(line)
        if m:
            if fence is None and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                fence = m.group(1)
                continue
            if fence is not None and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
                fence = None
                continue
        if fence is not None:
            continue
        im = INCLUDE_RE.match(line)
        if im:
            out.append((i, im.group(1)))
    return out


def check(ctx: CheckContext) -> list[Violation]:
    tree = ctx.tree
    shipped = {}
    for rel in tree.files:
        inst = installed_relpath(rel)
        if inst:
            shipped[inst] = rel
    out: list[Violation] = []
    for rel in tree.markdown_files():
        part = bool(PART_RE.match(rel))
        if not (part or is_command(rel) or WORKFLOW_RE.match(rel)):
            continue
        for line, target in include_lines(tree.lines(rel)):
            if part:
                out.append(Violation(rel, line, RULE, f"`@{target}` include line in a detail part is dead text (parts are read, not expanded)",
                                     "move the include into the spine, or name the file without a leading @"))
                continue
            problem = _problem(target, shipped)
            if problem:
                out.append(Violation(rel, line, RULE, problem, "include a shipped file as @~/.claude/<installed path>, or a project file as @.planning/<path>"))
    return out


def _problem(target: str, shipped: dict[str, str]) -> str | None:
    if target.startswith(SOURCE_HOME_TOKEN):
        path = target[len(SOURCE_HOME_TOKEN):]
        if not path or ".." in path.split("/"):
            return f"`@{target}` is not a plain path inside the install"
        if path not in shipped:
            return f"`@{target}` does not resolve to a shipped file"
        return None
    if target.startswith(".planning/"):
        if ".." in target.split("/"):
            return f"`@{target}` leaves .planning/"
        return None
    return f"`@{target}` is neither a shipped file (@~/.claude/...) nor a project file (@.planning/...)"
