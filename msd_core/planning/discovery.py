"""Finding a project's phase folders, plans and summaries.

Where phases live (in this order: archived milestones oldest first, then current):
  .planning/milestones/<v>-phases/<phase>/          archived milestone phases
  .planning/milestones/<v>/phases/<phase>/          (older archive layout)
  .planning/archive/<v>/phases/<phase>/
  .planning/phases/_archive/[<v>/]<phase>/
  .planning/phases/<phase>/                         current phases

A phase folder is named `<number>-<slug>`: `02-auth`, `35.1-hotfix`, `03.3-x`, or a
prefix without digits-only number such as `G1-foundation`. Summary files inside it
are `*-SUMMARY.md` (`02-01-SUMMARY.md`, `12-<slug>-01-SUMMARY.md`, `02-01-FIX-SUMMARY.md`)
or a bare `SUMMARY.md`; plans are `*-PLAN.md` or a bare `PLAN.md`. Symlinked folders
and files are not followed (a planted link cannot pull outside files into a digest).

Phase ids are normalised by `normalize_phase`: leading zeros go, decimals stay
(`02` → `2`, `03.3` → `3.3`, `35.1` → `35.1`, int 7 → `7`, float 3.1 → `3.1`,
`02-auth` → `2`); an id that is not numeric is kept as written (`G1`).

Standard library only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_NUM_RE = re.compile(r"^0*(\d+)((?:\.\d+)*)(?=$|[^\d.])")
_ARCHIVE_V_RE = re.compile(r"^v?[\d.]+.*-phases$")


def normalize_phase(value) -> str | None:
    """Canonical phase id for comparisons and digest keys (see module docstring)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    text = str(value).strip().strip("'\"")
    if not text:
        return None
    m = _NUM_RE.match(text)
    if m:
        decimals = ".".join(str(int(d)) for d in m.group(2).split(".")[1:])
        return m.group(1) + (f".{decimals}" if decimals else "")
    head = text.split("-", 1)[0].strip()
    return head or None


def folder_prefix_of(name: str) -> str:
    """The number as a phase folder writes it: `02-auth` → `02`, `35.1-x` → `35.1`, `G1-x` → `G1`."""
    m = re.match(r"^(\d+(?:\.\d+)*)", name)
    return m.group(1) if m else name.split("-", 1)[0]


class PhaseDir:
    """A phase folder: path, name (`02-auth`), number (normalised id from the name, or None),
    slug (the words after the number: `auth`), milestone (archive label; None when current)."""

    __slots__ = ("path", "name", "number", "slug", "milestone")

    def __init__(self, path: Path, name: str, number: str | None, slug: str, milestone: str | None):
        self.path, self.name, self.number, self.slug, self.milestone = path, name, number, slug, milestone

    def __repr__(self):
        return f"PhaseDir({self.name!r}, milestone={self.milestone!r})"


def _subdirs(path: Path) -> list[Path]:
    try:
        if os.path.islink(path):  # a symlinked phases/ or milestones/ folder is not followed either
            return []
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError:
        return []
    return [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")]


def _phase(path: Path, milestone: str | None) -> PhaseDir:
    name = path.name
    number = normalize_phase(name)
    slug = name.split("-", 1)[1] if "-" in name else ""
    return PhaseDir(path, name, number, slug.replace("-", " ").strip(), milestone)


def phase_dirs(planning: Path) -> list[PhaseDir]:
    """Every phase folder of a `.planning/` tree: archived ones first, then current."""
    planning = Path(planning)
    out: list[PhaseDir] = []
    milestones = planning / "milestones"
    for m in _subdirs(milestones):
        if _ARCHIVE_V_RE.match(m.name):
            out += [_phase(p, m.name[: -len("-phases")]) for p in _subdirs(m)]
        elif (m / "phases").is_dir() and not (m / "phases").is_symlink():
            out += [_phase(p, m.name) for p in _subdirs(m / "phases")]
    for v in _subdirs(planning / "archive"):
        if (v / "phases").is_dir() and not (v / "phases").is_symlink():
            out += [_phase(p, v.name) for p in _subdirs(v / "phases")]
    current = planning / "phases"
    subdirs = _subdirs(current)
    archives = [p for p in subdirs if p.name in ("_archive", "archive", "archived")]
    for p in archives:
        for q in _subdirs(p):
            if q.name[:1].isdigit():
                out.append(_phase(q, p.name))
            else:  # a version folder holding phases
                out += [_phase(r, q.name) for r in _subdirs(q)]
    out += [_phase(p, None) for p in subdirs if p not in archives]
    return out


def _files(folder: Path, suffix: str, bare: str) -> list[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    return [
        Path(e.path)
        for e in entries
        if (e.name.endswith(suffix) or e.name == bare) and e.is_file(follow_symlinks=False)
    ]


def summary_files(phase: PhaseDir | Path) -> list[Path]:
    return _files(phase.path if isinstance(phase, PhaseDir) else Path(phase), "-SUMMARY.md", "SUMMARY.md")


def plan_files(phase: PhaseDir | Path) -> list[Path]:
    return _files(phase.path if isinstance(phase, PhaseDir) else Path(phase), "-PLAN.md", "PLAN.md")


def project_summaries(planning: Path) -> list[tuple[PhaseDir, Path]]:
    """(phase folder, summary file) for every summary of the project, in phase order."""
    return [(ph, f) for ph in phase_dirs(planning) for f in summary_files(ph)]


def plan_id(summary_or_plan: Path) -> str:
    """`02-01-SUMMARY.md` → `02-01`; bare `SUMMARY.md` → the folder name."""
    pid = plan_id_of_name(summary_or_plan.name)
    return summary_or_plan.parent.name if pid is None else pid


def plan_id_of_name(name: str) -> str | None:
    """`02-01-SUMMARY.md` / `02-01-PLAN.md` → `02-01`; None for any other file name."""
    for suffix in ("-SUMMARY.md", "-PLAN.md"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return None
