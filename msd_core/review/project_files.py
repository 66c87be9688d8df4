"""The project's own files, for the reviews: listed without following links, read with a cap.

`listing(root)`: repository-relative POSIX paths of the project's files. In a git checkout,
`git ls-files --cached --others --exclude-standard` (what the project tracks or would track:
ignored build output and dependencies are not the project's); elsewhere a walk that skips
hidden folders and DEPENDENCY_DIRS. Either way without the files msd owns there (a local
install's content, msd_core.ownership.in_project): msd's `templates/` is not the project's
frontend. At most MAX_FILES paths either way; `truncated` says so.
`read_text(root, rel, cap)`: the file as text, or None when it is absent, not a regular file
(a link, a FIFO, a folder), reached through a linked folder that leads outside the project, larger than `cap`, or binary (a NUL byte in its first 8 KB).
Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_FILES = 20_000
DEPENDENCY_DIRS = frozenset({"node_modules", "vendor", "dist", "build", "target", "out", "venv", "env",
                             "__pycache__", "coverage", "site-packages", "bower_components", "Pods"})


def listing(root: Path) -> tuple[list[str], bool]:
    """(paths, truncated)."""
    root = Path(root)
    from msd_core.errors import OperationFailed
    from msd_core.git.runner import git
    from msd_core.ownership.in_project import owned_paths

    owned = owned_paths(root)
    try:
        proc = git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], root, check=False)
    except OperationFailed:
        proc = None
    if proc is not None and proc.returncode == 0:
        paths = [p for p in proc.stdout.split("\0") if p and not p.startswith(".planning/")]
        paths = [p for p in paths if not any(part in DEPENDENCY_DIRS for part in p.split("/")[:-1]) and p not in owned]
        return sorted(set(paths))[:MAX_FILES], len(paths) > MAX_FILES
    out: list[str] = []
    from msd_core.files.walk import walk  # iterative, depth-capped (no RecursionError)

    for top, dirs, files in walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in DEPENDENCY_DIRS)
        rel_top = os.path.relpath(top, root)
        for name in sorted(files):
            rel = name if rel_top == "." else f"{rel_top}/{name}".replace(os.sep, "/")
            if rel in owned:
                continue
            out.append(rel)
            if len(out) > MAX_FILES:
                return out[:MAX_FILES], True
    return out, False


def inside(root: Path, rel: str) -> bool:
    """`rel` is a relative path whose folders (links resolved) stay inside `root`."""
    if not rel or rel.startswith("/") or "\0" in rel or ".." in rel.split("/"):
        return False
    try:
        base = Path(root).resolve()
        parent = (Path(root) / rel).parent.resolve()
    except (OSError, RuntimeError, ValueError):
        return False
    return parent == base or base in parent.parents


def read_text(root: Path, rel: str, cap: int) -> str | None:
    from msd_core.files.safe_read import read_regular

    if not inside(root, rel):
        return None
    try:
        raw = read_regular(Path(root) / rel, cap, follow_symlinks=False)
    except OSError:  # absent, a link, a FIFO, too large, unreadable
        return None
    if b"\0" in raw[:8192]:
        return None
    return raw.decode("utf-8", errors="replace")
