"""Whether a plan's old name was moved to its current one by a renumber (`msd_run phase reconcile`, `phase
remove`), not removed with its phase and its slug reused by a new phase (msd_core.progress.evidence.renumbered
asks it before it credits the old name's commits).

A renumber moves the plan's PLAN file: `04-billing/04-01-PLAN.md` becomes `05-billing/05-01-PLAN.md`, its
text kept but for its numbers. That trail is read from git:

- committed: `git log --follow` of the current PLAN lists the names it had through git's renames (git pairs a
  file deleted with one added in the same commit when most of their content is the same), over any number of
  renumbers;
- not committed yet (reconcile leaves its moves in the work tree): the trail goes on from the one PLAN of
  the plan's slug and number that HEAD's tree holds, the work tree no longer has, and most of whose lines
  are the current PLAN's (`similar`, git's measure in spirit: half the larger file).

A phase removed in one commit and a new one of its slug written in another leaves no such trail, nor does a
new plan whose text is its own. A few git processes (a log, and in the work tree's case a listing and one
read per gone PLAN of that slug and number), asked only for a plan whose commits are found under an old
name alone (never on `next`'s way for a plan its own name proves). Standard library only.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from msd_core.errors import MsdError

PHASES = ".planning/phases/"
_MAX_PLAN = 4 * 1024 * 1024


def plan_path(plan: str) -> str:
    """`04-billing/04-01` -> `.planning/phases/04-billing/04-01-PLAN.md` (from the project's folder)."""
    folder, _, pid = plan.partition("/")
    return f"{PHASES}{folder}/{pid}-PLAN.md"


def _git(main: Path, args: list[str]) -> str | None:
    from msd_core.git.runner import git

    try:
        proc = git(args, main, check=False)
    except MsdError:
        return None
    return proc.stdout if proc.returncode == 0 else None


def _names(main: Path, rel: str) -> list[str]:
    """The names (from the work tree's top) the file at `rel` had in the history reachable from HEAD, newest
    first, through git's renames; [] when HEAD does not hold it."""
    out = _git(main, ["log", "--follow", "--format=", "--name-only", "-z", "HEAD", "--", rel])
    return [n.strip("\n") for n in (out or "").split("\0") if n.strip("\n")]


def similar(old: str, new: str) -> bool:
    """Whether most of two texts' lines are the same: the lines (blank ones aside) they share are at least half
    of the larger one's."""
    a = Counter(line.strip() for line in old.splitlines() if line.strip())
    b = Counter(line.strip() for line in new.splitlines() if line.strip())
    larger = max(sum(a.values()), sum(b.values()))
    return larger > 0 and 2 * sum((a & b).values()) >= larger


def _moved_in_work_tree(main: Path, prefix: str, new: str, same: Callable[[str], bool]) -> str | None:
    """The path (from the work tree's top) of the PLAN in HEAD's tree that the work tree has moved to `new`'s:
    of the plan names `same` takes, the PLANs HEAD holds and the work tree does not, the only one most of
    whose lines are the current PLAN's; None when there is not exactly one such (two would leave it uncertain)."""
    from msd_core.files.safe_read import read_regular

    listing = _git(main, ["ls-tree", "-r", "-z", "--full-name", "--name-only", "HEAD", "--", PHASES])
    try:
        now = read_regular(Path(main) / plan_path(new), _MAX_PLAN, follow_symlinks=False).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    found = []
    for top_rel in (listing or "").split("\0"):
        rel = top_rel[len(prefix):] if top_rel.startswith(prefix) else ""
        folder, _, name = rel[len(PHASES):].partition("/")
        if not (rel.startswith(PHASES) and name.endswith("-PLAN.md") and "/" not in name):
            continue
        if same(f"{folder}/{name[:-len('-PLAN.md')]}") and not os.path.lexists(Path(main) / rel):
            before = _git(main, ["cat-file", "blob", f"HEAD:{top_rel}"])
            if before is not None and similar(before, now):
                found.append(top_rel)
    return found[0] if len(found) == 1 else None


def moved(main: Path, prefix: str, old: str, new: str, same: Callable[[str], bool]) -> bool:
    """Whether plan `old` ("04-billing/04-01") became plan `new` ("05-billing/05-01") by moves git can trace
    (above). `prefix`: the project's folder from the work tree's top ("services/api/" or ""); `same`: a
    callable telling whether a plan name has `new`'s slug and number in its phase."""
    target = prefix + plan_path(old)
    names = _names(main, plan_path(new))
    if not names:  # the current PLAN is not in HEAD: a renumber not committed yet
        start = _moved_in_work_tree(main, prefix, new, same)
        if start is None:
            return False
        names = [start] + _names(main, start[len(prefix):])
    return target in names
