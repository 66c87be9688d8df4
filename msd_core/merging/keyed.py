"""Three-way merge of a document made of entries (a phase, a requirement, a STATE.md line) and
prose lines between them.

A `Spec` cuts a text into units: an entry has a key (`("check", "3")`: phase 3's checklist
line) and one or more lines; every other line is a prose unit, compared by its text. The
merge aligns the three sequences of units by identity (an entry by its key and how many
entries of that key came before it, a prose line by its text), so an entry one side edits
still lines up with the others:

- where both sides changed the sequence in the same place (each added a phase after the
  last one, each appended a decision) the region is settled additively
  (diff3.resolve_additive): ours' units, then those of theirs ours does not hold;
- each entry present in the base is merged on its own, three-way (`Spec.merge_entry`; the
  default merges its lines, additively where both only added); an entry that cannot be
  merged is written as a normal conflict (ours, `=======`, theirs) naming it;
- an entry both sides added with different text: `Spec.both_added` says whether both are
  kept (two phases at one number, renumbered afterwards) or it is a conflict;
- an entry one side deleted and the other changed, and a region of prose both changed
  differently, cannot be decided here: `Outcome.undecided` names them and the caller falls
  back to a whole-file merge with normal conflict markers.

Standard library only.
"""

from __future__ import annotations

from msd_core.merging.diff3 import regions, resolve_additive

MARKER_SIZE = 7


class Unit:
    __slots__ = ("key", "lines")

    def __init__(self, key, lines: list[str]):
        self.key, self.lines = key, lines

    def __repr__(self) -> str:  # for test failures
        return f"Unit({self.key!r}, {self.lines!r})"


class Outcome:
    __slots__ = ("lines", "conflicts", "undecided")

    def __init__(self, lines: list[str], conflicts: list[str], undecided: list[str]):
        self.lines, self.conflicts, self.undecided = lines, conflicts, undecided

    @property
    def text(self) -> str:
        return "".join(self.lines)

    @property
    def clean(self) -> bool:
        return not self.conflicts and not self.undecided


class Spec:
    """How one kind of document is cut into units and how its entries merge (override)."""

    def __init__(self, marker_size: int = MARKER_SIZE):
        self.marker_size = marker_size

    def units(self, lines: list[str]) -> list[Unit]:
        return [Unit(None, [line]) for line in lines]

    def label(self, key) -> str:
        return str(key)

    def droppable(self, unit: Unit) -> bool:
        """A placeholder line (`None yet.`) either side may replace: two sides replacing it
        keep both replacements, and it goes when something else is written beside it."""
        return False

    def both_added(self, key) -> bool:
        """True: an entry both sides added with different text is kept twice (ours first)."""
        return False

    def merge_entry(self, key, base: list[str], ours: list[str], theirs: list[str]) -> Outcome:
        """Both sides changed one entry differently. Default: its lines, merged additively."""
        return merge_lines(base, ours, theirs, self.label(key), self.marker_size)


def split_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def newline_of(*texts: str) -> str:
    return "\r\n" if any("\r\n" in t for t in texts) else "\n"


def conflict_lines(ours: list[str], theirs: list[str], label: str, newline: str, size: int = MARKER_SIZE) -> list[str]:
    """ours and theirs between normal conflict markers naming `label`."""
    def ended(lines: list[str]) -> list[str]:
        return [line if line.endswith("\n") else line + newline for line in lines]

    return ([f"{'<' * size} ours ({label}){newline}"] + ended(ours) + [f"{'=' * size}{newline}"] + ended(theirs)
            + [f"{'>' * size} theirs ({label}){newline}"])


def merge_lines(base: list[str], ours: list[str], theirs: list[str], label: str, size: int = MARKER_SIZE) -> Outcome:
    """Line by line, additively where both sides only added; a conflict is written with markers."""
    newline = newline_of(*ours, *theirs)
    out: list[str] = []
    conflicts: list[str] = []
    for region in regions(base, ours, theirs):
        if region[0] != "conflict":
            out.extend(region[1])
            continue
        _kind, o, a, b = region
        settled = resolve_additive(o, a, b)
        if settled is None:
            conflicts.append(label)
            out.extend(conflict_lines(a, b, label, newline, size))
        else:
            out.extend(settled)
    return Outcome(_joined(out, newline), conflicts, [])


def _joined(lines: list[str], newline: str) -> list[str]:
    """Every line but the last ends with a newline (a unit that ended the file may not have)."""
    return [line if line.endswith("\n") or i == len(lines) - 1 else line + newline for i, line in enumerate(lines)]


class _Item:
    """One unit of one side in the merge: equal to another when their identities are."""

    __slots__ = ("ident", "side", "unit")

    def __init__(self, ident, side: str, unit: Unit):
        self.ident, self.side, self.unit = ident, side, unit

    def __eq__(self, other) -> bool:
        return isinstance(other, _Item) and other.ident == self.ident

    def __hash__(self) -> int:
        return hash(self.ident)


def _items(units: list[Unit], side: str) -> list[_Item]:
    seen: dict = {}
    out = []
    for u in units:
        if u.key is None:
            ident = ("p", u.lines[0])
        else:
            n = seen.get(u.key, 0)
            seen[u.key] = n + 1
            ident = ("e", u.key, n)
        out.append(_Item(ident, side, u))
    return out


