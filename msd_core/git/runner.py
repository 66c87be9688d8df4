"""Running git: one place that calls the git binary, and the facts about a checkout.

`git(args, cwd)` runs git without a shell, with a time bound, never prompting (no editor,
no pager, no terminal prompt), and returns what it printed (returncode, stdout, stderr as
text). It runs `git -C <cwd> ...` through msd_core.lean.spawn (no subprocess import); a `cwd`
that does not exist is git's own error ("cannot change to"), exit 128. `check=True` turns a
non-zero exit into OperationFailed naming the command and git's first error line.

A checkout is either the main working tree or a linked worktree (`git worktree add`, or
Claude Code's Agent tool with `isolation: "worktree"`). `main_checkout(cwd)` finds the
main working tree from either, through git's common directory, so msd's private records
always live in the project the user opened.

Where the checkout is and what HEAD is are read from git's files when the layout is an
ordinary one (msd_core.git.repo_files), and asked of git otherwise: most callers of
`repo_paths`, `toplevel`, `head` and `current_branch` start no process at all.

Standard library only: git is started by msd_core.lean.spawn (os.posix_spawnp); subprocess is
imported only for the one caller that writes to git's stdin.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core.errors import OperationFailed

GIT_TIMEOUT = 120.0
INDEX_LOCK_WAIT = 15.0  # how long a commit waits out a hand-run git holding index.lock
ASK = object()  # the repository's files do not settle a question: git is asked


def _env() -> dict:
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "true", "GIT_PAGER": "cat", "LC_ALL": "C",
                "GIT_LITERAL_PATHSPECS": "1"})  # a path is a path, never a glob
    return env


def git(args: list[str], cwd: Path | str, *, check: bool = True, timeout: float = GIT_TIMEOUT,
        input_text: str | None = None, lock_wait: float = 0.0):
    """Run git. `lock_wait` > 0: while git reports another process's `index.lock`, retry for that long."""
    import time

    deadline = time.monotonic() + lock_wait
    delay = 0.05
    while True:
        proc = _git_once(args, cwd, timeout, input_text)
        if proc.returncode == 0 or "index.lock" not in (proc.stderr or "") or time.monotonic() >= deadline:
            break
        time.sleep(delay)
        delay = min(delay * 2, 0.5)
    if check and proc.returncode != 0:
        raise OperationFailed(f"`git {' '.join(args[:2])}` failed: {first_line(proc.stderr or proc.stdout)}")
    return proc


def _git_once(args: list[str], cwd: Path | str, timeout: float, input_text: str | None):
    """One git run through msd_core.lean.spawn (`git -C <cwd>`; no subprocess import unless
    text goes to git's stdin)."""
    from msd_core.lean import spawn

    with _git_errors(args, timeout):
        return spawn.run(["git", "-C", str(cwd), *args], _env(), timeout, input_text)


class _git_errors:  # noqa: N801 - used as a `with` block
    """A missing git and a time bound passed, as the one-line OperationFailed of `git`."""

    def __init__(self, args: list[str], timeout: float):
        self.args, self.timeout = args, timeout

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        from msd_core.lean import spawn

        if kind is not None and issubclass(kind, FileNotFoundError):
            raise OperationFailed("git is not installed (or not on PATH)") from None
        if kind is not None and issubclass(kind, spawn.Timeout):
            raise OperationFailed(f"`git {' '.join(self.args[:2])}` did not finish within {self.timeout:g}s") from None
        return False


class Started:
    """A git run started by `git_start`; `result()` is what `git(..., check=False)` returns.

    Used as a `with` block, so the run is always collected (waited for, never killed: a git
    commit stopped half-way would leave index.lock behind), also when the caller's own work in
    between raises."""

    def __init__(self, args: list[str], cwd: Path | str, lock_wait: float, timeout: float):
        import time

        from msd_core.lean import spawn

        self._args, self._cwd, self._timeout = args, cwd, timeout
        self._lock_until = time.monotonic() + lock_wait
        with _git_errors(args, timeout):
            self._running = spawn.start(["git", "-C", str(cwd), *args], _env(), timeout)
        self._proc = None

    def __enter__(self) -> "Started":
        return self

    def __exit__(self, *exc) -> None:
        self.result()

    def result(self):
        if self._proc is None:
            import time

            with _git_errors(self._args, self._timeout):
                proc = self._running.wait()
            left = self._lock_until - time.monotonic()
            if proc.returncode != 0 and "index.lock" in (proc.stderr or "") and left > 0:
                proc = git(self._args, self._cwd, check=False, timeout=self._timeout, lock_wait=left)
            self._proc = proc
        return self._proc


