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
from msd_core.planning.roadmap_edit import _ANY_HEAD_RE, _CHECK_RE, _HEAD_RE, _ROW_RE, _live_lines

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


def roadmap_spans(lines: list[str]) -> list[tuple[tuple[str, str], int, int]]:
    live = set(_live_lines([line.rstrip("\r\n") for line in lines]))
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if i not in live:
            i += 1
            continue
        m = _HEAD_RE.match(line)
        num = normalize_phase(m.group(2)) if m else None
        if num is not None:
            level, end = len(m.group(1)), len(lines)
            for j in range(i + 1, len(lines)):
                h = _ANY_HEAD_RE.match(lines[j])
                if (h and len(h.group(1)) <= level and j in live) or lines[j].strip().lower().startswith("<details"):
                    end = j
                    break
            out.append((("block", num), i, end))
            i = end
            continue
        m = _CHECK_RE.match(line)
        num = normalize_phase(m.group(1)) if m else None
        if num is not None:
            end = _with_children(lines, i, live)
            out.append((("check", num), i, end))
            i = end
            continue
        m = _ROW_RE.match(line)
        num = normalize_phase(m.group(2)) if m else None
        if num is not None:
            out.append((("row", num), i, i + 1))
        i += 1
    return out


def requirement_spans(lines: list[str]) -> list[tuple[tuple[str, str], int, int]]:
    live = set(_live_lines([line.rstrip("\r\n") for line in lines]))
    out = []
    i = 0
    while i < len(lines):
        if i in live:
            m = _REQ_RE.match(lines[i])
            if m:
                end = _with_children(lines, i, live)
                out.append((("req", m.group("id").upper()), i, end))
                i = end
                continue
            m = _TRACE_RE.match(lines[i])
            if m:
                out.append((("trace", m.group("id").upper()), i, i + 1))
        i += 1
    return out


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
