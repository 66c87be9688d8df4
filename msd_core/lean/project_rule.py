"""Which project a command acts on: the walk behind msd_core.paths.find_project_root.

The rule (docs/CONTRACTS.md, "Which project"): the nearest folder holding `.planning/`,
searching up from the starting folder (`--cwd`, else the current one), but never above the
top of the git work tree that holds the start (the first folder holding `.git`: a folder, or
the file of a linked worktree or a submodule); outside a work tree never above the home
folder; never the filesystem root or the system temp folder itself (the walk stops there).

os.path only (no pathlib, no tempfile, no git process): the guard's lean start and every
`msd_run` call take it. Paths are strings here; msd_core.paths wraps them in Path.
"""

from __future__ import annotations

import os

PLANNING = ".planning"  # msd_core.paths.PLANNING_DIRNAME (paths imports this module, not the reverse)


def _identity(path: str):
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino)


def temp_folders() -> set:
    """The identities (device, inode) of the system temp folder under its usual names.

    What tempfile.gettempdir() answers, without importing tempfile (tests/lean/test_project_rule.py
    checks it is in the set): $TMPDIR, $TEMP, $TMP, then the platform's defaults. Compared by
    identity, so a symlinked name (macOS's /tmp) matches too."""
    names = [os.environ.get(name, "") for name in ("TMPDIR", "TEMP", "TMP")]
    if os.name == "nt":  # pragma: no cover - Windows
        names += [os.path.expandvars(r"%LOCALAPPDATA%\Temp"), r"C:\TEMP", r"C:\TMP", r"\TEMP", r"\TMP"]
    else:
        names += ["/tmp", "/var/tmp", "/usr/tmp"]
    return {ident for ident in map(_identity, [n for n in names if n]) if ident is not None}


def has_git(folder: str) -> bool:
    """Whether `folder` is the top of a git work tree: it holds `.git` (one stat)."""
    return os.path.lexists(os.path.join(folder, ".git"))


def walk_up(start=None):
    """The folders the rule may take, nearest first: from `start` (default: cwd) upward; the work
    tree's top and the home folder are the last taken; the temp folder and the filesystem root
    are never taken (the walk ends there)."""
    here = os.path.abspath(os.fspath(start)) if start else os.getcwd()
    stops = temp_folders()
    home = _identity(os.path.expanduser("~"))
    while True:
        parent = os.path.dirname(here)
        if parent == here:
            return
        ident = _identity(here)
        if ident is not None and ident in stops:
            return
        yield here
        if has_git(here) or (ident is not None and ident == home):
            return
        here = parent


def nearest(relative: str, start=None) -> str | None:
    """`relative` (a folder named from a project, `.claude/msd-core`) joined to the nearest folder the rule
    may take that holds it, from `start` (default: cwd) up to the work tree's top; None when none does.
    One install at a repository's top serves a `.planning/` root in a subfolder."""
    for folder in walk_up(start):
        if os.path.isdir(os.path.join(folder, relative)):
            return os.path.join(folder, relative)
    return None


def project_root(start=None) -> str | None:
    """The project's folder (a string), or None when the rule finds no `.planning/` folder."""
    for folder in walk_up(start):
        if os.path.isdir(os.path.join(folder, PLANNING)):
            return folder
    return None


def work_tree_top(start=None) -> str | None:
    """The top of the git work tree holding `start`, else None (also when the walk ends first)."""
    last = None
    for last in walk_up(start):
        pass
    return last if last is not None and has_git(last) else None
