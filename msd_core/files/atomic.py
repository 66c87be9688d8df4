"""Atomic writes and locks: every file msd writes goes through here.

Standard library only (filelock only where fcntl is missing). The rule (docs/CONTRACTS.md,
"Reading and writing files"): writes never follow a symlink below the project or install
root, leave no temp file behind once the next write of the same file has run, and locks
never follow a symlink either.
"""

from __future__ import annotations

import os
from pathlib import Path

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


def sha1_bytes(data: bytes) -> str:
    """SHA-1 (git's object ids), from CPython's built-in module like `_sha256`: no OpenSSL load."""
    try:
        from _sha1 import sha1 as ctor
    except ImportError:
        from hashlib import sha1 as ctor
    return ctor(data).hexdigest()


def sha256_file(path: Path) -> str:
    from msd_core.files.safe_read import open_regular

    h = _sha256()()
    with os.fdopen(open_regular(path), "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


# ---------------------------------------------------------------- folders without symlinks

TMP_SUFFIX = ".msd-tmp"  # `.<name>.<pid>-<random>.msd-tmp`: a write in progress (or killed)
STALE_TMP_SECONDS = 3600.0  # a temp file this old is stale even if its pid was reused
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIR_FD = os.open in os.supports_dir_fd and os.mkdir in os.supports_dir_fd and _NOFOLLOW != 0


LINK_TEXT = "is a symlink; msd does not write through it"


class SymlinkRefused(OSError):
    """A symlink (or a file) where msd would write or create a folder: never followed."""


def _refused(path: Path, what: str) -> SymlinkRefused:
    import errno

    out = SymlinkRefused(errno.ELOOP, what, str(path))
    out.msd_action = "write"
    return out


def _open_child_dir(fd: int, part: str, shown: Path, create: bool) -> int:
    for _ in range(3):
        try:
            return os.open(part, _DIR_FLAGS | _NOFOLLOW, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                raise
            try:
                os.mkdir(part, 0o777, dir_fd=fd)
            except FileExistsError:
                pass  # made by someone else meanwhile: open it (checked again)
        except OSError as exc:
            import stat as _stat

            try:
                mode = os.stat(part, dir_fd=fd, follow_symlinks=False).st_mode
            except OSError:
                raise exc from None
            if _stat.S_ISLNK(mode):
                raise _refused(shown, LINK_TEXT) from None
            if not _stat.S_ISDIR(mode):
                raise _refused(shown, "is a file where a folder should be") from None
            raise
    raise _refused(shown, "keeps changing")


def open_dir(folder: Path, anchor: Path | None = None, *, create: bool = True) -> int:
    """A descriptor of `folder`, reached from `anchor` without following any symlink below it.

    Missing folders are created when `create`. SymlinkRefused names the first symlink (or
    file) on the way. `anchor` itself may be reached through symlinks (it is the project or
    install the user chose); without an anchor only `folder` itself is checked.
    """
    folder = Path(folder)
    anchor = Path(anchor) if anchor is not None else folder
    try:
        rel = folder.relative_to(anchor).parts
    except ValueError:
        raise _refused(folder, f"is outside {anchor}") from None
    if not _DIR_FD:  # pragma: no cover - platforms without openat: check each part by path
        import stat as _stat

        here = anchor
        for part in rel:
            here = here / part
            if os.path.islink(here) or (os.path.lexists(here) and not _stat.S_ISDIR(os.lstat(here).st_mode)):
                raise _refused(here, "is a symlink or a file")
        if create:
            folder.mkdir(parents=True, exist_ok=True)
        return os.open(folder, os.O_RDONLY)
    if create and not rel:
        anchor.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(anchor, _DIR_FLAGS)
    except FileNotFoundError:
        if not create:
            raise
        anchor.mkdir(parents=True, exist_ok=True)
        fd = os.open(anchor, _DIR_FLAGS)
    shown = anchor
    try:
        for part in rel:
            shown = shown / part
            child = _open_child_dir(fd, part, shown, create)
            os.close(fd)
            fd = child
    except OSError as exc:
        os.close(fd)
        raise _with_path(exc, shown) from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def ensure_dir(folder: Path, anchor: Path | None = None) -> Path:
    """Create `folder` (and the folders above it, up to `anchor`) with no symlink followed."""
    os.close(open_dir(folder, anchor))
    return Path(folder)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True
    return True


def stale_temp(name: str, mtime: float, now: float) -> bool:
    """Whether `name` is the temp file of a write that will never finish: its writer's pid is
    gone (or unreadable in the name), or it is older than STALE_TMP_SECONDS. False for a name
    that is no temp file of ours (`.<file>.<pid>-<random>.msd-tmp`)."""
    if not (name.startswith(".") and name.endswith(TMP_SUFFIX)):
        return False
    middle = name[1:-len(TMP_SUFFIX)]
    head, dot, tail = middle.rpartition(".")
    pid_text = tail.split("-", 1)[0] if dot and head else ""
    return not pid_text.isdigit() or not _pid_alive(int(pid_text)) or now - mtime > STALE_TMP_SECONDS


def sweep_temps(dir_fd: int, name: str, keep: str = "") -> list[str]:
    """Remove temp files of earlier writes of `name` in the folder: their writer was killed
    (its pid is gone) or they are older than STALE_TMP_SECONDS. Returns the names removed."""
    import time

    prefix = f".{name}."
    removed = []
    try:
        entries = list(os.scandir(dir_fd))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        n = entry.name
        if n == keep or not (n.startswith(prefix) and n.endswith(TMP_SUFFIX)):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if stale_temp(n, st.st_mtime, now):
                os.unlink(n, dir_fd=dir_fd)
                removed.append(n)
        except (OSError, ValueError):
            continue
    return removed


def _with_path(exc: OSError, path: Path) -> OSError:
    """The same error naming the real path (not the temp name or a dir_fd-relative one)."""
    if isinstance(exc, SymlinkRefused) or exc.errno is None:
        exc.msd_action = "write"
        return exc
    out = type(exc)(exc.errno, exc.strerror, str(path))
    out.msd_action = "write"  # errors.from_os_error says "cannot write <path>: <cause>"
    return out


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None, anchor: Path | None = None,
                       durable: bool = True) -> None:
    """Write `data` to `path`: a temp file in the same folder, fsync, then `os.replace`.

    `durable=False` leaves out the fsync, for a cache computed again when it is lost: readers still
    see the old file or the new one whole (the replace is atomic); after a crash the new one may be
    empty, which a cache's reader rejects.

    Nothing is followed out: the folders from `anchor` (the project or install root) down
    to `path` must be real folders (created when missing), `path` itself must not be a
    symlink (SymlinkRefused). The temp file is `.<name>.<pid>-<random>.msd-tmp`, created
    with O_EXCL|O_NOFOLLOW; temps of earlier writes of the same file whose writer died are
    removed by this write. Errors are OSError naming `path`.
    """
    import stat as _stat

    path = Path(path)
    if not _DIR_FD:  # pragma: no cover
        return _atomic_write_by_path(path, data, mode, anchor, durable)
    name = path.name
    dfd = open_dir(path.parent, anchor if anchor is not None else None)
    tmp = f".{name}.{os.getpid()}-{os.urandom(4).hex()}{TMP_SUFFIX}"
    made = False
    try:
        sweep_temps(dfd, name)
        try:
            old = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            old = None
        if old is not None and _stat.S_ISLNK(old.st_mode):
            raise _refused(path, LINK_TEXT)
        if old is not None and _stat.S_ISDIR(old.st_mode):
            import errno

            raise IsADirectoryError(errno.EISDIR, "a folder where a file should be", str(path))
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o666,
                     dir_fd=dfd)
        made = True
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if durable:
                os.fsync(fd)
            if mode is not None:
                os.fchmod(fd, mode)
            elif old is not None and _stat.S_ISREG(old.st_mode):
                try:
                    os.fchmod(fd, old.st_mode & 0o7777)
                except OSError:
                    pass
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        made = False
    except OSError as exc:
        raise _with_path(exc, path) from None
    finally:
        if made:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
        os.close(dfd)


