"""Three-way merge of two sequences against their common base, region by region.

`regions(base, ours, theirs)` walks the three sequences (lines, or any hashable items) and
yields, in order:

  ("same", items)                 unchanged on both sides
  ("ours", items)                 only ours changed this stretch of the base: ours' items
  ("theirs", items)               only theirs changed it
  ("both", items)                 both changed it the same way
  ("conflict", base, ours, theirs)  both changed it differently (each the stretch it holds)

The base stretches both sides keep are found from the longest matching blocks of base/ours
and base/theirs (difflib, junk heuristics off); a stretch of the base is stable when both
sides keep it, and what lies between two stable stretches is one region.

`resolve_additive(base, ours, theirs)` settles a conflicting region where neither side lost
what the other kept: both inserted at the same place (ours first, then what theirs added that
ours does not hold), or one side kept the base stretch and only added before or after it
while the other side changed it. Anything else is None: a real conflict.

Standard library only.
"""

from __future__ import annotations

from difflib import SequenceMatcher


def _blocks(base, side) -> list[tuple[int, int, int]]:
    return [tuple(b) for b in SequenceMatcher(None, base, side, autojunk=False).get_matching_blocks()]


def _stable(base, ours, theirs) -> list[tuple[int, int, int, int]]:
    """(base start, ours start, theirs start, length) of the stretches both sides keep, then a sentinel."""
    out = []
    a_blocks, b_blocks = _blocks(base, ours), _blocks(base, theirs)
    i = j = 0
    while i < len(a_blocks) and j < len(b_blocks):
        ao, aa, an = a_blocks[i]
        bo, bb, bn = b_blocks[j]
        lo, hi = max(ao, bo), min(ao + an, bo + bn)
        if lo < hi:
            out.append((lo, aa + (lo - ao), bb + (lo - bo), hi - lo))
        if ao + an < bo + bn:
            i += 1
        else:
            j += 1
    out.append((len(base), len(ours), len(theirs), 0))
    return out


def regions(base, ours, theirs):
    base, ours, theirs = list(base), list(ours), list(theirs)
    oz = az = bz = 0
    for o, a, b, n in _stable(base, ours, theirs):
        o_part, a_part, b_part = base[oz:o], ours[az:a], theirs[bz:b]
        if o_part or a_part or b_part:
            if a_part == b_part:
                yield ("both", a_part) if a_part != o_part else ("same", a_part)
            elif a_part == o_part:
                yield ("theirs", b_part)
            elif b_part == o_part:
                yield ("ours", a_part)
            else:
                yield ("conflict", o_part, a_part, b_part)
        if n:
            yield ("same", base[o:o + n])
        oz, az, bz = o + n, a + n, b + n


def _within(short: list, long: list) -> bool:
    """Whether `short` is a subsequence of `long` (its items in order, others between)."""
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


def resolve_additive(base: list, ours: list, theirs: list, same=None) -> list | None:
    """The union of a conflicting region when it only adds (see the module doc); None otherwise.
    `same(x, y)`: whether an item theirs added is one ours already holds (default ==)."""
    same = same or (lambda x, y: x == y)

    def extra(items: list, against: list) -> list:
        return [x for x in items if not any(same(x, y) for y in against)]

    if ours == theirs:
        return list(ours)
    n = len(base)
    if _within(base, ours) and _within(ours, theirs):
        return list(theirs)  # theirs holds all ours added (`[X]` against `[Y, X]`)
    if _within(base, theirs) and _within(theirs, ours):
        return list(ours)
    if n == 0:
        return list(ours) + extra(theirs, ours)
    if theirs[:n] == base:
        return list(ours) + extra(theirs[n:], ours)
    if ours[:n] == base:
        return list(theirs) + extra(ours[n:], theirs)
    if theirs[len(theirs) - n:] == base:
        return extra(theirs[:len(theirs) - n], ours) + list(ours)
    if ours[len(ours) - n:] == base:
        return list(ours[:len(ours) - n]) + list(theirs)
    return None
