"""The one way msd opens a file it reads from a project or an install: it never blocks.

`read_regular(path, max_bytes)` reads a regular file and refuses, before any blocking
call, a FIFO, a socket, a device, a folder, and a symlink pointing at any of them (or
any symlink at all when `follow_symlinks=False`). The type is checked twice: `stat`
before opening (so a device is never opened), then `fstat` on the descriptor opened with
O_NONBLOCK (so a FIFO swapped in between cannot block the read). Refusals are OSError
subclasses, so a caller's `except OSError` reports them like any unreadable file; their
`strerror` says what was found ("a FIFO, not a regular file").

Standard library only, cheap to import: msd_run's hot path reads through here.
"""

from __future__ import annotations

import errno
import os
import stat

_BASE_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
MAX_DOC_BYTES = 16 << 20  # a planning document, a note, a record: far above any real one


class NotRegularFile(OSError):
    """A path that is not a regular file (FIFO, socket, device, folder, refused symlink)."""


class FileTooLarge(OSError):
    """A file over the reader's size cap (not read past the cap)."""


def kind(mode: int) -> str:
    """What a non-regular file is, in words ("a FIFO", "a folder", ...)."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISLNK(mode):
        return "a symlink"
    return "not a regular file"


def _refuse(path, mode: int) -> NotRegularFile:
    what = kind(mode)
    code = errno.EISDIR if stat.S_ISDIR(mode) else errno.ELOOP if stat.S_ISLNK(mode) else errno.ENXIO
    text = "a symlink; msd does not follow it here" if code == errno.ELOOP else f"{what}, not a regular file"
    return NotRegularFile(code, text, os.fspath(path))


def open_regular(path, *, follow_symlinks: bool = True) -> int:
    """A read-only descriptor of the regular file at `path` (caller closes it).

    FileNotFoundError when absent; NotRegularFile for anything else than a regular file.
    """
    st = os.stat(path, follow_symlinks=follow_symlinks)
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(path, st.st_mode)
    try:
        fd = os.open(path, _BASE_FLAGS | (0 if follow_symlinks else _NOFOLLOW))
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # became a symlink after the stat
            raise _refuse(path, stat.S_IFLNK) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # swapped after the stat: refuse what we actually opened
            raise _refuse(path, mode)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _read_fd(fd: int, path, max_bytes: int | None) -> bytes:
    chunks = []
    total = 0
    limit = None if max_bytes is None else max_bytes + 1
    while True:
        want = 1 << 20 if limit is None else min(1 << 20, limit - total)
        if want <= 0:
            break
        chunk = os.read(fd, want)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    data = b"".join(chunks)
    if max_bytes is not None and len(data) > max_bytes:
        raise FileTooLarge(errno.EFBIG, f"larger than {max_bytes} bytes; not read", os.fspath(path))
    return data


def read_regular(path, max_bytes: int | None = None, *, follow_symlinks: bool = True) -> bytes:
    """The bytes of the regular file at `path`; FileTooLarge past `max_bytes` (never read past it)."""
    fd = open_regular(path, follow_symlinks=follow_symlinks)
    try:
        return _read_fd(fd, path, max_bytes)
    finally:
        os.close(fd)


def read_tail(path, max_bytes: int, *, follow_symlinks: bool = True) -> bytes:
    """The last `max_bytes` bytes of the regular file at `path` (all of it when smaller): for an
    append-only log that may have grown large. Refusals as read_regular's."""
    fd = open_regular(path, follow_symlinks=follow_symlinks)
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            os.lseek(fd, size - max_bytes, os.SEEK_SET)
        return _read_fd(fd, path, None)[-max_bytes:] if max_bytes > 0 else b""
    finally:
        os.close(fd)


class FileChanging(OSError):
    """A file that kept changing while it was read (a writer rewriting it in place)."""


def read_whole(path, max_bytes: int | None = None, *, follow_symlinks: bool = True, tries: int = 3):
    """(bytes, stat of what was read) of a file read whole: its size and modification time
    are the same before and after the read and the bytes are that many, else it is read again
    (a writer rewriting it in place); FileChanging after `tries` reads. A file replaced by a
    rename meanwhile is no problem: the descriptor keeps the version it opened, whole."""
    import time

    for attempt in range(max(1, tries)):
        fd = open_regular(path, follow_symlinks=follow_symlinks)
        try:
            before = os.fstat(fd)
            data = _read_fd(fd, path, max_bytes)
            after = os.fstat(fd)
        finally:
            os.close(fd)
        if (before.st_size, before.st_mtime_ns) == (after.st_size, after.st_mtime_ns) and len(data) == after.st_size:
            return data, after
        time.sleep(0.005 * (attempt + 1))
    raise FileChanging(errno.EAGAIN, "changing while read (rewritten in place); skipped this time", os.fspath(path))


def read_text(path, max_bytes: int, *, errors: str = "replace", follow_symlinks: bool = True) -> str:
    """The regular file at `path` decoded as UTF-8 (`errors` as bytes.decode's); refusals as
    read_regular's, FileTooLarge past `max_bytes`."""
    return read_regular(path, max_bytes, follow_symlinks=follow_symlinks).decode("utf-8", errors)


def read_head(path, max_bytes: int, *, offset: int = 0, follow_symlinks: bool = True) -> bytes:
    """At most `max_bytes` bytes of the regular file at `path` from byte `offset` (a larger file is
    not an error: only its head is read). Refusals as read_regular's."""
    fd = open_regular(path, follow_symlinks=follow_symlinks)
    try:
        if offset:
            os.lseek(fd, offset, os.SEEK_SET)
        chunks, total = [], 0
        while total < max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def open_stream(path, *, follow_symlinks: bool = True):
    """A binary file object reading the regular file at `path` (the caller closes it, `with` works):
    for a reader that streams a large file in pieces. Refusals as read_regular's."""
    return os.fdopen(open_regular(path, follow_symlinks=follow_symlinks), "rb")