def _atomic_write_by_path(path: Path, data: bytes, mode, anchor, durable=True) -> None:  # pragma: no cover - no openat
    ensure_dir(path.parent, anchor)
    if path.is_symlink():
        raise _refused(path, LINK_TEXT)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{os.urandom(4).hex()}{TMP_SUFFIX}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_new_file(folder: Path, stem: str, suffix: str, data: bytes, *, anchor: Path | None = None,
                   tries: int = 1000) -> str:
    """Create a new file in `folder` and never replace one: `<stem><suffix>`, or when that name is
    taken `<stem>-2<suffix>`, `-3`, … (each created with O_EXCL|O_NOFOLLOW). Returns the name used.
    Errors are OSError naming the folder (FileExistsError once `tries` names are all taken)."""
    import errno

    folder = Path(folder)
    dfd = open_dir(folder, anchor)
    at = {"dir_fd": dfd} if _DIR_FD else {}
    try:
        for n in range(1, tries + 1):
            name = f"{stem}{suffix}" if n == 1 else f"{stem}-{n}{suffix}"
            where = name if _DIR_FD else str(folder / name)
            try:
                fd = os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
                             | getattr(os, "O_BINARY", 0), 0o666, **at)
            except FileExistsError:
                continue
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            except OSError:
                os.close(fd)
                os.unlink(where, **at)
                raise
            os.close(fd)
            return name
        raise FileExistsError(errno.EEXIST, f"{tries} names taken", str(folder / f"{stem}{suffix}"))
    except OSError as exc:
        raise _with_path(exc, folder) from None
    finally:
        os.close(dfd)


