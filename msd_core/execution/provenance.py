"""Which commits msd made, told by git rather than by a run record.

A run record (msd_core.execution.run_record) is project data anyone can edit, so a command
that acts on recorded commits (undo, wave merge) checks each one against git first:

- `msd_run commit --plan` writes the trailer `Msd-Plan: <phase-dir>/<plan-id>` into the
  commit message (`git commit --trailer`, merged into any trailers the message has), so the
  commit itself says it was made by msd for that plan; a hand-made commit does not;
- a plan of a root below the work tree's top also gets `Msd-Root: <its folder>`: two roots may
  both hold `01-setup/01-01`, and a commit proves a plan of its own root only
  (msd_core.git.trailers.plans_of, the one rule every reader asks);
- `facts(root, hashes, project_rel)` reads, in one `git log`, each commit's parents, subject, the
  Msd-Plan trailers naming plans of that root, and the files it changed against its parent;
- `mismatch(commit, fact)` says how a recorded commit differs from git: not found, a merge,
  no trailer for its plan, other files than the record names. None when they agree.

Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from msd_core.git.trailers import PLAN_KEY, ROOT_KEY, root_value

TRAILER_KEY = PLAN_KEY


def trailer(phase_dir: str, plan_id: str) -> str:
    return f"{TRAILER_KEY}: {phase_dir}/{plan_id}"


def trailer_args(phase_dir: str, plan_id: str, project_rel: str = "") -> list[str]:
    """`git commit` arguments marking a commit as the plan's: Msd-Plan, and Msd-Root for a root below the top."""
    out = ["--trailer", trailer(phase_dir, plan_id)]
    folder = root_value(project_rel)
    return out + ["--trailer", f"{ROOT_KEY}: {folder}"] if folder else out


class Fact:
    """What git says about one commit: hash, parents, subject, plans (Msd-Plan values), files."""

    __slots__ = ("hash", "parents", "subject", "plans", "files", "elsewhere")

    def __init__(self, hash: str, parents: list[str], subject: str, plans: list[str], files: list[str],
                 elsewhere: str | None = None):
        self.hash, self.parents, self.subject, self.plans, self.files = hash, parents, subject, plans, files
        self.elsewhere = elsewhere  # Msd-Plan values of another root's plans, and that root (else None)

    def to_dict(self) -> dict:
        return {"hash": self.hash, "message": self.subject, "files": self.files, "msd_plan": self.plans}


def facts(root: Path, hashes: list[str], project_rel: str = "", only_root: bool | Callable[[], bool] = False) -> dict[str, Fact]:
    """{hash as given: Fact} for commits that exist (`git log --no-walk`, one call). `project_rel`: the plans'
    root, from the work tree's top ("" the top); `only_root`: whether it is the repository's only root."""
    from msd_core.git.trailers import log, plans_of

    if not hashes:
        return {}
    found = []
    for c in log(root, ["--no-walk=unsorted", *hashes], (TRAILER_KEY, ROOT_KEY)) or []:
        mine = plans_of(c.trailers, project_rel, only_root)
        other = None
        if c.trailers[TRAILER_KEY] and not mine:
            where = ", ".join(c.trailers[ROOT_KEY]) or "the repository's top"
            other = f"{', '.join(c.trailers[TRAILER_KEY])} of {where}"
        found.append(Fact(c.hash, c.parents, c.subject, mine, c.files, other))
    out = {}
    for h in hashes:
        match = next((f for f in found if f.hash.startswith(h)), None)
        if match is not None:
            out[h] = match
    return out


def mismatch(commit: dict, fact: Fact | None) -> str | None:
    """How the recorded `commit` ({hash, plan, phase_dir, files}) differs from git's `fact`; None when they agree."""
    short, plan = commit["hash"][:12], commit.get("plan")
    if fact is None:
        return f"recorded commit {short} ({plan}) is not in this repository"
    if len(fact.parents) > 1:
        return f"recorded commit {short} ({plan}) is a merge; `msd_run commit` never makes one"
    want = f"{commit.get('phase_dir')}/{plan}"
    if want not in fact.plans:
        said = (f"it says {TRAILER_KEY}: {', '.join(fact.plans)}" if fact.plans else
                f"it was made for {fact.elsewhere}" if fact.elsewhere else f"it has no {TRAILER_KEY} trailer")
        return f"recorded commit {short} was not made by `msd_run commit` for {plan} ({said})"
    if sorted(fact.files) != sorted(commit.get("files") or []):
        extra = sorted(set(fact.files) - set(commit.get("files") or []))
        gone = sorted(set(commit.get("files") or []) - set(fact.files))
        what = "; ".join(x for x in (f"it also touches {', '.join(extra[:3])}" if extra else "",
                                     f"it does not touch {', '.join(gone[:3])}" if gone else "") if x)
        return f"recorded commit {short} ({plan}) does not touch the files its record names ({what})"
    return None
