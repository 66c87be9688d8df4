"""The lock Claude Code takes on its own settings files: the folder `<file>.lock` (proper-lockfile).

Made with one atomic mkdir, kept fresh by its holder, taken over once untouched for STALE
seconds (the host's own staleMs), removed by its holder when done. msd holds it for the few
milliseconds of each edit of a file the host owns (runtimes/claude_json.py) and of each step of
a transaction that edits such a file (files/txn.py). `identity()` names one lock folder (device,
inode, mtime): a transaction records it right after taking the lock, so the recovery after a
kill knows the folder it finds is its own dead holder's and takes it over at once.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from pathlib import Path

STALE = 10.0  # seconds: Claude Code's staleMs for its settings lock
WAIT = 12.0  # past the stale age: a lock left by a killed writer is taken over; a refreshed one times out


def lock_of(path: Path) -> Path:
    path = Path(path)
    return path.with_name(path.name + ".lock")


def identity(lock: Path) -> list[int] | None:
    try:
        st = os.lstat(lock)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_mtime_ns] if stat.S_ISDIR(st.st_mode) else None


def drop_if_stale(lock: Path, stale: float = STALE) -> bool:
    """Remove `lock` if it is (still) stale by the host's rule: an empty folder untouched for
    `stale` seconds (a holder that is alive keeps it fresh). Whether it is gone now."""
    with contextlib.suppress(OSError):
        st = os.lstat(lock)
        if stat.S_ISDIR(st.st_mode) and time.time() - st.st_mtime > stale:
            os.rmdir(lock)
    return not os.path.lexists(lock)


def drop_own(lock: Path, ident) -> None:
    """Remove `lock` when it is the very folder `ident` names (a dead holder's, recorded by it)."""
    if ident and identity(lock) == list(ident):
        with contextlib.suppress(OSError):
            os.rmdir(lock)


@contextlib.contextmanager
def dir_lock(path: Path, wait: float = WAIT, stale: float = STALE):
    """Hold `<path>.lock`; yields the lock folder. LockTimeout (exit 4) when another holder keeps
    it fresh for longer than `wait`; OperationFailed when it cannot be made or is no folder."""
    from msd_core.errors import LockTimeout, OperationFailed

    path = Path(path)
    lock = lock_of(path)
    deadline = time.monotonic() + wait
    while True:
        try:
            os.mkdir(lock)
            break
        except FileExistsError:
            try:
                st = os.lstat(lock)
            except FileNotFoundError:
                continue
            if not stat.S_ISDIR(st.st_mode):
                raise OperationFailed(f"{lock} is not a lock folder; nothing written", hint="remove it and run the command again")
            if time.time() - st.st_mtime > stale:
                drop_if_stale(lock, stale)
                continue
            if time.monotonic() > deadline:
                raise LockTimeout(f"{lock} is held (Claude Code is writing {path.name}); nothing written",
                                  hint="run the command again in a moment") from None
            time.sleep(0.05)
        except OSError as exc:
            raise OperationFailed(f"cannot lock {path} (creating {lock.name}): {exc.strerror}") from None
    try:
        with contextlib.suppress(OSError):
            os.utime(lock)  # as the host does: the holder keeps its lock fresh
        yield lock
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(lock)
