"""Phase identity: one function turns any phase reference into the phase it names.

A phase is (milestone, number): `milestone` is None for the current milestone
(`.planning/phases/`) and the archive label (`v1.1`) for an archived one
(discovery.phase_dirs lists where archives live). Two milestones' phase 01 are two
phases; nothing keyed by phase may merge them.

References accepted by `parse_ref` / `resolve`:
  1  01  1.5  01.1  "Phase 2"  "phase 02"  02-auth (a folder name)  v1.1/02  v1.1/02-auth
A bare number names a phase of the current milestone; `<milestone>/<ref>` names an
archived one. Canonical id: the integer part zero-padded to two digits, decimals kept
(`1` → `01`, `1.5` → `01.5`, `12` → `12`); an existing folder's own prefix wins (a
folder `2-auth` keeps files `2-…`), so a model writing `"phase": "2"` gets
`02-auth/02-RESEARCH.md` when the folder is `02-auth`.

Errors (UsageError, exit 2, one line): a reference that is not a phase reference, a
number that no folder and no ROADMAP.md phase has, and a number two folders of one
milestone share (the message names both folders; pass the folder name instead).

Standard library only.
"""

from __future__ import annotations

import re
from pathlib import Path

from msd_core.errors import UsageError
from msd_core.planning.discovery import PhaseDir, folder_prefix_of, normalize_phase, phase_dirs

_REF_RE = re.compile(
    r"^(?:(?P<ms>[A-Za-z]?[\w.]*?\d[\w.]*?)/)?(?:phase[ _-]*)?(?P<num>\d+(?:\.\d+)*)(?:-(?P<slug>[^/\\\x00-\x1f]*))?$", re.I
)
MAX_REF_CHARS = 200


class UnknownPhase(UsageError):
    """A well-formed reference that names no phase."""


class AmbiguousPhase(UsageError):
    """Two folders of one milestone share the number a reference gives."""


class Phase:
    """The phase a reference names: number (`2`), id (`02`, file prefix), folder (Path or
    None when it does not exist yet), dirname (`02-auth`), milestone (None = current),
    name (from ROADMAP.md or the folder's words), label (`02` or `v1.1/02`: unique key)."""

    __slots__ = ("number", "id", "folder", "dirname", "milestone", "name")

    def __init__(self, number, id, folder, dirname, milestone, name):
        self.number, self.id, self.folder, self.dirname = number, id, folder, dirname
        self.milestone, self.name = milestone, name

    @property
    def label(self) -> str:
        return f"{self.milestone}/{self.id}" if self.milestone else self.id

    def to_dict(self, root: Path | None = None) -> dict:
        folder = self.folder
        if folder is not None and root is not None:
            try:
                folder = folder.relative_to(root)
            except ValueError:
                pass
        return {"phase": self.id, "number": self.number, "label": self.label, "milestone": self.milestone,
                "dir": self.dirname, "folder": folder.as_posix() if folder else None, "name": self.name}

    def __repr__(self):
        return f"Phase({self.label!r}, {self.dirname!r})"


def canonical_id(number: str) -> str:
    """`1` → `01`, `1.5` → `01.5`, `12` → `12`; a non-numeric id stays as written."""
    if not re.fullmatch(r"\d+(?:\.\d+)*", number or ""):
        return number
    head, _, rest = number.partition(".")
    return head.zfill(2) + (f".{rest}" if rest else "")


folder_prefix = folder_prefix_of


def parse_ref(ref) -> tuple[str | None, str, str | None]:
    """(milestone, normalised number, slug or None); UsageError when `ref` is no phase reference."""
    if isinstance(ref, bool) or ref is None:
        raise UsageError(f"{ref!r} is not a phase reference (give a number like 2, 02, 2.1 or a folder like 02-auth)")
    if isinstance(ref, (int, float)):
        ref = normalize_phase(ref)
    text = " ".join(str(ref).split())
    if len(text) > MAX_REF_CHARS:
        raise UsageError(f"phase reference longer than {MAX_REF_CHARS} characters")
    bare = text.strip().strip("'\"").rstrip("/")
    if bare and all(part.isascii() and part.isdigit() for part in bare.split(".")):
        return None, normalize_phase(bare), None  # a plain number (2, 02, 2.1): what _REF_RE gives, without compiling it
    m = _REF_RE.match(bare)
    if not m:
        raise UsageError(f"{text[:60]!r} is not a phase reference (give a number like 2, 02, 2.1 or a folder like 02-auth)")
    return m.group("ms"), normalize_phase(m.group("num")), (m.group("slug") or None)


def _same_milestone(pd: PhaseDir, milestone: str | None) -> bool:
    if milestone is None:
        return pd.milestone is None
    return pd.milestone is not None and pd.milestone.lstrip("vV") == milestone.lstrip("vV")


