"""Drift's history part, kept by HEAD so the next run reads only the new commits (issue 49).

A full drift run (msd_core.execution.drift) reads git's history from the oldest relevant commit to
HEAD in one `git log`. What that history contributes to the findings is folded into a `Part`: the
commits that may be outside the workflow (`cands`, newest first: no trailer, not a merge, not an
undo, not planning docs; each with its subject, changes, reverts and the in-history verification
commits that contain it, so the outside-commit findings are judged again on every run against the
run records and acceptances of the day), the verification commits in that history (`inside`), each
such verification's watched files changed since it ({phase: {file: [commits]}}), the renames and
deletions seen (oldest first, as a dict in the order they happened), the commits read, and the
merge base and first msd commit it started from.

`save(root, head, facts, part)` writes it to `.planning/.msd/drift-state.json` (one per root, an
atomic replace: two agents writing at once leave one whole file, the last writer's). `extend(...)`
gives the part for the current HEAD from the saved one plus only `git log saved..HEAD`, or None
when that is not provably the full computation's answer, and the caller reads the whole history:

  - no file, unreadable, larger than MAX_BYTES, another VERSION or msd version, a wrong shape;
  - the project's facts differ (`fingerprint`, kept whole: every plan's declared, artifact and key-link files,
    its requirements, each phase's verification commit and file, the accepted commits, the scope,
    which verification commits the repository holds);
  - the saved part started from no msd commit (a new one may become the first);
  - HEAD does not descend from the saved HEAD along a line of single-parent commits (a reset,
    rebase, merge or amend): a merge can bring commits older than the saved history, which the
    full `git log` would interleave with it;
  - a new commit is a verification commit (it now lies in this history).

The same file keeps the phases drift read from `.planning/` (`dump_phases`, `kept_phases`) with a
stamp of the files they came from (`planning_stamp`): used again only while that stamp is equal
and every file in it is older than QUIET_NS. Bump VERSION when what a saved part means changes
(e.g. which commits count as msd's). Standard library only.
"""

from __future__ import annotations

import json
from pathlib import Path

NAME = "drift-state.json"
VERSION = 1
MAX_BYTES = 4 * 1024 * 1024


class Part:
    __slots__ = ("base", "first", "read", "inside", "cands", "changed", "moved", "deleted")

    def __init__(self, base, first, read, inside, cands, changed, moved, deleted):
        self.base, self.first, self.read, self.inside, self.cands = base, first, read, inside, cands
        self.changed, self.moved, self.deleted = changed, moved, deleted


def fingerprint(phases, ok_commits, where, nested, present) -> str:
    """Every project fact the history part was computed with (module doc), as one canonical JSON text
    (kept whole and compared whole: no hash module on the hot path)."""
    facts = [[[ph.number, ph.dirname, ph.verified, ph.verification,
               [[p.pid, p.phase, list(p.files), list(p.requirements)] for p in ph.plans]] for ph in phases],
             sorted(ok_commits), list(where), list(nested), sorted(present)]
    return json.dumps(facts, sort_keys=True, separators=(",", ":"))


def _version() -> str:
    from msd_core import __version__

    return __version__


def _path(root: Path) -> Path:
    from msd_core.paths import project_state_dir

    return project_state_dir(Path(root)) / NAME


def save(root: Path, head: str, facts: str, part: Part, phases: dict | None = None) -> None:
    """Keep `part` for `head` (and `phases`: `dump_phases`); larger than MAX_BYTES or a folder that
    cannot be written: not kept."""
    from msd_core.errors import MsdError
    from msd_core.files.atomic import atomic_write_text
    from msd_core.files.private_dir import ensure_private_dir

    doc = {"version": VERSION, "msd": _version(), "head": head, "facts": facts, "phases": phases,
           **{k: getattr(part, k) for k in Part.__slots__}}
    doc["moved"] = [[old, new, by] for old, (new, by) in part.moved.items()]
    doc["deleted"] = [[path, by] for path, by in part.deleted.items()]
    text = json.dumps(doc, separators=(",", ":")) + "\n"
    if len(text.encode()) > MAX_BYTES:
        return
    try:
        atomic_write_text(ensure_private_dir(Path(root)) / NAME, text, anchor=Path(root), durable=False)  # a cache
    except (OSError, MsdError):
        pass


