"""Rule `field-spelling`: a workflow or agent names a template's field as the template spells it.

A markdown template (`msd-core/templates/*.md`) writes each label line either plain
(`Requirements: AUTH-01`) or bold (`**Requirements**:`). An agent that reads a workflow's
`**Requirements**:` where the template (and so every file made from it) writes
`Requirements:` looks for a line that is not there. Fails: a code span in any other markdown
file of the content that starts with a bold spelling (`**Label**` or `**Label:**`) of a label
every template writing it writes plain. A line that says "older" names an older file's
spelling on purpose (`Plans:` (`**Plans**:` in older roadmaps)) and passes. The runtime's
readers accept both spellings (msd_core.planning.roadmap); this rule keeps the content to one.
"""

from __future__ import annotations

import re

from msd_core.checks.fields import _LABEL_RE, _TEMPLATE_RE, _template_fields
from msd_core.checks.model import CheckContext, Violation

RULE = "field-spelling"
_BOLD_SPAN = re.compile(r"`\*\*([A-Za-z][\w /-]{0,40}?)(?::\*\*|\*\*)")
_OLDER = re.compile(r"\bolder\b", re.I)


def _styles(ctx: CheckContext) -> dict[str, set[str]]:
    """{label: the spellings (plain, bold) the markdown templates write it in}."""
    out: dict[str, set[str]] = {}
    for rel in ctx.tree.files:
        if not _TEMPLATE_RE.match(rel) or not rel.endswith(".md"):
            continue
        text = ctx.tree.text(rel) or ""
        lines = text.splitlines()
        for n, name in _template_fields(rel, text):
            m = _LABEL_RE.match(lines[n - 1]) if 0 < n <= len(lines) else None
            if m:
                out.setdefault(name, set()).add("bold" if m.group("b") else "plain")
    return out


def check(ctx: CheckContext) -> list[Violation]:
    plain = {name for name, styles in _styles(ctx).items() if styles == {"plain"}}
    if not plain:
        return []
    out: list[Violation] = []
    for rel in ctx.tree.markdown_files():
        if _TEMPLATE_RE.match(rel):
            continue
        for i, line in enumerate(ctx.tree.lines(rel), 1):
            if _OLDER.search(line):
                continue
            for m in _BOLD_SPAN.finditer(line):
                name = m.group(1).strip()
                if name in plain:
                    out.append(Violation(rel, i, RULE, f"names the field as `**{name}**:`; the template writes `{name}:`",
                                         f"write `{name}:` as the template does (msd-core/templates/)"))
    return out
