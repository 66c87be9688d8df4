"""One installer at a time per config folder: <config>/.msd-core.lock.

The lock file is removed when the lock is released, so nothing is left behind after an
uninstall. Removing a lock file safely needs one check: after taking the lock, the path
must still name the file we locked (another process may have removed it meanwhile);
otherwise we retry. POSIX uses fcntl.flock; elsewhere fsutil.locked (filelock) is used and
the file is left in place until uninstall removes it.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Iterator

from msd_core.errors import LockTimeout, OperationFailed
from msd_core.files.atomic import hold, lock_timeout_from_env

LOCK_NAME = ".msd-core.lock"


def lock_path(config: Path) -> Path:
    return Path(config) / LOCK_NAME


def _open_lock_file(path: Path) -> int:
    """Open (creating) the lock file without following a symlink and without blocking on a FIFO.
    A symlink there is refused (exit 2: msd never writes through links in the config folder);
    anything else that is not a regular file, or cannot be created, is named with its cause (exit 1)."""
    import stat

    from msd_core.files.oserrors import env_error
    from msd_core.files.safe_tree import link_error

    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if os.path.islink(path):
            raise link_error(str(path)) from None
        raise env_error(exc, path, doing="create the install lock file") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)

        raise OperationFailed(f"cannot use the install lock file {path}: it is not a regular file",
                              hint="move it aside, then rerun")
    return fd


@contextlib.contextmanager
def install_lock(config: Path, timeout: float | None = None) -> Iterator[None]:
    timeout = lock_timeout_from_env() if timeout is None else timeout
    path = lock_path(config)
    try:
        import fcntl  # noqa: F401 - POSIX: files.atomic.hold locks with it
    except ImportError:  # pragma: no cover - Windows
        from msd_core.files.atomic import locked

        with locked(path, timeout, what=f"the msd install in {config}"):
            yield
        return
    def timed_out() -> LockTimeout:
        return LockTimeout(f"another msd install or uninstall is running in {config} (waited {timeout:g}s)",
                           hint="retry when it finishes; MSD_LOCK_TIMEOUT sets the wait")

    fd = hold(lambda: _open_lock_file(path), path, time.monotonic() + timeout, timed_out, pause=0.05)
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        os.close(fd)