def load(root: Path) -> dict | None:
    """The saved state as written by `save`, or None (absent, unreadable, too large, foreign, malformed).
    Read by the bounded JSON reader (a regular file, at most MAX_BYTES, no symlink), its shape checked here."""
    from msd_core.files.bounded import read_json

    try:
        doc = read_json(_path(root), "drift state", MAX_BYTES, follow_symlinks=False)
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("version") != VERSION or doc.get("msd") != _version():
        return None
    try:
        part = Part(doc["base"], doc["first"], doc["read"], doc["inside"], doc["cands"], doc["changed"],
                    {old: (new, by) for old, new, by in doc["moved"]}, {path: by for path, by in doc["deleted"]})
    except (KeyError, TypeError, ValueError):
        return None
    strs = (str, type(None))
    if not (isinstance(doc.get("head"), str) and isinstance(doc.get("facts"), str) and isinstance(part.first, str)
            and isinstance(part.base, strs) and type(part.read) is int and isinstance(part.inside, list)
            and isinstance(part.cands, list) and all(_cand_ok(c) for c in part.cands) and isinstance(part.changed, dict)
            and all(isinstance(v, dict) and all(isinstance(h, list) for h in v.values()) for v in part.changed.values())
            and all(isinstance(x, str) for x in [*part.inside, *part.moved, *part.deleted])):
        return None
    return {"head": doc["head"], "facts": doc["facts"], "part": part, "phases": doc.get("phases")}


def new_commits(root: Path, old: str, tip: str, where: list[str], read) -> list | None:
    """The commits from `old` (excluded) to `tip`, newest first, when they are one line of single-parent
    commits on top of `old`; None otherwise (module doc). `read(rev)`: drift's `git log` of a range."""
    from msd_core.git.runner import git

    if old == tip:
        return []
    if where:  # the scoped log rewrites parents (and leaves commits out): ask git for the real ones first
        proc = git(["rev-list", "--parents", f"{old}..{tip}", "--"], root, check=False)
        rows = [line.split() for line in (proc.stdout or "").splitlines()]
        if proc.returncode != 0 or not _one_line(old, tip, [(r[0], r[1:]) for r in rows]):
            return None
    history = read([f"{old}..{tip}"])
    return history if where or _one_line(old, tip, [(c.hash, c.parents) for c in history]) else None


def _one_line(old: str, tip: str, rows: list[tuple[str, list[str]]]) -> bool:
    """`rows` (newest first) run from `tip` down to a child of `old`, each with one parent, the next row."""
    if not rows or rows[0][0] != tip:
        return False
    for i, (_h, parents) in enumerate(rows):
        below = rows[i + 1][0] if i + 1 < len(rows) else old
        if parents != [below]:
            return False
    return True


def _cand_ok(c) -> bool:
    """[hash, subject, [[status, path, old or None]], [reverted], [containing verification commits]]."""
    return (isinstance(c, list) and len(c) == 5 and isinstance(c[0], str) and isinstance(c[1], str)
            and isinstance(c[2], list) and all(isinstance(x, list) and len(x) == 3 and isinstance(x[0], str)
                                               and isinstance(x[1], str) and isinstance(x[2], (str, type(None))) for x in c[2])
            and isinstance(c[3], list) and isinstance(c[4], list) and all(isinstance(x, str) for x in [*c[3], *c[4]]))


