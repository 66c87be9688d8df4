"""Three-way merge of a user's edited file with a new shipped version, against the pristine base.

Line-based (merge3). Text only: a file that is not UTF-8 never merges (it is a conflict).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MergeResult:
    clean: bool
    data: bytes | None  # merged bytes when clean


def _lines(data: bytes) -> list[str] | None:
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def merge3(base: bytes, mine: bytes, theirs: bytes) -> MergeResult:
    """Merge `mine` (the user's file) and `theirs` (the new version), both derived from `base`."""
    b, m, t = _lines(base), _lines(mine), _lines(theirs)
    if b is None or m is None or t is None:
        return MergeResult(False, None)
    import merge3 as _m3  # lazy: only an update with edited files needs it

    merger = _m3.Merge3(b, m, t)
    for region in merger.merge_regions():
        if region[0] == "conflict":
            return MergeResult(False, None)
    merged = "".join(merger.merge_lines())
    return MergeResult(True, merged.encode("utf-8"))
