"""Atomic writes and locks: every write of a user-visible file goes through here.

Standard library at import time; filelock is imported when a lock is taken.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs import time on msd_run's hot path
    from typing import Iterator

from msd_core.errors import LockTimeout

DEFAULT_LOCK_TIMEOUT = 30.0


_sha256_ctor = None


def _sha256():
    """CPython's built-in SHA-256 when present: `hashlib` loads OpenSSL (~2.5 ms on every
    msd_run call that verifies a file); the digest is the same."""
    global _sha256_ctor
    if _sha256_ctor is None:
        try:
            from _sha2 import sha256 as ctor  # CPython 3.12+
        except ImportError:
            try:
                from _sha256 import sha256 as ctor  # CPython 3.11
            except ImportError:
                from hashlib import sha256 as ctor
        _sha256_ctor = ctor
    return _sha256_ctor


def sha256_bytes(data: bytes) -> str:
    return _sha256()(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = _sha256()()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def _temp_beside(path: Path) -> tuple[int, str]:
    """A new file `.<name>.<random>.tmp` in `path`'s folder, created exclusively with mode
    0600 (what tempfile.mkstemp does, without importing tempfile, shutil and random:
    ~4 ms on every msd_run command that writes)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(str(path.parent), f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write `data` to `path` via a temp file in the same folder and `os.replace`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temp_beside(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        elif path.exists():
            with contextlib.suppress(OSError):
                os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            with contextlib.suppress(OSError):
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: Path, text: str, *, encoding: str = "utf-8") -> None:
    """Write text without newline translation (callers keep the file's own line endings)."""
    atomic_write_bytes(path, text.encode(encoding))


LOCK_POLL_SECONDS = 0.05


@contextlib.contextmanager
def locked(lock_path: Path, timeout: float = DEFAULT_LOCK_TIMEOUT, what: str | None = None) -> Iterator[None]:
    """Hold an exclusive inter-process lock; exit code 4 (LockTimeout) when not acquired in time.

    POSIX: `flock` on the lock file, polled until `timeout` (the same lock filelock takes,
    so both interoperate; done here because importing filelock costs msd_run's writing
    commands ~10 ms). Elsewhere: filelock."""
    lock_path = Path(lock_path)
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        with _filelocked(lock_path, timeout, what):
            yield
        return
    import time

    deadline = time.monotonic() + timeout
    while True:
        fd = os.open(str(lock_path), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except (BlockingIOError, InterruptedError):
                    if time.monotonic() >= deadline:
                        raise _timeout(lock_path, timeout, what) from None
                    time.sleep(LOCK_POLL_SECONDS)
            if os.fstat(fd).st_nlink == 0:  # the file was removed while we waited: lock the new one
                continue
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
            return
        finally:
            os.close(fd)


def _timeout(lock_path: Path, timeout: float, what: str | None) -> LockTimeout:
    return LockTimeout(
        f"could not lock {what or lock_path} within {timeout:g}s",
        hint="another msd process holds it; retry when it finishes",
    )


@contextlib.contextmanager
def _filelocked(lock_path: Path, timeout: float, what: str | None) -> Iterator[None]:  # pragma: no cover - Windows
    import filelock

    lock = filelock.FileLock(str(lock_path), timeout=timeout)
    try:
        lock.acquire()
    except filelock.Timeout as exc:
        raise _timeout(lock_path, timeout, what) from exc
    try:
        yield
    finally:
        lock.release()


def lock_timeout_from_env(default: float = DEFAULT_LOCK_TIMEOUT) -> float:
    raw = os.environ.get("MSD_LOCK_TIMEOUT")
    if not raw:
        return default
    try:
        return max(0.0, float(raw))
    except ValueError:
        return default