def extend(root: Path, saved: dict | None, tip: str, facts: str, verif: set[str], where: list[str], read):
    """(the saved part, the new commits newest first) when `saved` (`load`) extends to `tip`, else None.
    `read(rev)`: drift's `git log` of a range (msd_core.execution.drift.read_history)."""
    if saved is None or saved["facts"] != facts:
        return None
    part = saved["part"]
    from msd_core.errors import MsdError

    try:
        new = new_commits(root, saved["head"], tip, where, read)
    except (MsdError, OSError):  # git could not say: read the whole history
        return None
    if new is None or any(c.hash in verif for c in new):
        return None
    return part, new


# ------------------------------------------------------------------ the phases, kept while their files are


QUIET_NS = 2_000_000_000  # a file changed less than this ago may change again within the clock's tick
MAX_STAMPED = 4000


def planning_stamp(root: Path) -> list | None:
    """What the phases were read from (drift.read_phases): ROADMAP.md, REQUIREMENTS.md, config.json,
    the folders phases live in and every entry two levels below `.planning/phases/`, each by
    (inode, size, mtime, ctime). None when one changed in the last QUIET_NS (file times have a coarse
    tick: a same-size edit within it would look unchanged) or there are more than MAX_STAMPED."""
    import os
    import time

    planning = Path(root) / ".planning"
    out: list = []
    newest = 0

    def add(path: Path, rel: str):
        nonlocal newest
        try:
            st = os.lstat(path)
        except OSError:
            out.append([rel])
            return None
        out.append([rel, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode])
        newest = max(newest, st.st_mtime_ns, st.st_ctime_ns)
        return st

    def below(folder: Path, rel: str, depth: int) -> bool:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            return True
        for name in names:
            st = add(folder / name, f"{rel}/{name}")
            if len(out) > MAX_STAMPED:
                return False
            if st is not None and depth and (st.st_mode & 0o170000) == 0o040000 and not below(folder / name, f"{rel}/{name}", depth - 1):
                return False
        return True

    for name in ("ROADMAP.md", "REQUIREMENTS.md", "config.json", "milestones", "archive", "phases"):
        add(planning / name, name)
    if not below(planning / "phases", "phases", 2):
        return None
    return None if newest > time.time_ns() - QUIET_NS else out


def dump_phases(stamp: list | None, phases: list, notes: list[str]) -> dict | None:
    """The phases drift read (drift.PhaseFacts) and their notes, kept with `stamp`; None without one."""
    if stamp is None:
        return None
    return {"stamp": stamp, "notes": notes, "phases": [
        [ph.number, ph.dirname, ph.requirements, ph.verified, ph.verification,
         [[p.pid, p.phase, p.phase_dir, p.rel, p.files, p.requirements, p.executed, p.artifacts] for p in ph.plans]]
        for ph in phases]}


def kept_phases(saved: dict | None, stamp: list | None, PhaseFacts, PlanFacts) -> tuple[list, list[str]] | None:  # noqa: N803
    """(phases, notes) kept in `saved` while `stamp` is the one they were read with, else None
    (`PhaseFacts`, `PlanFacts`: drift's classes, built from the kept rows)."""
    doc = (saved or {}).get("phases")
    if stamp is None or not isinstance(doc, dict) or doc.get("stamp") != stamp:
        return None
    try:
        phases = [PhaseFacts(n, d, list(reqs), [PlanFacts(*p) for p in plans], v, where)
                  for n, d, reqs, v, where, plans in doc["phases"]]
        notes = list(doc["notes"])
    except (KeyError, TypeError, ValueError):
        return None
    strs = (str, type(None))
    ok = all(isinstance(ph.number, str) and isinstance(ph.dirname, str) and isinstance(ph.verified, strs)
             and isinstance(ph.verification, strs) and all(isinstance(r, str) for r in ph.requirements)
             and all(isinstance(p.pid, str) and isinstance(p.files, list) and isinstance(p.artifacts, list)
                     and isinstance(p.requirements, list) and isinstance(p.executed, bool)
                     and all(isinstance(f, str) for f in [*p.files, *p.artifacts, *p.requirements]) for p in ph.plans)
             for ph in phases) and all(isinstance(n, str) for n in notes)
    return (phases, notes) if ok else None