def git_start(args: list[str], cwd: Path | str, *, lock_wait: float = 0.0, timeout: float = GIT_TIMEOUT) -> Started:
    """Start git and return at once (see Started); the caller's short work overlaps git's."""
    return Started(args, cwd, lock_wait, timeout)


def first_line(text: str) -> str:
    for line in (text or "").splitlines():
        line = line.strip()
        if line:
            return line[:300]
    return "no message"


def _outside(cwd: Path | str) -> OperationFailed:
    return OperationFailed(f"{cwd} is not inside a git repository", hint="run `git init` first, or skip commits")


def _layout(cwd: Path | str):
    """The checkout's layout from its files: a repo_files.Layout, None outside a repository,
    or ASK when the files do not settle it."""
    from msd_core.git import repo_files

    try:
        return repo_files.layout(cwd)
    except repo_files.Unsure:
        return ASK


def toplevel(cwd: Path | str) -> Path:
    """The working tree (main or linked) that holds `cwd`; OperationFailed outside a repository."""
    lay = _layout(cwd)
    if lay is None:
        raise _outside(cwd)
    if lay is not ASK:
        return Path(lay.top)
    proc = git(["rev-parse", "--show-toplevel"], cwd, check=False)
    if proc.returncode != 0:
        raise _outside(cwd)
    return Path(proc.stdout.strip())


def repo_paths(cwd: Path | str) -> tuple[Path, Path, bool]:
    """(working tree holding `cwd`, the main working tree, whether `cwd` is in a linked
    worktree), from the repository's files or one `git rev-parse`; OperationFailed outside a repository."""
    lay = _layout(cwd)
    if lay is None:
        raise _outside(cwd)
    if lay is not ASK:
        top = Path(lay.top)
        if not lay.linked:
            return top, top, False
        common = Path(lay.common)
        if common.name != ".git":
            raise OperationFailed(f"cannot find the main checkout of {cwd} (git common dir {common} is not a .git folder)")
        return top, common.parent, True
    proc = git(["rev-parse", "--path-format=absolute", "--git-common-dir", "--git-dir", "--show-toplevel"], cwd,
               check=False)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or len(lines) < 3:
        raise _outside(cwd)
    common, gitdir, top = Path(lines[0]), Path(lines[1]), Path(lines[2])
    if common.resolve() == gitdir.resolve():
        return top, top, False
    if common.name != ".git":
        raise OperationFailed(f"cannot find the main checkout of {cwd} (git common dir {common} is not a .git folder)")
    return top, common.parent, True


def is_linked_worktree(cwd: Path | str) -> bool:
    return repo_paths(cwd)[2]


def main_checkout(cwd: Path | str) -> Path:
    """The main working tree of the repository holding `cwd` (itself when not a linked worktree)."""
    return repo_paths(cwd)[1]


def _head_files(cwd: Path | str):
    """repo_files.Head from the files, None outside a repository, ASK when unsure."""
    from msd_core.git import repo_files

    lay = _layout(cwd)
    if lay is None or lay is ASK:
        return lay
    try:
        return repo_files.head(lay)
    except repo_files.Unsure:
        return ASK