def atomic_write_text(path: Path, text: str, *, encoding: str = "utf-8", anchor: Path | None = None,
                      durable: bool = True) -> None:
    """Write text without newline translation (callers keep the file's own line endings)."""
    atomic_write_bytes(path, text.encode(encoding), anchor=anchor, durable=durable)


# ---------------------------------------------------------------- locks


def _open_lock_file(lock_path: Path, anchor: Path | None) -> tuple[int, bool]:
    """(the lock file's descriptor, whether this call created it): created if missing, never
    through a symlink, never a FIFO."""
    import stat as _stat

    flags = os.O_RDWR | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    dfd = open_dir(lock_path.parent, anchor)
    created = False
    try:
        try:
            fd = os.open(lock_path.name, flags, dir_fd=dfd)
        except FileNotFoundError:
            try:
                fd = os.open(lock_path.name, flags | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=dfd)
                created = True
            except FileExistsError:  # made by another process meanwhile
                fd = os.open(lock_path.name, flags, dir_fd=dfd)
    except OSError as exc:
        if os.path.islink(lock_path):
            raise _refused(lock_path, "is a symlink; msd does not follow a lock file") from None
        raise _with_path(exc, lock_path) from None
    finally:
        os.close(dfd)
    st_mode = os.fstat(fd).st_mode
    if not _stat.S_ISREG(st_mode):
        os.close(fd)
        from msd_core.files.safe_read import kind

        raise _refused(lock_path, f"is {kind(st_mode)}, not a plain lock file")
    return fd, created


def hold(open_lock, lock_path: Path, deadline: float, timed_out, pause: float = 0.02) -> int:
    """The descriptor of the file at `lock_path`, opened by `open_lock()` and locked (fcntl.flock,
    exclusive), tried until the monotonic `deadline`, then `timed_out()` is raised. A file its
    holder removed meanwhile is let go and the one at the path now locked (POSIX only)."""
    import fcntl
    import time

    while True:
        fd = open_lock()
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise timed_out() from None
                    time.sleep(pause)
        except BaseException:
            os.close(fd)
            raise
        if _still_named(fd, lock_path):
            return fd
        os.close(fd)  # its holder removed it: lock the file there now


def _still_named(fd: int, lock_path: Path) -> bool:
    """Whether the locked file is still the one at `lock_path`: a refused call removes the lock
    file it made while holding it, and a process that waited on that file must lock the new one."""
    try:
        st = os.stat(lock_path, follow_symlinks=False)
    except OSError:
        return False
    mine = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


class locked:
    """Hold an exclusive inter-process lock; exit code 4 (LockTimeout) when not acquired in time.

    POSIX: fcntl.flock on `lock_path`, reached from `anchor` like a write (no symlinked
    folder followed) and opened without following a symlink; a symlinked or special lock
    file is refused with SymlinkRefused. Elsewhere: filelock. A plain class rather than a
    contextlib generator: contextlib is not imported on msd_run's hot path.
    """

    def __init__(self, lock_path: Path, timeout: float = DEFAULT_LOCK_TIMEOUT, what: str | None = None,
                 anchor: Path | None = None):
        self.lock_path = Path(lock_path)
        self.timeout, self.what, self.anchor = timeout, what, anchor
        self._fd: int | None = None
        self._created = False
        self._other = None  # filelock's lock where fcntl is missing

    def __enter__(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            self._other = _filelock(self.lock_path, self.timeout, self.what)
            return None
        import time

        def open_lock() -> int:
            fd, self._created = _open_lock_file(self.lock_path, self.anchor)
            return fd

        def timed_out() -> LockTimeout:
            return LockTimeout(f"could not lock {self.what or self.lock_path} within {self.timeout:g}s",
                               hint="another msd process holds it; retry when it finishes (MSD_LOCK_TIMEOUT sets the wait)")

        self._fd = hold(open_lock, self.lock_path, time.monotonic() + max(0.0, self.timeout), timed_out)
        return None

    def __exit__(self, *exc) -> bool:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            if exc[0] is not None and self._created:
                # the body refused: a lock file this call made goes again, removed while still
                # held (a process waiting on it sees it gone and locks a new one)
                try:
                    os.unlink(self.lock_path)
                except OSError:
                    pass
            os.close(fd)  # closing releases the flock
        elif self._other is not None:  # pragma: no cover - Windows
            other, self._other = self._other, None
            other.release()
        return False


def _filelock(lock_path: Path, timeout: float, what: str | None):  # pragma: no cover - Windows
    import filelock

    lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = filelock.FileLock(str(lock_path), timeout=timeout)
    try:
        lock.acquire()
    except filelock.Timeout as exc:
        raise LockTimeout(f"could not lock {what or lock_path} within {timeout:g}s",
                          hint="another msd process holds it; retry when it finishes") from exc
    return lock


def lock_timeout_from_env(default: float = DEFAULT_LOCK_TIMEOUT) -> float:
    raw = os.environ.get("MSD_LOCK_TIMEOUT")
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        return default
    return min(max(0.0, value), 86400.0) if value == value else default  # NaN: the default
