"""Requirements: which ids REQUIREMENTS.md defines, which a phase answers for, and a plan's must-haves.

- `definitions(text)`: {id: text} of REQUIREMENTS.md. A definition is a list item whose bold
  head is the id (`- [ ] **AUTH-01**: Users log in`) or a table row whose first cell is the
  id (`| AUTH-01 | Users log in | Phase 2 |`); ids are `[A-Z][A-Z0-9]*-<digits>`.
- `phase_requirements(roadmap, requirements, number)`: the ids a phase answers for, in order:
  those on the `Requirements:` line of the phase's ROADMAP.md section (bold or not; notes in
  parentheses ignored; `TBD` gives none), then the traceability rows of REQUIREMENTS.md that
  give the phase in a cell (`Phase 2`, `2`, `02`).
- `mapped_lost(old, new, roadmap)`: the ids `old` defines that ROADMAP.md names and `new` no
  longer holds anywhere (the planning write guard and `msd_run import requirements --replace`
  refuse such a loss alike).
- `must_haves(frontmatter)`: (truths, artifacts) of a plan's `must_haves` (strings; an
  artifact given as a mapping gives its `path`).

Standard library only; never raises on bad text.
"""

from __future__ import annotations

import re

from msd_core.planning.md_lines import prose_lines

ID_SOURCE = r"[A-Z][A-Z0-9]*-\d+"
DEFINITION_SOURCE = (r"^\s*(?:[-*]\s*(?:\[[ xX✓]\]\s*)?\*\*(?P<a>" + ID_SOURCE + r")\*\*"
                     r"|\|\s*\**(?P<b>" + ID_SOURCE + r")\**\s*\|)")
_rx: dict = {}


def _compiled(name: str, source: str, flags: int = 0):
    rx = _rx.get(name)
    if rx is None:
        rx = _rx[name] = re.compile(source, flags)
    return rx


def definition_ids(text: str) -> list[str]:
    """The ids REQUIREMENTS.md defines, in file order, each once."""
    return list(definitions(text))


def mapped_lost(old: str, new: str, roadmap: str) -> list[str]:
    """Ids `old` defines, ROADMAP.md maps, and `new` drops (an id still named anywhere in `new`,
    such as under Out of Scope with its reason, is kept)."""
    return [i for i in definition_ids(old) if i not in new and re.search(rf"\b{re.escape(i)}\b", roadmap)]


def definitions(text: str) -> dict[str, str]:
    rx = _compiled("def", DEFINITION_SOURCE)
    out: dict[str, str] = {}
    for line in (text or "").splitlines():
        m = rx.match(line)
        if not m:
            continue
        rid = m.group("a") or m.group("b")
        if rid in out:
            continue
        rest = line[m.end():]
        if m.group("b"):
            rest = rest.split("|", 1)[0]
        out[rid] = rest.strip().lstrip(":").strip().strip("*").strip()[:300]
    return out


_SECTION_RE = r"^\s*(?P<hashes>#{2,4})\s*Phase\s+(?P<num>[0-9]+(?:\.[0-9]+)*)\b"
_REQ_LINE_RE = r"^\s*[-*]?\s*\**Requirements?\**\s*:?\s*\**\s*:?\s*(?P<rest>.*)$"


def _roadmap_ids(roadmap: str, number: str) -> list[str]:
    from msd_core.planning.discovery import normalize_phase

    head = _compiled("section", _SECTION_RE)
    label = _compiled("reqline", _REQ_LINE_RE, re.I)
    ids = _compiled("id", ID_SOURCE)
    inside, level, out = False, 0, []
    for _, line in prose_lines(roadmap):
        m = head.match(line)
        if m:
            inside, level = normalize_phase(m.group("num")) == number, len(m.group("hashes"))
            continue
        if inside and line.lstrip().startswith("#"):
            hashes = len(line.lstrip()) - len(line.lstrip().lstrip("#"))
            if hashes <= level:
                inside = False
                continue
        if inside:
            lm = label.match(line)
            if lm:
                rest = re.sub(r"\([^)]*\)", "", lm.group("rest"))
                out += [i for i in ids.findall(rest) if i not in out]
    return out


def _traceability_ids(requirements: str, number: str) -> list[str]:
    from msd_core.planning.discovery import normalize_phase

    rx = _compiled("def", DEFINITION_SOURCE)
    out = []
    for line in (requirements or "").splitlines():
        m = rx.match(line)
        if not m or not m.group("b"):
            continue
        cells = [c.strip().strip("*").strip() for c in line.strip().strip("|").split("|")[1:]]
        for cell in cells:
            cm = re.fullmatch(r"(?:Phase\s+)?(\d+(?:\.\d+)*)", cell, re.I)
            if cm and normalize_phase(cm.group(1)) == number and m.group("b") not in out:
                out.append(m.group("b"))
    return out


def phase_requirements(roadmap: str, requirements: str, number: str) -> list[str]:
    out = _roadmap_ids(roadmap, number)
    return out + [i for i in _traceability_ids(requirements, number) if i not in out]


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if not isinstance(value, list):
        return []
    out = []
    for item in value:
        if isinstance(item, dict):
            item = item.get("path") or item.get("truth") or item.get("name")
        if isinstance(item, (str, int, float)) and not isinstance(item, bool) and str(item).strip():
            out.append(" ".join(str(item).split()))
    return out


def must_haves(frontmatter: dict) -> tuple[list[str], list[str]]:
    value = frontmatter.get("must_haves", frontmatter.get("must-haves")) if isinstance(frontmatter, dict) else None
    if not isinstance(value, dict):
        return [], []
    return _strings(value.get("truths")), _strings(value.get("artifacts"))


def plan_requirements(frontmatter: dict) -> list[str]:
    """The ids a plan's frontmatter `requirements` names (a list or a comma-separated string)."""
    value = frontmatter.get("requirements") if isinstance(frontmatter, dict) else None
    if isinstance(value, str):
        value = value.split(",")
    ids = _compiled("id", ID_SOURCE)
    out: list[str] = []
    for item in value if isinstance(value, list) else []:
        for rid in ids.findall(str(item)):
            if rid not in out:
                out.append(rid)
    return out
