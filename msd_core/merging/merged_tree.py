"""STATE.md's derived lines for the tree a merge is producing, while git is still merging.

A merge driver runs before git writes the merged files, so the working tree still holds ours.
The tree the merge will check out is computed beside it:

1. the two commits: ours is HEAD; theirs is the one `git merge` names in its `GITHEAD_<hash>`
   environment variable, or the commit a rebase is applying (the last line of
   `<git dir>/rebase-merge/done`, merged against its parent; git 2.40 or later);
2. `git merge-tree --write-tree` of the two, with MSD_MERGE_NESTED set so this driver, run
   again by it for STATE.md, only merges lines (the other planning files' drivers run as they
   do in the real merge, so both merges give the same ROADMAP.md);
3. a copy of the project's `.planning/` (hard links of the working tree's regular files, symlinks
   and `.planning/.msd/` left out) in a temporary folder of the git directory, with every file
   the merge changes written from the merged tree and each deleted one removed;
4. msd_core.progress.state_sync.derive on that copy. Last activity takes only the day from
   file times: a file the merge leaves alone keeps the working tree's time, and every file it
   writes gets the time now (git writes them right after the driver, so on the same day but
   within moments of midnight).

Nothing is derived (None: the caller keeps ours' derived lines, and `msd_run state sync`
recomputes them later) when the merge is of another kind (an octopus merge, a cherry-pick, a
stash), git is older, the copy would hold more than MAX_FILES files, or anything fails.

Standard library only.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

NESTED_ENV = "MSD_MERGE_NESTED"
MAX_FILES = 20000
APPLYING = ("pick", "p", "reword", "r", "edit", "e", "squash", "s", "fixup", "f")


def _git(args: list[str], top: Path, check: bool = False):
    from msd_core.git.runner import git

    return git(args, top, check=check)


def merge_commits(gitdir: Path, environ=None) -> tuple[str, str, str | None] | None:
    """(ours, theirs, base or None for git's own merge base) of the merge in progress, or None."""
    environ = os.environ if environ is None else environ
    heads = [k[len("GITHEAD_"):] for k in environ if k.startswith("GITHEAD_")]
    if len(heads) == 1 and _hexname(heads[0]):
        return "HEAD", heads[0], None
    if heads:
        return None
    done = gitdir / "rebase-merge" / "done"
    try:
        from msd_core.files.safe_read import MAX_DOC_BYTES, read_text

        lines = [x.split() for x in read_text(done, MAX_DOC_BYTES).splitlines() if x.strip()]
    except OSError:
        return None
    if lines and len(lines[-1]) >= 2 and lines[-1][0] in APPLYING and _hexname(lines[-1][1]):
        return "HEAD", lines[-1][1], lines[-1][1] + "^"
    return None


def _hexname(text: str) -> bool:
    return 4 <= len(text) <= 64 and all(c in "0123456789abcdef" for c in text.lower())


def merged_tree(top: Path, ours: str, theirs: str, base: str | None) -> str | None:
    args = ["merge-tree", "--write-tree", "--no-messages"]
    if base:
        args.append(f"--merge-base={base}")
    previous = os.environ.get(NESTED_ENV)
    os.environ[NESTED_ENV] = "1"
    try:
        proc = _git([*args, ours, theirs], top)
    finally:
        if previous is None:
            os.environ.pop(NESTED_ENV, None)
        else:
            os.environ[NESTED_ENV] = previous
    if proc.returncode not in (0, 1):
        return None
    oid = proc.stdout.split("\n", 1)[0].strip()
    return oid if _hexname(oid) else None


def _changes(top: Path, tree: str, planning_rel: str) -> list[tuple[str, str, str]] | None:
    """(status A|M|D|T, path, merged blob) of every file under `planning_rel` the merge changes."""
    proc = _git(["diff-tree", "-r", "-z", "--no-renames", "HEAD", tree, "--", planning_rel], top)
    if proc.returncode != 0:
        return None
    parts = proc.stdout.split("\0")
    out = []
    for i in range(0, len(parts) - 1, 2):
        meta, path = parts[i].split(), parts[i + 1]
        if len(meta) < 5:
            continue
        mode, blob, status = meta[1], meta[3], meta[4][:1]
        if mode in ("120000", "160000") or (status != "D" and not mode.startswith("100")):
            continue  # symlinks and submodules: not files a planning reader follows
        out.append((status, path, blob))
    return out


def _blobs(top: Path, oids: list[str]) -> dict[str, bytes] | None:
    from msd_core.git.runner import git_bytes

    if not oids:
        return {}
    code, data = git_bytes(["cat-file", "--batch"], top, input_bytes=("\n".join(oids) + "\n").encode())
    if code != 0:
        return None
    out, at = {}, 0
    for oid in oids:
        end = data.index(b"\n", at)
        header = data[at:end].split()
        if len(header) != 3 or header[1] != b"blob":
            return None
        size = int(header[2])
        out[oid] = data[end + 1:end + 1 + size]
        at = end + 1 + size + 1
    return out


def _mirror(src: Path, dest: Path) -> int:
    """Hard links (copies where a link is refused) of `src`'s regular files; returns the count."""
    count = 0
    from msd_core.files.walk import walk  # iterative, depth-capped (no RecursionError)

    for dirpath, dirnames, filenames in walk(src):
        rel = os.path.relpath(dirpath, src)
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))
                       and not (rel == "." and d == ".msd")]
        target = dest if rel == "." else dest / rel
        target.mkdir(parents=True, exist_ok=True)
        for name in filenames:
            path = os.path.join(dirpath, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            count += 1
            if count > MAX_FILES:
                raise OverflowError("too many files")
            try:
                os.link(path, target / name)
            except OSError:
                shutil.copy2(path, target / name)
    return count


def derived_for_merge(top: Path, state_rel: str, gitdir: Path) -> tuple[dict | None, str]:
    """(the derived values (state_sync.derive) of the merged tree, or None and why not) (module doc)."""
    if os.environ.get(NESTED_ENV):
        return None, "nested"
    commits = merge_commits(gitdir)
    if commits is None:
        return None, "not a two-branch merge or a rebase step (a cherry-pick, a stash, an octopus merge)"
    tree = merged_tree(top, *commits)
    if tree is None:
        return None, "git could not compute the merged tree (git merge-tree --write-tree needs git 2.38, a rebase 2.40)"
    project_rel = os.path.dirname(os.path.dirname(state_rel))
    planning_rel = (project_rel + "/" if project_rel else "") + ".planning"
    changes = _changes(top, tree, planning_rel)
    blobs = _blobs(top, sorted({blob for status, _p, blob in changes if status != "D"})) if changes is not None else None
    if blobs is None:
        return None, "the merged files could not be read from git"
    scratch = gitdir / f"msd-merge-{os.getpid()}-{os.urandom(3).hex()}"
    try:
        project = scratch / "project"
        try:
            _mirror(top / planning_rel, project / ".planning")
        except OverflowError:
            return None, f"the planning folder holds more than {MAX_FILES} files"
        now = time.time()
        for status, path, blob in changes:
            dest = project / ".planning" / os.path.relpath(path, planning_rel)
            if dest.exists():
                dest.unlink()
            if status == "D":
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(blobs[blob])
            os.utime(dest, (now, now))
        from msd_core.progress.state_sync import derive

        return derive(project), ""
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
