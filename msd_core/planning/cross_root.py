"""A phase's dependencies on phases of other projects in the same repository (docs/CONTRACTS.md, "ROADMAP.md").

Several `.planning/` roots may live under one git work tree (msd_core.progress.workspace lists
them). A phase names a phase of another root on its `Depends on:` line, as
`Phase <N> of <folder>`, where `<folder>` is the other root's folder relative to the top of the
git work tree (`.` is the top itself); other words on the line (`Phase 1`, `nothing`) are this
root's own and are read as before:

    ### Phase 3: Checkout
    **Depends on**: Phase 2, Phase 2 of services/api

`cross_refs(text)` gives each such reference with its line; `folder_of(top, name)` the folder a
reference names, or None when the name could leave the work tree (absolute, `..`, a backslash, a
drive, a control character) or is no folder name at all. Lines inside code fences are examples
and are not read. Standard library only.
"""

from __future__ import annotations

import re
from pathlib import Path

from msd_core.planning.discovery import normalize_phase

_HEAD_RE = re.compile(r"^\s*#{2,4}\s*Phase\s+(?P<num>[0-9]+(?:\.[0-9]+)*)\b")
_DEP_LINE_RE = re.compile(r"^\s*(?:[-*]\s*)?(?:\*\*Depends on\*\*\s*:?|\*\*Depends on:\*\*|Depends on\s*:)\s*(?P<rest>.*)$", re.I)
_REF_RE = re.compile(r"\bPhase\s+(?P<num>[0-9]+(?:\.[0-9]+)*)\s+of\s+`?(?P<folder>[^\s,;`()]+)`?", re.I)
MAX_NAME = 300


class CrossRef:
    """phase: this root's phase (normalised number); folder: the other root, as written (relative to the
    work tree's top); other_phase: the other root's phase (normalised number); line: 1-based, in ROADMAP.md."""

    __slots__ = ("phase", "folder", "other_phase", "line")

    def __init__(self, phase: str, folder: str, other_phase: str, line: int):
        self.phase, self.folder, self.other_phase, self.line = phase, folder, other_phase, line

    def label(self) -> str:
        return f"phase {self.other_phase} of {self.folder}"


def cross_refs(text: str | None) -> list[CrossRef]:
    """Every `Phase N of <folder>` on a `Depends on:` line of a phase's block, in file order."""
    from msd_core.planning.md_lines import prose_lines

    out: list[CrossRef] = []
    phase = None
    for n, line in prose_lines(text or ""):
        h = _HEAD_RE.match(line)
        if h:
            phase = normalize_phase(h.group("num"))
            continue
        if line.lstrip().startswith("#"):
            phase = None
            continue
        if phase is None or "of" not in line:
            continue
        m = _DEP_LINE_RE.match(line)
        if not m:
            continue
        for ref in _REF_RE.finditer(m.group("rest")):
            other = normalize_phase(ref.group("num"))
            folder = ref.group("folder").rstrip(".:").rstrip("/") or ref.group("folder")
            if other is not None:
                out.append(CrossRef(phase, folder, other, n))
    return out


def refs_of(text: str | None, phase: str) -> list[CrossRef]:
    """The references of one phase (its number normalised or not)."""
    number = normalize_phase(phase)
    return [r for r in cross_refs(text) if r.phase == number]


def folder_of(top: Path, name: str) -> Path | None:
    """The folder `name` names under the work tree's top, or None when it could leave it."""
    if not name or len(name) > MAX_NAME or "\\" in name or name.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", name):
        return None
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return None
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        return None
    return Path(top).joinpath(*parts)
