"""How ROADMAP.md and REQUIREMENTS.md merge: by phase and by requirement.

ROADMAP.md: each phase's checklist line, details block and progress row is an entry
(msd_core.planning.entries). Two branches that each add a phase, or tick different phases,
touch different entries and merge cleanly. A phase both sides added at the same number is
kept twice, ours first (`msd_run phase reconcile` renumbers theirs afterwards). A details block
both sides changed is merged by its own lines: its heading, each labelled line (`**Goal**:`,
`**Depends on**:` ...) and each plan line are entries of their own, so one side ticking plan
03-01 while the other adds plan 03-02 merges; both changing phase 3's goal is a conflict
naming it (`phase 3 goal`).

REQUIREMENTS.md: each requirement line (`- [ ] **AUTH-01**: ...`) and traceability row is an
entry; a requirement both sides added under one id with different text is a conflict.

TODOS.md: each todo line (`- [ ] **T3** ...`) is an entry. Two branches that each captured a
todo gave both the next id: both are kept, and theirs gets an id one past the highest in the
merged file (ids only grow: msd_core.planning.todos).

A checklist line both sides changed merges its mark and its text apart (one ticks it, the
other renames it); a table row both changed merges cell by cell.

Standard library only.
"""

from __future__ import annotations

import re

from msd_core.merging.keyed import Outcome, Spec, Unit, conflict_lines, merge, merge_lines, newline_of
from msd_core.planning import entries

_MARK_RE = re.compile(r"^(?P<pre>\s*[-*]\s*\[)(?P<mark>[ xX✓])(?P<post>\].*)$", re.S)


def spans_to_units(lines: list[str], spans) -> list[Unit]:
    out, at = [], 0
    for key, start, end in spans:
        out.extend(Unit(None, [line]) for line in lines[at:start])
        out.append(Unit(key, lines[start:end]))
        at = end
    out.extend(Unit(None, [line]) for line in lines[at:])
    return out


def _three(o, a, b):
    """The 3-way pick of one value; None when both changed it differently."""
    if a == b or o == b:
        return a
    if o == a:
        return b
    return None


def merge_marked(label: str, o: list[str], a: list[str], b: list[str], size: int) -> Outcome:
    """A list line with a checkbox (and the lines under it): the mark and the text merge apart;
    both sides checking it with different marks keeps ours'."""
    newline = newline_of(*a, *b)
    ms = [_MARK_RE.match(x[0]) if x else None for x in (o, a, b)]
    if not all(ms):
        return merge_lines(o, a, b, label, size)
    mo, ma, mb = ms
    marks = [m.group("mark") for m in ms]
    mark = _three(*marks)
    if mark is None:
        mark = marks[1] if " " not in (marks[1], marks[2]) else (marks[1] if marks[1] != " " else marks[2])
    post = _three(*(m.group("post") for m in ms))
    pre = _three(*(m.group("pre") for m in ms))
    rest = merge_lines(o[1:], a[1:], b[1:], label, size)
    if post is None or pre is None:
        return Outcome(conflict_lines(a[:1], b[:1], label, newline, size) + rest.lines, [label, *rest.conflicts], [])
    return Outcome([pre + mark + post] + rest.lines, rest.conflicts, [])


def merge_row(label: str, o: list[str], a: list[str], b: list[str], size: int) -> Outcome:
    """A table row: cell by cell when the three have the same number of cells."""
    newline = newline_of(*a, *b)
    if not (len(o) == len(a) == len(b) == 1):
        return merge_lines(o, a, b, label, size)
    ends = [x[0][len(x[0].rstrip("\r\n")):] for x in (o, a, b)]
    cells = [x[0].rstrip("\r\n").split("|") for x in (o, a, b)]
    if len({len(c) for c in cells}) != 1:
        return merge_lines(o, a, b, label, size)
    merged = [_three(*column) for column in zip(*cells)]
    if any(c is None for c in merged):
        return Outcome(conflict_lines(a, b, label, newline, size), [label], [])
    return Outcome(["|".join(merged) + (ends[1] or ends[2])], [], [])


