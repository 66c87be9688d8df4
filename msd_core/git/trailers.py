"""Commits as `git log` tells them, with the values of named message trailers and the files each changed.

`log(root, revs, keys)` runs one `git log -z --name-only` over `revs` (a list of hashes with
`--no-walk=unsorted`, or a range with a `--grep` filter) and returns, per commit, its hash,
parents, subject, {trailer key: [values]} and the files it changed against its first parent
(renames off: a move is a deletion and an addition). msd's own trailers (`Msd-Plan`,
`Msd-Deviation`) are written by `msd_run commit` (msd_core.execution.commit); undo, wave merge
(msd_core.execution.provenance) and the evidence of a plan done (msd_core.progress.evidence)
read them here. Standard library only.
"""

from __future__ import annotations

import re
from pathlib import Path

from msd_core.git.runner import git

PLAN_KEY = "Msd-Plan"  # `Msd-Plan: <phase-dir>/<plan-id>`: made by `msd_run commit --plan` for that plan
DEVIATION_KEY = "Msd-Deviation"  # `Msd-Deviation: <why>`: the commit was made with --deviation
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
