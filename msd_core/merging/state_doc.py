"""How STATE.md's hand-written lines merge; its derived lines are re-derived afterwards.

STATE.md is cut into (msd_core.planning.state.StateDoc reads the sections and labels):

- derived lines: `Focus:` and Position's `Phase:`, `Plan:`, `Status:`, `Last change:`,
  `Progress:` (every spelling msd_core.progress.state_sync writes), the
  `<!-- msd: derived from ... -->` line and the frontmatter's `progress:` mapping. Each is an
  entry that never conflicts: ours is kept until the driver
  writes the values derived from the merged tree (merging.merged_tree).
- labelled lines (`Left off: ...`, `Last worked: ...`, any `Label: value` line that is not a
  list item, each frontmatter key with the lines under it), one entry per label and section.
  Both sides changing one differently: the side whose session is newer wins (its
  `Last worked:` / `Last session:` stamp, then the frontmatter's `last_updated`; ours on a tie),
  because these lines say where the latest work stands.
- every other line is prose: decisions and blockers both sides appended are all kept, in
  order (ours, then theirs), and a `None yet.` placeholder both replaced gives way to both
  replacements; prose both sides rewrote differently is a conflict naming the lines.

Standard library only.
"""

from __future__ import annotations

import re

from msd_core.merging.keyed import MARKER_SIZE, Outcome, Spec, Unit, merge
from msd_core.planning.state import PLACEHOLDERS, StateDoc, _norm_title

_LABEL_RE = re.compile(r"^[ \t]*(?:\*\*(?P<b>[^*\n:]{1,60}?)(?::\*\*|\*\*:)|(?P<p>[A-Za-z][\w /()-]{0,40}?):)")
_FM_KEY_RE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)[ \t]*:")
SESSION_FIELDS = ("Last session", "Stopped at", "Resume file")
STAMP_KEYS = ("last_updated", "last_activity", "updated")


def derived_fields():
    from msd_core.progress.state_sync import LINES

    return LINES


def _keys(text: str) -> tuple[dict[int, tuple], tuple[int, int]]:
    """({line index: key} of every entry line of STATE.md (module doc), the frontmatter's lines)."""
    doc = StateDoc(text)
    keys: dict[int, tuple] = {}
    for section, field in derived_fields():
        sections = [doc.find_section(section)] if section else doc.sections
        for sec in sections:
            hit = doc.field_line(sec, field) if sec is not None else None
            if hit:
                keys[hit[0]] = ("derived", field)
                break
    from msd_core.progress.state_sync import _DIGEST_RE

    for i, line in enumerate(doc.lines):
        if i not in keys and _DIGEST_RE.match(line):
            keys[i] = ("derived", "digest")
    session = doc.find_section("Session Continuity")
    for field in SESSION_FIELDS if session is not None else ():
        hit = doc.field_line(session, field)
        if hit and hit[0] not in keys:
            keys[hit[0]] = ("session", field)
    heading_of = {}
    for sec in doc.sections:
        for i in range(sec.start + 1, doc.own_end(sec)):
            heading_of[i] = _norm_title(sec.title)
    for i in range(doc.body_start, len(doc.lines)):
        if i in keys or i in doc._code:
            continue
        line = doc.lines[i]
        m = _LABEL_RE.match(line)
        if m and (m.group("b") or not line.lstrip().startswith(("-", "*"))):
            keys[i] = ("field", heading_of.get(i, ""), (m.group("b") or m.group("p")).strip().lower())
    if doc.fm_lines:
        first, last = doc.fm_lines
        for i in range(first, last):
            m = _FM_KEY_RE.match(doc.lines[i])
            if m:
                name = m.group("key")
                keys[i] = ("derived", "progress") if name == "progress" else ("fm", name)
    return keys, doc.fm_lines or (0, 0)


def session_stamp(text: str) -> str:
    """The newest-session stamp of a STATE.md text ('' when it has none)."""
    doc = StateDoc(text)
    session = doc.find_section("Session Continuity")
    hit = doc.field_line(session, "Last session") if session is not None else None
    stamp = hit[1].group("val").strip() if hit else ""
    fm, _err = doc.frontmatter()
    if isinstance(fm, dict):
        stamp = stamp or next((str(fm[k]) for k in STAMP_KEYS if fm.get(k)), "")
    return stamp


class StateSpec(Spec):
    def __init__(self, ours: str, theirs: str, marker_size: int = MARKER_SIZE):
        super().__init__(marker_size)
        self.theirs_newer = session_stamp(theirs) > session_stamp(ours)

    def units(self, lines: list[str]) -> list[Unit]:
        keys, (fm_first, fm_last) = _keys("".join(lines))
        out: list[Unit] = []
        i = 0
        while i < len(lines):
            key = keys.get(i)
            j = i + 1
            if key is not None and fm_first <= i < fm_last:
                while j < fm_last and lines[j][:1] in (" ", "\t", "-") and j not in keys:
                    j += 1  # a frontmatter key's nested lines
            out.append(Unit(key, lines[i:j]))
            i = j
        return out

    def label(self, key) -> str:
        return "STATE.md " + " ".join(str(k) for k in key[1:] if k)

    def droppable(self, unit: Unit) -> bool:
        return unit.key is None and unit.lines[0].strip().lower() in PLACEHOLDERS

    def merge_entry(self, key, base, ours, theirs) -> Outcome:
        if key[0] == "derived":
            return Outcome(list(ours), [], [])
        return Outcome(list(theirs if self.theirs_newer else ours), [], [])


def merge_state(base: str, ours: str, theirs: str, marker_size: int = MARKER_SIZE) -> Outcome:
    """STATE.md's lines merged (module doc); the derived lines are ours' until re-derived."""
    return merge(StateSpec(ours, theirs, marker_size), base, ours, theirs)

