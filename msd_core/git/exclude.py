"""msd's working files kept out of `git status`: the repository's own exclude file.

`ensure_excluded(project_root, rel)` makes git ignore one working file of msd's (a path
relative to the project root, e.g. `.planning/state.json`, the flow state) by a line
`/<path from the repository's top>` in `<common git dir>/info/exclude`: the clone's own
ignore list, never committed, shared by its linked worktrees. The project's `.gitignore`
is never edited. `.planning/.msd/` needs no line: it ignores itself (msd_core.files.private_dir).

Best effort, and silent: no repository, a layout the files do not settle (msd_core.git.repo_files
raises Unsure), an unreadable or unwritable exclude file leave everything as it is; the line is
written once (a file that already names the path is not touched). Standard library only.
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


def ensure_excluded(project_root: Path, rel: str) -> bool:
    """True when this call added the line (False: already there, or nothing could be done)."""
    from msd_core.files.atomic import atomic_write_bytes
    from msd_core.files.safe_read import read_regular
    from msd_core.git.repo_files import Unsure, layout

    try:
        lay = layout(project_root)
    except (Unsure, OSError):
        return False
    if lay is None:
        return False
    line = exclude_line(lay.top, project_root, rel)
    if line is None:
        return False
    target = Path(lay.common) / "info" / "exclude"
    try:
        data = read_regular(target, MAX_EXCLUDE, follow_symlinks=False)
    except FileNotFoundError:
        data = b""
    except OSError:
        return False
    if line.encode() in data.splitlines():
        return False
    text = data + (b"" if not data or data.endswith(b"\n") else b"\n")
    text += b"# msd's working file (msd_core/git/exclude.py)\n" + line.encode() + b"\n"
    try:
        atomic_write_bytes(target, text, anchor=Path(lay.common))
    except OSError:
        return False
    return True