def merge(spec: Spec, base: str, ours: str, theirs: str) -> Outcome:
    """Merge three texts of one kind of document (see the module doc)."""
    if ours == theirs or base == theirs:
        return Outcome(split_lines(ours), [], [])
    if base == ours:
        return Outcome(split_lines(theirs), [], [])
    newline = newline_of(ours, theirs)
    o, a, b = (_items(spec.units(split_lines(t)), s) for t, s in ((base, "o"), (ours, "a"), (theirs, "b")))
    _set_apart(spec, o, a, b)
    by = {s: {i.ident: i.unit for i in items} for s, items in (("o", o), ("a", a), ("b", b))}
    out: list[str] = []
    conflicts: list[str] = []
    emitted: set = set()

    def emit(item: _Item) -> None:
        unit = item.unit
        if unit.key is not None and item.ident in emitted:
            return  # an entry is written once (a prose line repeats as often as it is given)
        emitted.add(item.ident)
        if unit.key is None or item.ident not in by["o"]:
            other = by["b" if item.side == "a" else "a"].get(item.ident)
            if unit.key is not None and other is not None and other.lines != unit.lines:
                label = spec.label(unit.key)  # both added it, and both_added said no
                conflicts.append(label)
                out.extend(conflict_lines(by["a"][item.ident].lines, by["b"][item.ident].lines, label, newline,
                                          spec.marker_size))
                return
            out.extend(unit.lines)
            return
        versions = [by[s][item.ident].lines if item.ident in by[s] else None for s in ("o", "a", "b")]
        out.extend(_entry(spec, unit.key, *versions, conflicts))

    def same(x: _Item, y: _Item) -> bool:
        if x.ident != y.ident or (x.unit.key is None and not x.unit.lines[0].strip()):
            return False  # a blank line theirs added is kept (it separates what it added)
        return x.unit.lines == y.unit.lines or x.ident in by["o"]

    for region in regions(o, a, b):
        if region[0] != "conflict":
            for item in region[1]:
                emit(item)
            continue
        _kind, o_part, a_part, b_part = region
        settled = _settle(spec, o_part, a_part, b_part, same)
        if settled is None:
            label = _near(o_part + a_part + b_part, spec)
            conflicts.append(label)
            out.extend(conflict_lines([line for i in a_part for line in i.unit.lines],
                                      [line for i in b_part for line in i.unit.lines], label, newline, spec.marker_size))
            emitted.update(i.ident for i in o_part + a_part + b_part)
            continue
        blank = False
        for item in settled:
            is_blank = item.unit.key is None and not item.unit.lines[0].strip()
            if not (is_blank and blank and item.side == "b"):
                if is_blank:
                    out.extend(item.unit.lines)  # blank lines repeat: never "already written"
                else:
                    if item.side == "b" and item.unit.lines[0].startswith("#") and out and out[-1].strip():
                        out.append(newline)  # a heading theirs added follows ours' text after a blank line
                    emit(item)
            blank = is_blank
    undecided = []
    for ident, unit in by["o"].items():
        if ident in emitted or unit.key is None:
            continue
        kept = by["a"].get(ident) or by["b"].get(ident)
        if kept is not None and kept.lines != unit.lines:
            undecided.append(f"{spec.label(unit.key)}: deleted on one side and changed on the other")
    return Outcome(_joined(out, newline), conflicts, undecided)


def _settle(spec: Spec, o_part, a_part, b_part, same) -> list | None:
    """A conflicting region settled additively (diff3.resolve_additive), placeholders aside."""
    if o_part and all(spec.droppable(i.unit) for i in o_part):
        def keep(items):
            return [i for i in items if not spec.droppable(i.unit)]
        settled = resolve_additive([], keep(a_part), keep(b_part), same=same)
    else:
        settled = resolve_additive(o_part, a_part, b_part, same=same)
    if settled and any(i.unit.lines[0].strip() and not spec.droppable(i.unit) for i in settled):
        settled = [i for i in settled if not spec.droppable(i.unit)]
    return settled


def _set_apart(spec: Spec, o: list[_Item], a: list[_Item], b: list[_Item]) -> None:
    """An entry both sides added with different text, where both are kept (Spec.both_added):
    theirs gets an identity of its own, so the merge writes ours and theirs."""
    base = {i.ident for i in o}
    ours = {i.ident: i.unit.lines for i in a}
    for item in b:
        key = item.unit.key
        if key is not None and item.ident not in base and item.ident in ours and ours[item.ident] != item.unit.lines \
                and spec.both_added(key):
            item.ident = ("e", key, "theirs", item.ident[2])


def _entry(spec: Spec, key, base: list[str], ours: list[str] | None, theirs: list[str] | None,
           conflicts: list[str]) -> list[str]:
    if ours is None or theirs is None:  # deleted on one side: the other side's lines (undecided if changed)
        return list(ours if ours is not None else theirs)
    if ours == theirs or base == theirs:
        return list(ours)
    if base == ours:
        return list(theirs)
    outcome = spec.merge_entry(key, base, ours, theirs)
    conflicts.extend(outcome.conflicts + outcome.undecided)
    return outcome.lines


def _near(items: list[_Item], spec: Spec) -> str:
    for item in items:
        if item.unit.key is not None:
            return "near " + spec.label(item.unit.key)
    text = next((i.unit.lines[0].strip() for i in items if i.unit.lines[0].strip()), "")
    return f"near {text[:60]!r}" if text else "near a blank line"