class RoadmapSpec(Spec):
    def units(self, lines: list[str]) -> list[Unit]:
        return spans_to_units(lines, entries.roadmap_spans(lines))

    def label(self, key) -> str:
        kind, number = key
        return {"check": f"phase {number} (phase list)", "block": f"phase {number} (details)",
                "row": f"phase {number} (progress row)"}.get(kind, f"phase {number}")

    def both_added(self, key) -> bool:
        return True

    def merge_entry(self, key, base, ours, theirs) -> Outcome:
        kind, number = key
        if kind == "check":
            return merge_marked(self.label(key), base, ours, theirs, self.marker_size)
        if kind == "row":
            return merge_row(self.label(key), base, ours, theirs, self.marker_size)
        return merge(_BlockSpec(number, self.marker_size), "".join(base), "".join(ours), "".join(theirs))


class _BlockSpec(Spec):
    """Inside one phase's details block."""

    def __init__(self, number: str, size: int):
        super().__init__(size)
        self.number = number

    def units(self, lines: list[str]) -> list[Unit]:
        return spans_to_units(lines, entries.block_spans(lines))

    def label(self, key) -> str:
        kind, name = key
        if kind == "heading":
            return f"phase {self.number} heading"
        if kind == "plan":
            return f"phase {self.number} plan {name}"
        return f"phase {self.number} {name}"

    def merge_entry(self, key, base, ours, theirs) -> Outcome:
        if key[0] == "plan":
            return merge_marked(self.label(key), base, ours, theirs, self.marker_size)
        return Outcome(conflict_lines(ours, theirs, self.label(key), newline_of(*ours, *theirs), self.marker_size),
                       [self.label(key)], [])


class RequirementsSpec(Spec):
    def units(self, lines: list[str]) -> list[Unit]:
        return spans_to_units(lines, entries.requirement_spans(lines))

    def label(self, key) -> str:
        kind, ident = key
        return f"requirement {ident}" + (" (traceability)" if kind == "trace" else "")

    def merge_entry(self, key, base, ours, theirs) -> Outcome:
        if key[0] == "trace":
            return merge_row(self.label(key), base, ours, theirs, self.marker_size)
        return merge_marked(self.label(key), base, ours, theirs, self.marker_size)


class TodosSpec(Spec):
    def units(self, lines: list[str]) -> list[Unit]:
        from msd_core.planning.todos import _LINE_RE

        spans = [(("todo", m.group("id")), i, i + 1) for i, line in enumerate(lines)
                 if (m := _LINE_RE.match(line.rstrip("\r\n")))]
        return spans_to_units(lines, spans)

    def label(self, key) -> str:
        return f"todo T{key[1]}"

    def both_added(self, key) -> bool:
        return True

    def merge_entry(self, key, base, ours, theirs) -> Outcome:
        return merge_marked(self.label(key), base, ours, theirs, self.marker_size)


def merge_todos(base: str, ours: str, theirs: str, size: int) -> Outcome:
    """TODOS.md by todo (module doc): a second todo under one id gets the next free id."""
    from msd_core.planning.todos import _LINE_RE

    out = merge(TodosSpec(size), base, ours, theirs)
    lines = list(out.lines)
    ids = [int(m.group("id")) for line in lines if (m := _LINE_RE.match(line.rstrip("\r\n")))]
    top, seen = max(ids, default=0), set()
    for i, line in enumerate(lines):
        m = _LINE_RE.match(line.rstrip("\r\n"))
        if not m:
            continue
        n = int(m.group("id"))
        if n in seen:
            top += 1
            lines[i] = line.replace(f"**T{n}**", f"**T{top}**", 1)
            n = top
        seen.add(n)
    return Outcome(lines, out.conflicts, out.undecided)
