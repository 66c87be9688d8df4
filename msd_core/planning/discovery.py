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


# ------------------------------------------------------------------ phase identity of a folder

# a phase number (`02`, `3.1`, `02_auth`), or a short phase id (`G1`) followed by words, not by a
# number (`v2-03-api` names a phase 03 of something else: no phase of this project's)
_PHASE_NAME_RE = re.compile(r"^(?:\d+(?:\.\d+)*(?=$|[^\d.])|[A-Za-z]{1,4}\d+(?:\.\d+)*(?=$|-(?!\d)))")
NOT_A_PHASE_NAME = "not a phase folder: its name does not start with a phase number (02-name) or a phase id (G1-name)"
LINKED = "a symlink, not followed (phase folders are read only where they are)"


def phase_identity(name: str) -> str | None:
    """The phase a folder's name gives (normalize_phase of it), or None when the name gives none
    (`codenexus-04-parity`, `notes`): the one rule every reader of phase folders applies."""
    return normalize_phase(name) if _PHASE_NAME_RE.match(name) else None


class SkippedDir:
    """An entry where phase folders live that no reader reads: path, milestone, reason, and
    `blocks` (a symlink, or a folder holding plans or summaries: the phase list cannot be read
    whole, so nothing derived from it is written and no phase is renumbered around it)."""

    __slots__ = ("path", "milestone", "reason", "blocks")

    def __init__(self, path: Path, milestone: str | None, reason: str, blocks: bool):
        self.path, self.milestone, self.reason, self.blocks = path, milestone, reason, blocks

    def to_dict(self, root: Path) -> dict:
        try:
            rel = self.path.relative_to(root).as_posix()
        except ValueError:
            rel = str(self.path)
        return {"file": rel, "reason": self.reason, **({"blocks": True} if self.blocks else {})}

    def describe(self, root: Path) -> str:
        return f"{self.to_dict(root)['file']} is {self.reason}"

    def __repr__(self):
        return f"SkippedDir({self.path.name!r}, {self.reason!r})"


def _holds_phase_files(path: Path) -> bool:
    try:
        with os.scandir(path) as entries:
            return any(e.name.endswith(("-PLAN.md", "-SUMMARY.md")) or e.name in ("PLAN.md", "SUMMARY.md")
                       for e in entries)
    except OSError:
        return False


def _subdirs(path: Path, skipped: list | None = None, milestone: str | None = None) -> list[Path]:
    """The real folders in `path` (sorted; hidden ones left out). A symlinked folder is never
    followed: with `skipped`, each one (and `path` itself when it is a link) is recorded there."""
    try:
        if os.path.islink(path):  # a symlinked phases/ or milestones/ folder is not followed either
            if skipped is not None:
                skipped.append(SkippedDir(Path(path), milestone, LINKED, True))
            return []
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError:
        return []
    out = []
    for e in entries:
        if e.name.startswith("."):
            continue
        if e.is_dir(follow_symlinks=False):
            out.append(Path(e.path))
        elif skipped is not None and e.is_symlink() and e.is_dir():
            skipped.append(SkippedDir(Path(e.path), milestone, LINKED, True))
    return out


def _one(p: Path, milestone: str | None, skipped: list | None) -> list[PhaseDir]:
    """[the phase folder `p`], or [] with `p` recorded in `skipped` when its name gives no phase."""
    number = phase_identity(p.name)
    if number is None:
        if skipped is not None:
            skipped.append(SkippedDir(p, milestone, NOT_A_PHASE_NAME, _holds_phase_files(p)))
        return []
    slug = p.name.split("-", 1)[1] if "-" in p.name else ""
    return [PhaseDir(p, p.name, number, slug.replace("-", " ").strip(), milestone)]


def _phases(folder: Path, milestone: str | None, skipped: list | None, exclude=()) -> list[PhaseDir]:
    """The phase folders directly in `folder`; every other folder goes to `skipped` with its reason."""
    return [d for p in _subdirs(folder, skipped, milestone) if p.name not in exclude for d in _one(p, milestone, skipped)]


ARCHIVE_NAMES = ("_archive", "archive", "archived")


def phase_dirs(planning: Path, skipped: list | None = None) -> list[PhaseDir]:
    """Every phase folder of a `.planning/` tree: archived ones first, then current. A folder
    whose name gives no phase (phase_identity) or a symlink where phases live is no phase of
    any reader; pass a list as `skipped` to receive them (SkippedDir: path, milestone, reason)."""
    planning = Path(planning)
    out: list[PhaseDir] = []
    milestones = planning / "milestones"
    for m in _subdirs(milestones):
        if _ARCHIVE_V_RE.match(m.name):
            out += _phases(m, m.name[: -len("-phases")], skipped)
        elif (m / "phases").is_dir() and not (m / "phases").is_symlink():
            out += _phases(m / "phases", m.name, skipped)
    for v in _subdirs(planning / "archive"):
        if (v / "phases").is_dir() and not (v / "phases").is_symlink():
            out += _phases(v / "phases", v.name, skipped)
    current = planning / "phases"
    subdirs = _subdirs(current, skipped)
    for p in subdirs:
        if p.name in ARCHIVE_NAMES:
            for q in _subdirs(p, skipped, p.name):
                if q.name[:1].isdigit():
                    out += _one(q, p.name, skipped)
                else:  # a version folder holding phases
                    out += _phases(q, q.name, skipped)
    for p in subdirs:
        if p.name not in ARCHIVE_NAMES:
            out += _one(p, None, skipped)
    return out


def shared_numbers(dirs: list[PhaseDir]) -> dict[str, list[str]]:
    """{number: folder names} for each number two or more current phase folders share (two clones
    that each added a phase, then merged); readers see only the first folder of each."""
    seen: dict[str, list[str]] = {}
    for d in dirs:
        if d.milestone is None and d.number is not None:
            seen.setdefault(d.number, []).append(d.name)
    return {n: names for n, names in seen.items() if len(names) > 1}


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


def project_summaries(planning: Path, skipped: list | None = None) -> list[tuple[PhaseDir, Path]]:
    """(phase folder, summary file) for every summary of the project, in phase order
    (`skipped` as in phase_dirs)."""
    return [(ph, f) for ph in phase_dirs(planning, skipped) for f in summary_files(ph)]


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