def head(cwd: Path | str) -> str | None:
    """The commit HEAD points at (`git rev-parse --verify -q HEAD`); None when unborn or outside a repository."""
    found = _head_files(cwd)
    if found is not ASK:
        return found.commit if found is not None else None
    proc = git(["rev-parse", "--verify", "-q", "HEAD"], cwd, check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def current_branch(cwd: Path | str) -> str | None:
    """The branch HEAD names (`git symbolic-ref -q --short HEAD`); None when detached or outside a repository."""
    found = _head_files(cwd)
    if found is not ASK:
        return found.branch if found is not None else None
    proc = git(["symbolic-ref", "-q", "--short", "HEAD"], cwd, check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


IN_PROGRESS = ("MERGE_HEAD", "REVERT_HEAD", "CHERRY_PICK_HEAD", "REBASE_HEAD")
REBASE_DIRS = ("rebase-merge", "rebase-apply")  # a rebase (or `git am`) under way, stopped or not


def operation_in_progress(cwd: Path | str, refs: tuple[str, ...] = IN_PROGRESS) -> str | None:
    """The first of `refs` (the pseudo-refs of an unfinished merge, revert, cherry-pick or
    rebase stop) present in the checkout's git directory, else None. In the files ref storage
    each is a file there, present exactly while the operation is unfinished (git status reads
    it the same way); with anything else (msd_core.git.repo_files is unsure) git is asked.
    With the default `refs`, a rebase's own folder counts too (a rebase stopped at `break`
    or `exec` leaves no REBASE_HEAD): its name is returned."""
    dirs = REBASE_DIRS if refs == IN_PROGRESS else ()
    lay = _layout(cwd)
    if lay is not None and lay is not ASK:
        return next((ref for ref in (*refs, *dirs) if os.path.lexists(os.path.join(lay.gitdir, ref))), None)
    for ref in refs:
        if git(["rev-parse", "--verify", "-q", ref], cwd, check=False).returncode == 0:
            return ref
    for name in dirs:
        where = git(["rev-parse", "--git-path", name], cwd, check=False).stdout.strip()
        if where and os.path.lexists(where if os.path.isabs(where) else os.path.join(str(cwd), where)):
            return name
    return None


def all_ancestors_of_head(cwd: Path | str, commits: list[str]) -> bool:
    """Whether every one of `commits` (hex object names) is a commit HEAD contains, from one
    `git rev-list <commits> --not HEAD` (nothing listed: all are ancestors). False also when
    one is missing, not a commit, or HEAD is unborn: the caller asks per commit to say which."""
    if not commits:
        return True
    proc = git(["rev-list", "--max-count=1", *commits, "--not", "HEAD", "--"], cwd, check=False)
    return proc.returncode == 0 and not proc.stdout.strip()


def tracked(cwd: Path | str, rels: list[str]) -> set[str]:
    """Which of `rels` (paths relative to the working tree `cwd`) git tracks, from one `git ls-files`."""
    if not rels:
        return set()
    proc = git(["ls-files", "-z", "--", *rels], cwd)
    listed = set(p for p in proc.stdout.split("\0") if p)
    return {r for r in rels if r in listed}


def known_paths(cwd: Path | str, rels: list[str]) -> set[str]:
    """Which of `rels` git knows: tracked in the index, or in HEAD (a path deleted or moved away
    since the last commit), a folder counting when it holds such a path. One `git ls-files`."""
    if not rels:
        return set()
    args = ["ls-files", "-z"] + (["--with-tree=HEAD"] if head(cwd) is not None else []) + ["--", *rels]
    listed = [p for p in git(args, cwd).stdout.split("\0") if p]
    return {r for r in rels if any(p == r or p.startswith(r.rstrip("/") + "/") for p in listed)}


def commit_paths(cwd: Path | str, written: list[str], deleted: list[str]) -> list[str]:
    """What a commit of a change must name (paths relative to `cwd`): every written path, and each
    deleted one git knows (a deleted path git never had is no change). Outside a repository: the
    written paths."""
    gone = sorted(set(deleted) - set(written))
    try:
        known = known_paths(cwd, gone) if gone else set()
    except OperationFailed:
        known = set()
    return sorted(set(written) | known)


def staged_renames(cwd: Path | str) -> dict[str, str]:
    """{new path: old path} of the renames the index holds against HEAD (`git mv`), one `git diff`."""
    proc = git(["diff", "--cached", "-M", "--name-status", "-z", "HEAD", "--"], cwd, check=False)
    if proc.returncode != 0:
        return {}
    parts = proc.stdout.split("\0")
    out: dict[str, str] = {}
    i = 0
    while i < len(parts):
        status = parts[i]
        if status.startswith("R") and i + 2 < len(parts):
            out[parts[i + 2]] = parts[i + 1]
            i += 3
        elif status.startswith("C") and i + 2 < len(parts):
            i += 3
        else:
            i += 2
    return out


def commit_and_files(cwd: Path | str, commit: str = "HEAD") -> tuple[str, list[str]]:
    """(full hash of `commit`, paths it changed against its first parent), from one git call."""
    proc = git(["diff-tree", "--root", "--name-only", "-r", "-z", commit], cwd)
    parts = [p for p in proc.stdout.split("\0") if p]
    if not parts:
        raise OperationFailed(f"git diff-tree gave no commit for {commit}")
    return parts[0].strip(), parts[1:]


def changed_between(cwd: Path | str, base: str, tip: str) -> list[str]:
    proc = git(["diff", "--name-only", "-z", f"{base}...{tip}"], cwd)
    return [p for p in proc.stdout.split("\0") if p]


def git_bytes(args: list[str], cwd: Path | str, *, input_bytes: bytes | None = None,
              timeout: float = GIT_TIMEOUT) -> tuple[int, bytes]:
    """(exit code, stdout bytes) of a git run whose output is file content (`cat-file --batch`),
    which text decoding would change; stderr is discarded. Through subprocess (bytes both ways)."""
    import subprocess

    with _git_errors(args, timeout):
        try:
            proc = subprocess.run(["git", "-C", str(cwd), *args], input=input_bytes, capture_output=True,
                                  env=_env(), timeout=timeout, stdin=None if input_bytes is not None else subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            from msd_core.lean import spawn

            raise spawn.Timeout() from None
    return proc.returncode, proc.stdout
