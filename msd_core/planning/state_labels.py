"""The names a STATE.md line or section goes by: msd's own label first, then the older
spellings existing projects use. Every reader and patcher of STATE.md asks `names()`, so a
file written from msd's template and one carried over from an older tree are read alike,
and a patch edits whichever spelling the file already has (nothing is renamed).

Standard library only.
"""

from __future__ import annotations

# (msd's label, older spellings...): compared case-insensitively
SECTIONS = (
    ("Position", "Current Position"),
    ("Session", "Session Continuity"),
    ("Blockers", "Blockers/Concerns"),
)
FIELDS = (
    ("Focus", "Current focus"),
    ("Last change", "Last activity"),
    ("Last worked", "Last session"),
    ("Left off", "Stopped at"),
    ("Handoff", "Resume file"),
)


def _index(groups) -> dict[str, tuple[str, ...]]:
    return {name.lower(): group for group in groups for name in group}


_SECTION_INDEX = _index(SECTIONS)
_FIELD_INDEX = _index(FIELDS)


def section_names(name: str) -> tuple[str, ...]:
    """Every name of the section `name` (itself alone when it has no other)."""
    return _SECTION_INDEX.get(name.lower(), (name,))


def field_names(name: str) -> tuple[str, ...]:
    """Every label of the line `name` (itself alone when it has no other)."""
    return _FIELD_INDEX.get(name.lower(), (name,))


def known_labels() -> set[str]:
    """Every label and section name above (the content check counts them as read by code)."""
    return {n for group in SECTIONS + FIELDS for n in group}
