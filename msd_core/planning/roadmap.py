"""The phase list of ROADMAP.md, as `msd_run next` needs it (number, name, checked or not).

Reads the shapes real roadmaps use:
  - [x] **Phase 2: Auth** - ...          checklist lines (bold or not, `[ ]` / `[x]`)
  - [x] Phase 3: Payments (2/2 plans)
  ### Phase 4: Search ✅                  headings (level 2-4); ✅ / COMPLETE / SHIPPED mark done,
                                         and so do SUPERSEDED / CANCELLED / DROPPED / a ~~struck~~ name

Lines inside fenced code blocks are ignored (md_lines.prose_lines). A phase found both ways keeps the checklist's
verdict. Phases in `<details>` blocks (archived milestones) are read like the others.

Standard library only.
"""

from __future__ import annotations

import re

from msd_core.lean.record import record
from msd_core.planning.discovery import normalize_phase
from msd_core.planning.md_lines import prose_lines

_CHECK_RE = re.compile(r"^\s*[-*]\s*\[(?P<mark>[ xX✓])\]\s*(?:\*\*)?\s*Phase\s+(?P<num>[0-9]+(?:\.[0-9]+)*)\b\s*[:.\-—]?\s*(?P<name>[^*\n]*)")
_HEAD_RE = re.compile(r"^\s*#{2,4}\s*Phase\s+(?P<num>[0-9]+(?:\.[0-9]+)*)\b\s*[:.\-—]?\s*(?P<name>.*)$")
_DONE_WORDS = re.compile(r"✅|✓|\bCOMPLETE(?:D)?\b|\(complete(?:d)?\)|\bSHIPPED\b|\bSUPERSEDED\b|\bCANCELL?ED\b|\bDROPPED\b|^~~", re.I)


@record
class RoadmapPhase:
    number: str  # normalised (discovery.normalize_phase)
    name: str
    done: bool
    line: int


def roadmap_phases(text: str) -> list[RoadmapPhase]:
    found: dict[str, RoadmapPhase] = {}
    from_checklist: set[str] = set()
    for n, line in prose_lines(text):
        if "Phase" not in line:  # both patterns need the word: most lines are skipped unmatched
            continue
        m = _CHECK_RE.match(line)
        if m:
            num = normalize_phase(m.group("num"))
            if num is None:
                continue
            done = m.group("mark") != " "
            name = _clean_name(m.group("name"))
            prev = found.get(num)
            if prev is None or num not in from_checklist:
                found[num] = RoadmapPhase(num, name or (prev.name if prev else ""), done, n)
            else:
                prev.done = prev.done or done
            from_checklist.add(num)
            continue
        m = _HEAD_RE.match(line)
        if m:
            num = normalize_phase(m.group("num"))
            if num is None:
                continue
            rest = m.group("name")
            done = bool(_DONE_WORDS.search(rest))
            if num in found:
                if num not in from_checklist:
                    found[num].done = found[num].done or done
                continue
            found[num] = RoadmapPhase(num, _clean_name(rest), done, n)
    return sorted(found.values(), key=lambda p: phase_sort_key(p.number))


def listed_twice(text: str) -> dict[str, list[str]]:
    """{number: names} for each number the phase checklist gives two or more phases of different names: what a merge
    of two clones that each added a phase leaves (roadmap_phases keeps one; `msd_run phase
    reconcile` renumbers the later ones)."""
    names: dict[str, list[str]] = {}
    for _, line in prose_lines(text):
        if "Phase" not in line:
            continue
        m = _CHECK_RE.match(line)
        num = normalize_phase(m.group("num")) if m else None
        if num is not None:
            name = _clean_name(m.group("name"))
            known = names.setdefault(num, [])
            if name.casefold() not in (k.casefold() for k in known):  # one phase listed twice is not two phases
                known.append(name)
    return {n: found for n, found in names.items() if len(found) > 1}


def _clean_name(raw: str) -> str:
    name = re.split(r"\s+[-—–]\s+|\s+\(|\s+✅|\*\*", raw.strip(), maxsplit=1)[0]
    return name.strip(" *:.-—").strip()[:120]


def phase_sort_key(number: str | None) -> tuple:
    """Numeric phases in numeric order (2 < 2.1 < 10), then the others by name."""
    if number and re.fullmatch(r"\d+(?:\.\d+)*", number):
        return (0, tuple(int(p) for p in number.split(".")), "")
    return (1, (), number or "")


@record
class Checkbox:
    """One checklist line of ROADMAP.md that code keeps: a phase (`- [x] Phase 2: ...`, bold or not)
    or a plan (`- [ ] 02-01-PLAN.md — ...`)."""

    line: int  # 1-based
    kind: str  # "phase" | "plan"
    key: str  # the phase number as written (`2`, `02.1`) or the plan id (`02-01`)
    mark: str  # the character between the brackets
    column: int  # where that character is in the line

    @property
    def ticked(self) -> bool:
        return self.mark != " "


_BOX_PHASE_RE = re.compile(r"^\s*[-*]\s*\[(?P<mark>[ xX✓])\]\s*(?:\*\*)?\s*Phase\s+(?P<key>[0-9]+(?:\.[0-9]+)*)\b")
_BOX_PLAN_RE = re.compile(r"^\s*[-*]\s*\[(?P<mark>[ xX✓])\]\s*`?(?P<key>[0-9]+(?:\.[0-9]+)*-[0-9]+)-PLAN\.md\b")


def checkbox_lines(text: str) -> list[Checkbox]:
    """Phase and plan checklist lines outside fenced code and `<details>` blocks (archived milestones)."""
    out: list[Checkbox] = []
    for n, line in prose_lines(text, skip_details=True):
        if "[" not in line:
            continue
        for kind, rx in (("phase", _BOX_PHASE_RE), ("plan", _BOX_PLAN_RE)):
            m = rx.match(line)
            if m:
                out.append(Checkbox(n, kind, m.group("key"), m.group("mark"), m.start("mark")))
                break
    return out


_REQ_LINE_RE = re.compile(r"^\s*(?:[-*]\s*)?(?:\*\*Requirements\*\*\s*:?|\*\*Requirements:\*\*|Requirements\s*:)\s*(?P<ids>.*)$", re.I)
REQ_ID_RE = re.compile(r"\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-\d+\b")


def phase_requirements(text: str, number: str) -> tuple[list[str], int]:
    """The requirement IDs the `Requirements:` line of phase `number`'s block names (`HABIT-01,
    HABIT-02`; `TBD` or none: []), and that line's number (0 when the block has no such line)."""

    inside = False
    for n, line in prose_lines(text):
        h = _HEAD_RE.match(line)
        if h:
            inside = normalize_phase(h.group("num")) == number
            continue
        if inside and line.lstrip().startswith("#"):
            inside = False
            continue
        if inside:
            m = _REQ_LINE_RE.match(line)
            if m:
                return list(dict.fromkeys(REQ_ID_RE.findall(m.group("ids")))), n
    return [], 0
