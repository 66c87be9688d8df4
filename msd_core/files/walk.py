"""A folder walked without recursion and within a depth: the one walk over folders msd does not own.

`walk(top, max_depth=MAX_DEPTH, skip=...)` yields `(folder, [sub-folder names], [file names])`
like `os.walk(top, followlinks=False)` (top-down, names sorted), but with an explicit stack, so a
folder nested thousands of levels deep never ends in RecursionError, and without going below
`max_depth` levels: the folders deeper than that are listed in the walker's `deep` instead of
being entered. `skip(name)` leaves a sub-folder out by its name. As with os.walk(followlinks=False),
a symlink to a folder is listed with the folders but never entered, and a symlink to anything else
with the files (the caller decides). A folder that cannot be listed is passed over.

Standard library only.
"""

from __future__ import annotations

import os

MAX_DEPTH = 64  # levels below the top: deeper than any document tree a project holds


class Walk:
    """Iterate it for the `(folder, dirs, files)` triples; `deep` then lists the folders not entered."""

    def __init__(self, top, max_depth: int = MAX_DEPTH, skip=None):
        self.top, self.max_depth, self.skip = os.fspath(top), max_depth, skip
        self.deep: list[str] = []

    def __iter__(self):
        stack = [(self.top, 0)]
        while stack:
            folder, depth = stack.pop()
            try:
                with os.scandir(folder) as it:
                    entries = list(it)
            except OSError:
                continue
            dirs, files = [], []
            links = set()
            for e in entries:
                try:
                    if e.is_dir():
                        if self.skip is None or not self.skip(e.name):
                            dirs.append(e.name)
                            if e.is_symlink():
                                links.add(e.name)
                    else:
                        files.append(e.name)
                except OSError:
                    continue
            dirs.sort()
            files.sort()
            yield folder, dirs, files  # the caller may prune `dirs` in place, as with os.walk
            for name in reversed(dirs):
                if name in links:
                    continue
                path = os.path.join(folder, name)
                if depth + 1 > self.max_depth:
                    self.deep.append(path)
                else:
                    stack.append((path, depth + 1))


def walk(top, max_depth: int = MAX_DEPTH, skip=None) -> Walk:
    return Walk(top, max_depth, skip)