def resolve(planning: Path, ref, *, must_exist: bool = False, dirs: list[PhaseDir] | None = None) -> Phase:
    """The phase `ref` names in the `.planning/` folder `planning` (see the module docstring).

    A current-milestone phase with no folder yet resolves from ROADMAP.md (folder None,
    dirname `<id>-<slug of its roadmap name>`) unless `must_exist`."""
    planning = Path(planning)
    dirs = phase_dirs(planning) if dirs is None else dirs
    if isinstance(ref, str) and not ref[:1].isdigit():  # a folder without a number (`G1-foundation`)
        named = [d for d in dirs if d.milestone is None and d.name == ref.strip()]
        if len(named) == 1:
            d = named[0]
            return Phase(d.number, folder_prefix(d.name), d.path, d.name, None, d.slug or d.name)
    milestone, number, slug = parse_ref(ref)
    same = [d for d in dirs if d.number == number and _same_milestone(d, milestone)]
    if slug is not None:
        exact = [d for d in same if d.name.lower() == f"{folder_prefix(d.name)}-{slug}".lower()]
        same = exact or same
    if len(same) > 1:
        where = "milestone " + milestone if milestone else "the current milestone"
        names = ", ".join(d.name for d in same)
        raise AmbiguousPhase(f"phase {number} is ambiguous: {len(same)} folders of {where} have that number ({names})",
                         hint="name the folder itself (e.g. " + same[0].name + ") or renumber one of them")
    if same:
        d = same[0]
        return Phase(number, folder_prefix(d.name), d.path, d.name, d.milestone, d.slug or d.name)
    if milestone is None and not must_exist:
        title = _roadmap_name(planning, number)
        if title is not None:
            pid = canonical_id(number)
            words = re.sub(r"[^a-z0-9]+", "-", (slug or title).lower()).strip("-")[:60] or "phase"
            return Phase(number, pid, None, f"{pid}-{words}", None, title)
    where = f"milestone {milestone}" if milestone else ".planning/phases/ or ROADMAP.md"
    known = ", ".join(sorted({d.name for d in dirs if _same_milestone(d, milestone)})[:8]) or "none"
    raise UnknownPhase(f"phase {ref!s} names no phase in {where} (phase folders: {known})")


def _roadmap_name(planning: Path, number: str) -> str | None:
    try:
        from msd_core.files.safe_read import MAX_DOC_BYTES, read_text

        text = read_text(planning / "ROADMAP.md", MAX_DOC_BYTES)
    except OSError:
        return None
    from msd_core.planning.roadmap import roadmap_phases

    for p in roadmap_phases(text):
        if p.number == number:
            return p.name
    return None


def phase_key(pd: PhaseDir) -> str:
    """The unique key of a phase folder: `02-auth` (current) or `v1.1/02-auth` (archived).

    Keyed by folder, not by number: two milestones' phase 01 (or two current folders
    sharing a number) stay apart."""
    return f"{pd.milestone}/{pd.name}" if pd.milestone else pd.name


def key_matches(pd: PhaseDir, wanted: tuple[str | None, str, str | None]) -> bool:
    """Does the folder match a parsed reference (milestone, number, slug)? A reference
    without a milestone matches that number in every milestone (filters, not resolution)."""
    milestone, number, slug = wanted
    if pd.number != number:
        return False
    if milestone is not None and not _same_milestone(pd, milestone):
        return False
    return slug is None or pd.name.lower() == f"{folder_prefix(pd.name)}-{slug}".lower()


def flow_phase_vars(project_root: Path, vars: dict) -> dict:
    """A flow's `phase` / `phase_dir` variables made canonical (the flows' one use of phase identity).

    `phase` becomes the id files are named with (`2` → `02` when the folder is
    `02-auth`), and `phase_dir` the folder name when it was not given. A `phase_dir`
    naming an existing folder of `.planning/phases/` wins (its prefix becomes `phase`).
    A phase with no folder and no ROADMAP.md entry yet keeps the canonical id
    (`2` → `02`); an ambiguous number or a value that is no phase reference: UsageError."""
    if "phase" not in vars or isinstance(vars.get("phase"), bool):
        return vars
    out = dict(vars)
    planning = Path(project_root) / ".planning"
    pdir = out.get("phase_dir")
    if isinstance(pdir, str) and pdir.strip():
        name = pdir.strip().rstrip("/")
        for prefix in (".planning/phases/", "phases/"):
            if name.startswith(prefix):
                name = name[len(prefix):]
        folder = planning / "phases" / name
        if "/" not in name and name not in (".", "..") and folder.is_dir() and not folder.is_symlink():
            out["phase_dir"] = name
            out["phase"] = folder_prefix(name)
            return out
    try:
        found = resolve(planning, out["phase"])
    except UnknownPhase:
        _ms, number, _slug = parse_ref(out["phase"])
        out["phase"] = canonical_id(number)
        return out
    out["phase"] = found.id
    if not (isinstance(pdir, str) and pdir.strip()):
        out["phase_dir"] = found.dirname
    return out
