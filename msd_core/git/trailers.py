"""Commits as `git log` tells them, with the values of named message trailers and the files each changed.

`log(root, revs, keys)` runs one `git log -z --name-only` over `revs` (a list of hashes with
`--no-walk=unsorted`, or a range with a `--grep` filter) and returns, per commit, its hash,
parents, subject, {trailer key: [values]} and the files it changed against its first parent
(renames off: a move is a deletion and an addition). msd's own trailers (`Msd-Plan`,
`Msd-Root`, `Msd-Deviation`) are written by `msd_run commit` (msd_core.execution.commit); undo,
wave merge (msd_core.execution.provenance), the evidence of a plan done (msd_core.progress.evidence)
and drift (`in_message`, from a commit's whole message) read them here.

Whose plan a trailer names (`plans_of`, the one rule): several `.planning/` roots in one repository
can each hold `01-setup/01-01`, so a plan's commit in a root below the work tree's top also carries
`Msd-Root: <its folder from the top>` (`services/api`). A commit with `Msd-Root` names plans of that
root only; one without names plans of the top's project, and of a root below it only when that root
is the repository's only one (commits made before roots were named). Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from msd_core.git.runner import git

PLAN_KEY = "Msd-Plan"  # `Msd-Plan: <phase-dir>/<plan-id>`: made by `msd_run commit --plan` for that plan
ROOT_KEY = "Msd-Root"  # `Msd-Root: <folder>`: the plan's `.planning/` root, from the work tree's top (absent: the top)
DEVIATION_KEY = "Msd-Deviation"  # `Msd-Deviation: <why>`: the commit was made with --deviation
_MESSAGE_LINE = re.compile(rf"^[ \t]*({PLAN_KEY}|{ROOT_KEY}):[ \t]*(\S[^\n]*?)[ \t]*$", re.M)
_HEAD = re.compile(r"^[0-9a-f]{40,64}\x1f")


class LoggedCommit:
    __slots__ = ("hash", "parents", "subject", "trailers", "files")

    def __init__(self, hash: str, parents: list[str], subject: str, trailers: dict[str, list[str]], files: list[str]):
        self.hash, self.parents, self.subject, self.trailers, self.files = hash, parents, subject, trailers, files


def log(root: Path, args: list[str], keys: tuple[str, ...]) -> list[LoggedCommit] | None:
    """The commits `git log <args>` lists (None: git failed, e.g. no repository or no commit yet)."""
    fields = "%x1f".join(f"%(trailers:key={k},valueonly,separator=%x1e)" for k in keys)
    fmt = f"%x00%H%x1f%P%x1f%s%x1f{fields}"
    proc = git(["log", "-z", "--no-renames", "--name-only", f"--format={fmt}", *args, "--"], root, check=False)
    if proc.returncode != 0:
        return None
    found: list[LoggedCommit] = []
    tokens = proc.stdout.split("\0")
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if _HEAD.match(tok) and (i == 0 or tokens[i - 1] == ""):
            parts = tok.split("\x1f") + [""] * (3 + len(keys))
            full, parents, subject = parts[0], parts[1], parts[2]
            values = {k: [v.strip() for v in parts[3 + n].split("\x1e") if v.strip()] for n, k in enumerate(keys)}
            commit = LoggedCommit(full, parents.split(), subject, values, [])
            found.append(commit)
            i += 1
            while i < len(tokens) and tokens[i] != "":
                commit.files.append(tokens[i].lstrip("\n"))
                i += 1
        i += 1
    return found


def root_value(project_rel: str) -> str:
    """A root's folder as `Msd-Root` names it: "/"-separated, no "./" or trailing "/" ("" for the top)."""
    parts = [p for p in project_rel.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def in_message(message: str) -> dict[str, list[str]]:
    """{PLAN_KEY: [...], ROOT_KEY: [...]}: the msd trailer lines anywhere in a commit's message (a squash keeps
    each squashed commit's lines)."""
    out: dict[str, list[str]] = {PLAN_KEY: [], ROOT_KEY: []}
    for key, value in _MESSAGE_LINE.findall(message):
        out[key].append(value)
    return out


def plans_of(trailers: dict[str, list[str]], project_rel: str, only_root: bool | Callable[[], bool] = False) -> list[str]:
    """The `Msd-Plan` values of a commit (`trailers`: {key: values}) that name plans of the root at `project_rel`
    (its folder from the work tree's top, "" for the top). `only_root`: whether that root is the repository's
    only one (a callable is asked only when a commit without `Msd-Root` would need it)."""
    plans = trailers.get(PLAN_KEY) or []
    if not plans:
        return []
    want = root_value(project_rel)
    named = {root_value(v) for v in trailers.get(ROOT_KEY) or []}
    if named:
        return plans if want in named else []
    if not want:
        return plans
    return plans if (only_root() if callable(only_root) else only_root) else []
