"""The `.planning/` roots of a git work tree: the walk every multi-root question asks.

`roots(top)` walks the work tree's top (msd_core.files.walk: no recursion, at most MAX_DEPTH levels,
at most MAX_FOLDERS folders) and answers the folders holding a `.planning/` folder (not a symlink).
It does not enter hidden folders (`.git`, `.claude`, `.planning` itself, ...), dependency and build
folders (SKIP), a virtual environment (a folder holding `pyvenv.cfg`) or another work tree (a folder
below the top holding `.git`: the project rule never reaches across it). A root found is entered
too: a root may hold another. `only_root(project)`: whether a project is its work tree's only root
(whose commits an old `Msd-Plan:` trailer, without `Msd-Root:`, may name: msd_core.git.trailers).
Kept apart from msd_core.progress.workspace so evidence can ask it without reaching `next`'s model.
Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_DEPTH = 6  # levels below the work tree's top
MAX_FOLDERS = 20000  # folders listed before the walk stops (named in `truncated`)
SKIP = frozenset({"node_modules", "__pycache__", "venv", "env", "site-packages", "bower_components", "vendor",
                  "target", "dist", "build", "_build", "coverage", "htmlcov"})


def _skipped(name: str) -> bool:
    return name in SKIP or (name.startswith(".") and name not in (".git", ".planning"))


def roots(top: Path) -> tuple[list[Path], dict]:
    """The `.planning/` roots under `top` (sorted by their path relative to it) and what the walk left out."""
    from msd_core.files.walk import walk

    found: list[Path] = []
    seen = 0
    truncated = False
    w = walk(top, max_depth=MAX_DEPTH, skip=_skipped)
    for folder, dirs, files in w:
        seen += 1
        if seen > MAX_FOLDERS:
            truncated = True
            break
        nested = folder != os.fspath(top) and (".git" in dirs or ".git" in files)
        if ".planning" in dirs and not nested and not os.path.islink(os.path.join(folder, ".planning")):
            found.append(Path(folder))
        if nested or "pyvenv.cfg" in files:
            dirs[:] = []
            continue
        dirs[:] = [d for d in dirs if d not in (".git", ".planning")]
    found.sort(key=lambda p: p.relative_to(top).parts)
    return found, {"folders_walked": min(seen, MAX_FOLDERS), "too_deep": len(w.deep), "truncated": truncated}


def only_root(project: Path) -> bool:
    """Whether `project` is the only `.planning/` root of its git work tree (outside git: true). A walk that
    stopped short says false: it cannot tell. For commits made before roots were named (msd_core.git.trailers)."""
    from msd_core.lean.project_rule import work_tree_top

    top = work_tree_top(str(project))
    if top is None:
        return True
    found, walked = roots(Path(top))
    return not walked["truncated"] and [os.path.realpath(p) for p in found] == [os.path.realpath(project)]
