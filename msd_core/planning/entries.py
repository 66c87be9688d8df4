"""ROADMAP.md and REQUIREMENTS.md cut into entries: what a merge aligns and a renumbering retargets.

`roadmap_spans(lines)` and `requirement_spans(lines)` take a file's lines (line endings kept)
and return `(key, start, end)` for every entry, in order, `end` one past its last line; every
line outside an entry is the caller's prose. Keys:

  ROADMAP.md      ("check", "3")   the phase list line `- [ ] Phase 3: ...` (bold or not) and the
                                   more deeply indented lines under it
                  ("block", "3")   the details block: `### Phase 3: ...` (level 2-4) up to the next
                                   heading of its level or above, or a `<details>` line
                  ("row", "3")     a progress-table row `| 3. Name | ... |`
  REQUIREMENTS.md ("req", "AUTH-01")    `- [ ] **AUTH-01**: ...` (checkbox optional) and the
                                        more deeply indented lines under it
                  ("trace", "AUTH-01")  a traceability row `| AUTH-01 | Phase 2 | ... |`

Phase numbers are normalised (`03` -> `3`). Only lines outside fenced code and `<details>`
blocks (archived milestones) are entries (roadmap_edit's reading), so an archived phase 3 and
the current phase 3 never share a key. `block_spans(lines)` cuts a details block further:
("field", "goal") for a `**Goal**:` / `Goal:` line, ("plan", "03-01") for a plan's list line.

Standard library only.
"""

from __future__ import annotations

import re

from msd_core.planning.discovery import normalize_phase
from msd_core.planning.roadmap_edit import _ANY_HEAD_RE, _CHECK_RE, _HEAD_RE, _ROW_RE, _live_lines, block_end

_REQ_RE = re.compile(r"^\s*[-*]\s+(?:\[[ xX✓]\]\s*)?\*\*(?P<id>[A-Za-z][A-Za-z0-9_]*-\d+[A-Za-z]?)\*\*")
_TRACE_RE = re.compile(r"^\s*\|\s*(?:\*\*)?(?P<id>[A-Za-z][A-Za-z0-9_]*-\d+[A-Za-z]?)(?:\*\*)?\s*\|")
_FIELD_RE = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*(?P<b>[A-Za-z][\w ()/-]{0,40}?)(?::\*\*|\*\*:)|(?P<p>[A-Za-z][\w ()/-]{0,40}?):)")
_PLAN_RE = re.compile(r"^\s*[-*]\s*(?:\[[ xX✓]\]\s*)?(?:\*\*)?(?P<id>\d+(?:\.\d+)*-\d+)(?:-PLAN(?:\.md)?)?\b")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _with_children(lines: list[str], i: int, live: set[int]) -> int:
    """One past the last line under list line i (non-blank, more deeply indented)."""
    j, own = i + 1, _indent(lines[i])
    while j < len(lines) and j in live and lines[j].strip() and _indent(lines[j]) > own \
            and not _ANY_HEAD_RE.match(lines[j]):
        j += 1
    return j


def _scan(lines: list[str], matchers) -> list[tuple[tuple[str, str], int, int]]:
    """Entries of the live lines: the first matcher (regex, kind, key of a match, extent) that
    gives a key at a line makes an entry of the lines `extent(i, match)` says it spans."""
    live = set(_live_lines([line.rstrip("\r\n") for line in lines]))
    out = []
    i = 0
    while i < len(lines):
        hit = None
        if i in live:
            for rx, kind, key, extent in matchers:
                m = rx.match(lines[i])
                k = key(m) if m else None
                if k is not None:
                    hit = (kind, k, extent(lines, i, m, live))
                    break
        if hit is None:
            i += 1
            continue
        kind, k, end = hit
        out.append(((kind, k), i, end))
        i = end
    return out


def _one(lines, i, m, live) -> int:
    return i + 1


def _listed(lines, i, m, live) -> int:
    return _with_children(lines, i, live)


def _block(lines, i, m, live) -> int:
    return block_end(lines, i, len(m.group(1)), live)


ROADMAP_ENTRIES = (
    (_HEAD_RE, "block", lambda m: normalize_phase(m.group(2)), _block),
    (_CHECK_RE, "check", lambda m: normalize_phase(m.group(1)), _listed),
    (_ROW_RE, "row", lambda m: normalize_phase(m.group(2)), _one),
)
REQUIREMENT_ENTRIES = (
    (_REQ_RE, "req", lambda m: m.group("id").upper(), _listed),
    (_TRACE_RE, "trace", lambda m: m.group("id").upper(), _one),
)


def roadmap_spans(lines: list[str]) -> list[tuple[tuple[str, str], int, int]]:
    return _scan(lines, ROADMAP_ENTRIES)


def requirement_spans(lines: list[str]) -> list[tuple[tuple[str, str], int, int]]:
    return _scan(lines, REQUIREMENT_ENTRIES)


def block_spans(lines: list[str]) -> list[tuple[tuple[str, str], int, int]]:
    """A details block's own entries: its heading, labelled lines and plan lines (see the module doc)."""
    out = []
    for i, line in enumerate(lines):
        if i == 0 and _HEAD_RE.match(line):
            out.append((("heading", ""), 0, 1))
            continue
        m = _PLAN_RE.match(line)
        if m:
            out.append((("plan", m.group("id")), i, i + 1))
            continue
        m = _FIELD_RE.match(line)
        if m and (m.group("b") or not line.lstrip().startswith(("-", "*"))):
            label = (m.group("b") or m.group("p") or "").strip().lower()
            out.append((("field", label), i, i + 1))
    return out
