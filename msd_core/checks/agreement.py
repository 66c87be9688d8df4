"""Rules `template-headings` and `deviation-labels`: content agrees with the files it names.

template-headings. Templates that share a name before their first `-`
(`templates/summary-minimal.md`, `summary-standard.md`, `summary-complex.md`) form a
family: code picks one of them at run time (`msd_run template select`), so an agent
told to fill a heading may hold any of them. A content file that speaks of the family
(its upper-case name, `SUMMARY`, or `templates/<family>`) and quotes a heading title
(`"Next Phase Readiness"`, straight double quotes) that is a `##`/`###` heading of some
template of the family must find it in every template of the family. Quoting it with
its hashes (`"## User Setup Required"`) is an instruction to add the heading and passes.
A single-template family cannot disagree with itself; a title that a template outside
the family also uses as a heading (CONTEXT.md's "Decisions") is ambiguous and not checked.

deviation-labels. The executor's deviation rules (`agent-ext/executor/deviation-rules.md`)
name four cases in their table (`| D1 bug |`). A deviation label anywhere in content
must be one of them, written `[D<n> <name>]`; the older `[Rule <n> ...]` spelling and a
`D<n>` with another name are violations. Placeholders (`{{...}}`) are not labels.
"""

from __future__ import annotations

import re

from msd_core.checks.model import CheckContext, Violation

HEADINGS = "template-headings"
LABELS = "deviation-labels"
_TEMPLATE_RE = re.compile(r"^msd-core/templates/([a-z0-9]+)(?:-[a-z0-9-]+)?\.md$")
_HEADING_RE = re.compile(r"^#{2,3}[ \t]+(.+?)[ \t#]*$", re.M)
_QUOTED_RE = re.compile(r"\"(#{2,3} )?([A-Z][^\"\n{}]{2,60})\"")
_CASE_ROW_RE = re.compile(r"^\|\s*(D[1-9])\s+([a-z][a-z ]*?)\s*\|", re.M)
_LABEL_RE = re.compile(r"\[(?:(Rule)\s*[^\]]*|(D[1-9])\s+([^\]]*?))\]")
DEVIATION_RULES = "msd-core/agent-ext/executor/deviation-rules.md"


def _families(ctx: CheckContext) -> dict[str, dict[str, set[str]]]:
    """{family: {template rel: heading titles}} for families of two or more templates."""
    fams: dict[str, dict[str, set[str]]] = {}
    for rel in ctx.tree.files:
        m = _TEMPLATE_RE.match(rel)
        text = ctx.tree.text(rel) if m else None
        if m and text is not None:
            titles = {t.strip() for t in _HEADING_RE.findall(text) if "{{" not in t}
            fams.setdefault(m.group(1), {})[rel] = titles
    return {f: t for f, t in fams.items() if len(t) > 1}


def _lines(text: str):
    for n, line in enumerate(text.splitlines(), start=1):
        yield n, line


def check_headings(ctx: CheckContext) -> list[Violation]:
    out: list[Violation] = []
    fams = _families(ctx)
    everywhere: dict[str, set[str]] = {}  # heading title -> templates (any family) holding it
    for rel in ctx.tree.files:
        if _TEMPLATE_RE.match(rel):
            for t in _HEADING_RE.findall(ctx.tree.text(rel) or ""):
                everywhere.setdefault(t.strip(), set()).add(rel)
    for family, templates in sorted(fams.items()):
        union = set().union(*templates.values())
        # a title another template also uses ("Decisions" of CONTEXT.md) is ambiguous: not checked
        partial = {t for t in union if not all(t in titles for titles in templates.values())
                   and everywhere.get(t, set()) <= set(templates)}
        if not partial:
            continue
        mention = re.compile(rf"\b{family.upper()}\b|templates/{family}")
        for rel in ctx.tree.files:
            if not rel.endswith(".md") or rel in templates:
                continue
            text = ctx.tree.text(rel)
            if not text or not mention.search(text):
                continue
            for n, line in _lines(text):
                for m in _QUOTED_RE.finditer(line):
                    title = m.group(2).strip()
                    if m.group(1) or title not in partial:
                        continue
                    lacking = sorted(r.rsplit("/", 1)[1] for r, titles in templates.items() if title not in titles)
                    out.append(Violation(
                        rel, n, HEADINGS,
                        f'"{title}" is a heading of only some {family} templates (missing from '
                        f'{", ".join(lacking)}): an agent given one of those cannot fill it',
                        f'add "## {title}" to every {family} template, or quote it as "## {title}" '
                        "(an instruction to add the heading)"))
    return out


def check_labels(ctx: CheckContext) -> list[Violation]:
    if DEVIATION_RULES not in ctx.tree.files:
        return []
    cases = dict(_CASE_ROW_RE.findall(ctx.tree.text(DEVIATION_RULES) or ""))
    if not cases:
        return [Violation(DEVIATION_RULES, 0, LABELS, "no `| D<n> <name> |` rows found in the deviation table",
                          "keep the table's first column as `D1 bug`, `D2 ...`")]
    want = ", ".join(f"[{k} {v}]" for k, v in sorted(cases.items()))
    out: list[Violation] = []
    for rel in ctx.tree.files:
        if not rel.endswith(".md"):
            continue
        for n, line in _lines(ctx.tree.text(rel) or ""):
            for m in _LABEL_RE.finditer(line):
                if "{{" in m.group(0) and not m.group(1):
                    continue
                if m.group(1):
                    out.append(Violation(rel, n, LABELS, f"deviation label {m.group(0)} uses the old Rule numbering",
                                         f"use the deviation rules' labels: {want}"))
                elif cases.get(m.group(2)) != m.group(3).strip():
                    out.append(Violation(rel, n, LABELS,
                                         f"deviation label {m.group(0)} does not match the deviation rules",
                                         f"use: {want}"))
    return out


def check(ctx: CheckContext) -> list[Violation]:
    return check_headings(ctx) + check_labels(ctx)
