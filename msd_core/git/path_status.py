"""What one `git status` says about the paths a commit names, when the answer is simple.

`start(top, rels)` starts `git --no-optional-locks status --porcelain=v2 -z
--untracked-files=all --ignored=matching --no-renames -- <rels>` (status re-reads a file
whose timestamps changed, so a file rewritten with the same bytes is not a change; it
writes nothing; msd_core.git.runner.git_start, so the caller can work meanwhile), and
`read(started, rels)` returns `(changed, to_add)`:

- `changed`: every path under `rels` whose content in the working tree differs from HEAD,
  sorted: what `git commit -- <rels>` (which commits the working tree's content of the named
  paths) records, once `to_add` is staged;
- `to_add`: the paths git does not track yet and must `git add` first (a commit by pathspec
  refuses a path git does not know): untracked files, and an ignored file only when it is
  named itself (`git add` then refuses it, as it would have; an ignored file inside a named
  folder is left out, as `git add <folder>` leaves it).

`staged_additions(started)` lists the paths the index adds against HEAD (a new file, or the new
side of a `git mv`): the caller asks whether one of them is a move whose old path must be
committed with it.

`read` returns None, and the caller stages and asks git as before, whenever a path's state is
not one of those simple ones: a path changed both in the index and in the working tree
(the two changes may cancel out), a rename or copy record, an unmerged path, a submodule, a
path listed twice, or a status that failed.

Standard library only.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.git.runner import Started, git_start

_ARGS = ["--no-optional-locks", "status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored=matching",
         "--no-renames", "--"]


def start(top: Path, rels: list[str]) -> Started:
    return git_start([*_ARGS, *rels], top)


def read(started: Started, rels: list[str]) -> tuple[list[str], list[str]] | None:
    proc = started.result()
    if proc.returncode != 0:
        return None
    named = set(rels)
    changed: set[str] = set()
    to_add: list[str] = []
    for record in proc.stdout.split("\0"):
        if not record:
            continue
        kind = record[0]
        if kind in "?!":
            path = record[2:]
            if kind == "!" and path not in named:
                continue  # ignored, inside a named folder: `git add <folder>` skips it too
            to_add.append(path)
        elif kind == "1":
            fields = record.split(" ", 8)
            if len(fields) != 9 or fields[2] != "N...":
                return None  # malformed, or a submodule
            xy = fields[1]
            if len(xy) != 2 or (xy[0] != ".") == (xy[1] != "."):
                return None  # changed in the index and in the tree: they may cancel out
            path = fields[8]
        else:
            return None  # "2" (rename or copy), "u" (unmerged), anything newer
        if path in changed:
            return None
        changed.add(path)
    return sorted(changed), to_add


def staged_additions(started: Started) -> list[str]:
    """Paths the index adds against HEAD, from the same status (see the module docstring)."""
    proc = started.result()
    if proc.returncode != 0:
        return []
    out = []
    for record in proc.stdout.split("\0"):
        if record[:1] == "1":
            fields = record.split(" ", 8)
            if len(fields) == 9 and fields[1][:1] == "A":
                out.append(fields[8])
    return out
