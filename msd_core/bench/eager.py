"""What a host loads for a command: the command file plus everything it `@`-includes.

Works on a source content tree (laid out like msd_core/content). Include lines are lines
whose first non-space character is `@` followed by `~/.claude/<path>`; they are followed
recursively (each file counted once). Project references (`@.planning/...`) are not
content and are not followed.
"""

from __future__ import annotations

import re
from pathlib import Path

INCLUDE_RE = re.compile(r"^\s*@~/\.claude/(\S+)\s*$")


def source_path_for(installed_rel: str) -> str | None:
    """Map an installed path (under <config>) back to its source path in the content tree."""
    if installed_rel.startswith("msd-core/") or installed_rel.startswith("agents/"):
        return installed_rel
    m = re.fullmatch(r"skills/msd-([a-z0-9-]+)/SKILL\.md", installed_rel)
    if m:
        return f"commands/msd/{m.group(1)}.md"
    return None


def includes_of(text: str) -> list[str]:
    """Installed relpaths named by `@~/.claude/...` include lines, in order."""
    out = []
    for line in text.splitlines():
        m = INCLUDE_RE.match(line)
        if m:
            out.append(m.group(1))
    return out


def eager_closure(root: Path, source_rel: str) -> list[str]:
    """Source relpaths loaded eagerly for `source_rel`: itself first, then includes depth-first."""
    seen: list[str] = []

    def visit(rel: str) -> None:
        if rel in seen:
            return
        path = root / rel
        if not path.is_file():
            return
        seen.append(rel)
        for inc in includes_of(path.read_text(encoding="utf-8", errors="replace")):
            src = source_path_for(inc)
            if src:
                visit(src)

    visit(source_rel)
    return seen
