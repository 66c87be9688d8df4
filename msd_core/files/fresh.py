"""What a command created only to hold its own bookkeeping, taken back when it refuses.

A command that exits non-zero writes nothing (docs/CONTRACTS.md, "A command that refuses writes
nothing"). The private folder (`.planning/.msd/` with its `.gitignore`, and `.planning/` itself
when that was missing) is made on first use, often before a command has checked everything it
was given. `note` records each such folder this process made; `undo`, called by both entry points
when the command ends non-zero, removes the ones still holding nothing but what was made with
them (the `.gitignore`). A folder anything else was written into stays. A lock file a refused
call made is removed by the lock itself while it still holds it (files.atomic.locked): removed
later, a process waiting on it could share the lock with one that came after.
Standard library only.
"""

from __future__ import annotations

import os
from _thread import get_ident

_MADE: dict[int, list[str]] = {}  # per thread (the MCP server runs calls in threads): folders made, in order
_LEAVES = (".gitignore",)  # what ensure_private_dir writes into a folder it made


def start() -> None:
    """Forget earlier calls' folders (a test process, or a server, runs many commands)."""
    _MADE[get_ident()] = []


def note(folder) -> None:
    _MADE.setdefault(get_ident(), []).append(os.fspath(folder))


def undo() -> list[str]:
    """Remove the folders made by this call that hold nothing else; their paths, innermost first."""
    removed = []
    made = _MADE.pop(get_ident(), [])
    while made:
        folder = made.pop()
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        if any(n not in _LEAVES for n in names):
            continue
        try:
            for name in names:
                path = os.path.join(folder, name)
                if not os.path.islink(path) and os.path.isfile(path):
                    os.unlink(path)
            os.rmdir(folder)
        except OSError:
            continue
        removed.append(folder)
    return removed
