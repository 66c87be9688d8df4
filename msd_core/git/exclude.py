"""msd's working files kept out of `git status`: the repository's own exclude file.

`ensure_excluded(project_root, rel)` makes git ignore one working file of msd's (a path
relative to the project root, e.g. `.planning/state.json`, the flow state) by a line
`/<path from the repository's top>` in `<common git dir>/info/exclude`: the clone's own
ignore list, never committed, shared by its linked worktrees. The project's `.gitignore`
is never edited. `.planning/.msd/` needs no line: it ignores itself (msd_core.files.private_dir).

Best effort, and silent: no repository, a layout the files do not settle (msd_core.git.repo_files
raises Unsure), an unreadable or unwritable exclude file leave everything as it is; the line is
written once (a file that already names the path is not touched). Standard library only.

`exclude_file` (where the clone's exclude file is, and its top), `exclude_line` and `appended`
are also what a local install uses to keep its per-machine settings file out of git
(msd_core/install/git_exclude.py, which records the bytes so uninstall can take them out).
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_EXCLUDE = 1 << 20


def exclude_line(top: str, project_root: Path, rel: str) -> str | None:
    """The exclude pattern for `rel` (relative to the project root) in the repository whose top is `top`."""
    try:
        path = os.path.relpath(os.path.realpath(Path(project_root) / rel), os.path.realpath(top))
    except ValueError:
        return None
    if path.startswith(".."):
        return None
    return "/" + path.replace(os.sep, "/")


def exclude_file(start: Path) -> tuple[Path, str] | None:
    """(`<common git dir>/info/exclude`, the work tree's top) of the repository holding `start`;
    None: no repository, or a layout its files do not settle (msd_core.git.repo_files)."""
    from msd_core.git.repo_files import Unsure, layout

    try:
        lay = layout(start)
    except (Unsure, OSError):
        return None
    if lay is None:
        return None
    return Path(lay.common) / "info" / "exclude", lay.top


def appended(data: bytes, block: bytes) -> bytes:
    """The bytes to add after `data` so that `block` starts on a line of its own."""
    return (b"" if not data or data.endswith(b"\n") else b"\n") + block


def ensure_excluded(project_root: Path, rel: str) -> bool:
    """True when this call added the line (False: already there, or nothing could be done)."""
    from msd_core.files.atomic import atomic_write_bytes
    from msd_core.files.safe_read import read_regular

    found = exclude_file(project_root)
    if found is None:
        return False
    target, top = found
    line = exclude_line(top, project_root, rel)
    if line is None:
        return False
    try:
        data = read_regular(target, MAX_EXCLUDE, follow_symlinks=False)
    except FileNotFoundError:
        data = b""
    except OSError:
        return False
    if line.encode() in data.splitlines():
        return False
    text = data + appended(data, b"# msd's working file (msd_core/git/exclude.py)\n" + line.encode() + b"\n")
    try:
        atomic_write_bytes(target, text, anchor=target.parent.parent)
    except OSError:
        return False
    return True
