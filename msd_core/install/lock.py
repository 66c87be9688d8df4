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

from msd_core.errors import LockTimeout
from msd_core.fsutil import lock_timeout_from_env

LOCK_NAME = ".msd-core.lock"


def lock_path(config: Path) -> Path:
    return Path(config) / LOCK_NAME


@contextlib.contextmanager
def install_lock(config: Path, timeout: float | None = None) -> Iterator[None]:
    timeout = lock_timeout_from_env() if timeout is None else timeout
    path = lock_path(config)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        from msd_core.fsutil import locked

        with locked(path, timeout, what=f"the msd install in {config}"):
            yield
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            from msd_core.install.target import cannot_write

            raise cannot_write(Path(config), exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            if time.monotonic() >= deadline:
                raise LockTimeout(
                    f"another msd install or uninstall is running in {config} (waited {timeout:g}s)",
                    hint="retry when it finishes; MSD_LOCK_TIMEOUT sets the wait",
                ) from None
            time.sleep(0.05)
            continue
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the file we locked was removed by its previous holder: lock the new one
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        os.close(fd)
