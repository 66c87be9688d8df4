"""Which commits msd made, told by git rather than by a run record.

A run record (msd_core.execution.run_record) is project data anyone can edit, so a command
that acts on recorded commits (undo, wave merge) checks each one against git first:

- `msd_run commit --plan` writes the trailer `Msd-Plan: <phase-dir>/<plan-id>` into the
  commit message (`git commit --trailer`, merged into any trailers the message has), so the
  commit itself says it was made by msd for that plan; a hand-made commit does not;
- `facts(root, hashes)` reads, in one `git log`, each commit's parents, subject, Msd-Plan
  trailers and the files it changed against its parent;
- `mismatch(commit, fact)` says how a recorded commit differs from git: not found, a merge,
  no trailer for its plan, other files than the record names. None when they agree.

Standard library only.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.git.trailers import PLAN_KEY

TRAILER_KEY = PLAN_KEY


def trailer(phase_dir: str, plan_id: str) -> str:
    return f"{TRAILER_KEY}: {phase_dir}/{plan_id}"


class Fact:
    """What git says about one commit: hash, parents, subject, plans (Msd-Plan values), files."""

    __slots__ = ("hash", "parents", "subject", "plans", "files")

    def __init__(self, hash: str, parents: list[str], subject: str, plans: list[str], files: list[str]):
        self.hash, self.parents, self.subject, self.plans, self.files = hash, parents, subject, plans, files

    def to_dict(self) -> dict:
        return {"hash": self.hash, "message": self.subject, "files": self.files, "msd_plan": self.plans}


def facts(root: Path, hashes: list[str]) -> dict[str, Fact]:
    """{hash as given: Fact} for commits that exist (`git log --no-walk`, one call)."""
    from msd_core.git.trailers import log

    if not hashes:
        return {}
    found = [Fact(c.hash, c.parents, c.subject, c.trailers[TRAILER_KEY], c.files)
             for c in log(root, ["--no-walk=unsorted", *hashes], (TRAILER_KEY,)) or []]
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
        said = f"it says {TRAILER_KEY}: {', '.join(fact.plans)}" if fact.plans else f"it has no {TRAILER_KEY} trailer"
        return f"recorded commit {short} was not made by `msd_run commit` for {plan} ({said})"
    if sorted(fact.files) != sorted(commit.get("files") or []):
        extra = sorted(set(fact.files) - set(commit.get("files") or []))
        gone = sorted(set(commit.get("files") or []) - set(fact.files))
        what = "; ".join(x for x in (f"it also touches {', '.join(extra[:3])}" if extra else "",
                                     f"it does not touch {', '.join(gone[:3])}" if gone else "") if x)
        return f"recorded commit {short} ({plan}) does not touch the files its record names ({what})"
    return None
