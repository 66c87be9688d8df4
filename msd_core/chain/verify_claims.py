"""Checking what an agent's step result claims before the chain believes it.

An agent may report an effect it did not produce (a commit refused by the host, a file it
meant to write). Where a result field states an effect the runtime can check, the chain
compares the claim with the project before recording the step:

- `committed: true`  a commit was made during the step (HEAD moved to a descendant of
  where it stood when the step began); a `commit` field, if given, names one of those new
  commits; and every declared path is committed: tracked and without uncommitted changes.
  Declared paths: the expected files of this step and of the run's earlier steps, the
  folder of the run's `phase_dir` variable (`.planning/phases/<phase_dir>/`), and the
  result's own `files` list.
- `files: [...]`     each path exists inside the project.
- `updated: true`    `.planning/STATE.md` changed during the step.

A false claim stops the chain with the difference; nothing is recorded. Uses `git` (the
project's own repository) only when a claim needs it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

STATE_MD = ".planning/STATE.md"
GIT_TIMEOUT = 30.0


def _git(root: Path, *args: str) -> tuple[int, str]:
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=GIT_TIMEOUT,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 127, str(exc)
    return proc.returncode, proc.stdout


def _head(root: Path) -> str | None:
    code, out = _git(root, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    return out.strip() if code == 0 and out.strip() else None


def _is_repo(root: Path) -> bool:
    code, out = _git(root, "rev-parse", "--is-inside-work-tree")
    return code == 0 and out.strip() == "true"


def _digest(path: Path) -> str | None:
    from msd_core.files.atomic import sha256_bytes
    from msd_core.files.safe_read import read_regular

    try:
        if not path.is_file():
            return None
        return sha256_bytes(read_regular(path))  # never waits on a FIFO swapped in after the check
    except OSError:
        return None


def snapshot(root: Path) -> dict:
    """What the claims are later compared with, taken before the agent starts."""
    repo = _is_repo(root)
    return {"repo": repo, "head": _head(root) if repo else None, "state_md": _digest(root / STATE_MD)}


def _inside(root: Path, rel: str) -> Path | None:
    base = root.resolve()
    target = (root / rel).resolve()
    return target if target == base or base in target.parents else None


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "(no commit yet)"


def _uncommitted(root: Path, paths: list[str]) -> list[str]:
    """Problems for declared paths that are untracked or changed since the last commit."""
    present = [p for p in paths if (root / p).exists()]
    if not present:
        return []
    code, out = _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *present)
    if code != 0:
        return [f"git status failed in {root}"]
    problems = []
    for entry in out.split("\0"):
        if len(entry) < 4:
            continue
        status, path = entry[:2], entry[3:]
        if status == "??":
            problems.append(f"{path} is not committed (untracked)")
        elif status != "!!":
            problems.append(f"{path} has changes that are not committed ({status.strip()})")
    return problems[:20]


def check(root: Path, before: dict, result: dict, declared: list[str]) -> list[str]:
    """Every claim in `result` the project contradicts (an empty list: all claims hold)."""
    problems: list[str] = []
    files = result.get("files")
    if isinstance(files, list):
        for rel in files[:200]:
            if not isinstance(rel, str) or not rel:
                problems.append(f"files lists {rel!r}, which is not a path")
                continue
            target = _inside(root, rel)
            if target is None:
                problems.append(f"claims file {rel}, which is outside the project")
            elif not target.exists():
                problems.append(f"claims file {rel}, which does not exist")
    if result.get("updated") is True and _digest(root / STATE_MD) == before.get("state_md"):
        problems.append(f"claims updated: true but {STATE_MD} did not change during the step")
    if result.get("committed") is True:
        problems += _check_commit(root, before, result, declared + [f for f in (files or []) if isinstance(f, str)])
    return problems


def _check_commit(root: Path, before: dict, result: dict, declared: list[str]) -> list[str]:
    if not before.get("repo") and not _is_repo(root):
        return [f"claims committed: true but {root} is no git repository"]
    old, new = before.get("head"), _head(root)
    if new is None or new == old:
        return [f"claims committed: true but no commit was made during the step (HEAD is still {_short(old)})"]
    if old is not None and _git(root, "merge-base", "--is-ancestor", old, new)[0] != 0:
        return [f"claims committed: true but HEAD moved to {_short(new)}, which does not descend from {_short(old)}"]
    problems = []
    named = result.get("commit")
    if isinstance(named, str) and named:
        code, out = _git(root, "rev-parse", "--verify", "-q", f"{named}^{{commit}}")
        sha = out.strip() if code == 0 else None
        in_range = sha is not None and _git(root, "merge-base", "--is-ancestor", sha, new)[0] == 0 and (
            old is None or _git(root, "merge-base", "--is-ancestor", sha, old)[0] != 0)
        if not in_range:
            problems.append(f"claims commit {named[:40]}, which is not among the commits made during the step")
    safe = [p for p in dict.fromkeys(declared) if _inside(root, p) is not None]
    problems += _uncommitted(root, safe)
    return problems
