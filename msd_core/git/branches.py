"""Local branches: whether a name is valid, whether it exists, switching, creating, deleting,
and what a branch holds that another does not.

Every call goes through msd_core.git.runner.git (no shell, a time bound, never prompting);
git's refusal is one OperationFailed line. `uncommitted(top)` lists what `git status` would
carry over a switch (tracked changes and untracked files, ignored files not counted): a
throwaway branch is only started from, and only removed at, a clean tree, so removing it
loses nothing but what it was made for. Standard library only.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.errors import OperationFailed
from msd_core.git.runner import git

MAX_LISTED = 200  # commits and paths listed at most


def valid_name(top: Path, name: str) -> bool:
    """`git check-ref-format --branch <name>` accepts it (and it is not an option)."""
    if not name or name.startswith("-"):
        return False
    return git(["check-ref-format", "--branch", name], top, check=False).returncode == 0


def exists(top: Path, name: str) -> bool:
    return git(["show-ref", "--verify", "--quiet", f"refs/heads/{name}"], top, check=False).returncode == 0


def tip(top: Path, name: str) -> str | None:
    """The commit `refs/heads/<name>` points at, or None when there is no such branch."""
    proc = git(["rev-parse", "--verify", "-q", f"refs/heads/{name}^{{commit}}"], top, check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def _run(top: Path, args: list[str], what: str) -> None:
    proc = git(args, top, check=False)
    if proc.returncode != 0:
        from msd_core.git.runner import first_line

        raise OperationFailed(f"{what}: {first_line(proc.stderr or proc.stdout)}")


def switch(top: Path, name: str) -> None:
    _run(top, ["switch", "--no-guess", name], f"cannot switch to {name}")


def create(top: Path, name: str, start: str = "HEAD") -> None:
    """Create branch `name` at `start` and switch to it."""
    _run(top, ["switch", "--no-guess", "-c", name, start], f"cannot create branch {name}")


def delete(top: Path, name: str) -> None:
    """Delete branch `name` even when no other branch holds its commits (the caller recorded its tip)."""
    _run(top, ["branch", "-D", "--", name], f"cannot delete branch {name}")


def uncommitted(top: Path) -> list[str]:
    """Paths `git status` reports as changed or untracked (ignored files are not), at most MAX_LISTED."""
    proc = git(["--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"], top)
    out = []
    for entry in proc.stdout.split("\0"):
        if len(entry) > 3 and entry[2] == " ":
            out.append(entry[3:])
            if len(out) >= MAX_LISTED:
                break
    return out


def commits_between(top: Path, base: str, head: str) -> list[dict]:
    """[{hash, subject}] of the commits `head` has that `base` has not, oldest first (at most MAX_LISTED)."""
    proc = git(["log", "--reverse", f"--max-count={MAX_LISTED}", "--format=%H%x09%s", f"{base}..{head}", "--"],
               top, check=False)
    if proc.returncode != 0:
        return []
    out = []
    for line in proc.stdout.splitlines():
        sha, _tab, subject = line.partition("\t")
        if sha:
            out.append({"hash": sha, "subject": subject[:200]})
    return out


def files_between(top: Path, base: str, head: str) -> list[str]:
    """Paths that differ between `base` and `head` (at most MAX_LISTED)."""
    proc = git(["diff", "--name-only", "-z", f"{base}...{head}", "--"], top, check=False)
    if proc.returncode != 0:
        return []
    return [p for p in proc.stdout.split("\0") if p][:MAX_LISTED]
