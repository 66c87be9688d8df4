"""The user's decisions in a phase's NN-CONTEXT.md, with their stable IDs (docs/CONTRACTS.md).

A decision is a bullet that starts with its ID: `- D-01: Sessions last 30 days` (also
`- **D-01**: …`, `- **D-01:** …`, `- D-01 — …`). IDs are `D-` and two or more digits, given once by
discuss-phase in the order decisions are made, never renumbered and never reused when a
decision is dropped, so a plan's citation keeps naming the same decision. A decision is
**locked** when it sits under the `## Decisions` heading (any `###` gray area below it; older
files: `## Implementation Decisions`);
an ID'd bullet in any other section (Claude's Discretion) is known but not locked.

An older CONTEXT.md without IDs stays readable: its bullets under `## Decisions` are
returned as `unnumbered` (text and line), so `check plan` can say they cannot be traced
instead of failing on them. Bullets inside code fences are examples and are ignored.

Never raises on content; standard library only.
"""

from __future__ import annotations

import re

from msd_core.lean.record import field, record

ID_RE = re.compile(r"\bD-\d{2,}\b")
_BULLET_RE = re.compile(r"^\s*[-*]\s+(?:\*\*)?(?P<id>D-\d{2,})(?:\*\*)?\s*(?:[:.\u2014\u2013-]\s*)?(?:\*\*\s*)?(?P<text>.*)$")
LOCKED_SECTIONS = ("decisions", "implementation decisions")  # msd's heading; the one older CONTEXT files use
_PLAIN_BULLET_RE = re.compile(r"^\s*[-*]\s+(?P<text>\S.*)$")
_H2_RE = re.compile(r"^##\s+(?P<title>.+?)\s*#*\s*$")


@record
class Decision:
    id: str
    text: str
    line: int  # 1-based line in CONTEXT.md
    locked: bool


@record
class Decisions:
    decisions: list = field(default_factory=list)  # Decision, in file order
    unnumbered: list = field(default_factory=list)  # (line, text) of locked bullets without an ID
    duplicates: list = field(default_factory=list)  # (line, id) of an ID given a second time

    @property
    def locked(self) -> list:
        return [d for d in self.decisions if d.locked]

    def by_id(self) -> dict:
        return {d.id: d for d in self.decisions}


def parse_decisions(text: str) -> Decisions:
    out = Decisions()
    from msd_core.planning.md_lines import prose_lines

    section = ""
    seen: set[str] = set()
    for n, line in prose_lines(text):
        h = _H2_RE.match(line)
        if h:
            section = h.group("title").strip().lower()
            continue
        locked = section in LOCKED_SECTIONS
        m = _BULLET_RE.match(line)
        if m:
            did = m.group("id")
            if did in seen:
                out.duplicates.append((n, did))
                continue
            seen.add(did)
            out.decisions.append(Decision(did, m.group("text").strip(), n, locked))
            continue
        if locked:
            p = _PLAIN_BULLET_RE.match(line)
            if p and not p.group("text").startswith("{{"):
                out.unnumbered.append((n, p.group("text").strip()))
    return out


def cited_ids(raw) -> list[str]:
    """The decision IDs a task's `<decisions>` element (or a frontmatter list) names, in order."""
    if raw is None:
        return []
    items = raw if isinstance(raw, list) else [raw]
    out: list[str] = []
    for item in items:
        for did in ID_RE.findall(str(item)):
            if did not in out:
                out.append(did)
    return out
