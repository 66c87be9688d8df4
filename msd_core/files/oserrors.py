"""What an environment failure (an OSError from the file system) says to the person who ran msd.

One line naming the path and the cause in words (disk full, file too large, permission
denied, a folder where a file should be, ...), exit 1 (OperationFailed), and a hint when
there is something to do. Every installer entry point (install, update, uninstall, status)
runs inside `environment_errors()`, so no OSError ever surfaces as an "internal error".
"""

from __future__ import annotations

import contextlib
import errno
import os
from typing import Iterator

from msd_core.errors import OperationFailed

_CAUSES: dict[int, tuple[str, str | None]] = {
    errno.ENOSPC: ("the disk is full (no space left on device)", "free some space, then rerun"),
    errno.EDQUOT: ("the disk quota is exceeded", "free some space, then rerun"),
    errno.EFBIG: ("the file is too large for this file system or its size limit", "raise the file size limit, then rerun"),
    errno.EACCES: ("permission denied", "check the permissions of that path, then rerun"),
    errno.EPERM: ("operation not permitted", "check the permissions and attributes of that path, then rerun"),
    errno.EROFS: ("the file system is read-only", "choose a writable --config-dir"),
    errno.EISDIR: ("a folder is where a file should be", "move that folder aside, then rerun"),
    errno.ENOTDIR: ("a file is where a folder should be", "move that file aside, then rerun"),
    errno.ELOOP: ("it is a symlink, and msd does not follow links there", "replace it with a real file or folder, then rerun"),
    errno.ENAMETOOLONG: ("the path is too long", None),
    errno.EIO: ("an input/output error from the disk", None),
}


def cause(exc: OSError) -> str:
    known = _CAUSES.get(exc.errno or -1)
    return known[0] if known else (exc.strerror or type(exc).__name__)


def env_error(exc: OSError, path: str | os.PathLike | None = None, *, doing: str = "write",
              after: str | None = None) -> OperationFailed:
    """OperationFailed (exit 1): `cannot <doing> <path>: <cause>[; <after>]` with a hint."""
    where = path if path is not None else exc.filename
    if not isinstance(where, (str, bytes, os.PathLike)):
        where = None  # e.g. a file descriptor number
    text = f"cannot {doing} {os.fspath(where)}: {cause(exc)}" if where else f"cannot {doing}: {cause(exc)}"
    if after:
        text += f"; {after}"
    known = _CAUSES.get(exc.errno or -1)
    return OperationFailed(text, hint=known[1] if known else None)


@contextlib.contextmanager
def environment_errors(doing: str = "complete the operation") -> Iterator[None]:
    """Turn any OSError that escaped the operation into one clear line (exit 1)."""
    try:
        yield
    except OSError as exc:
        named = isinstance(exc.filename, (str, bytes, os.PathLike))
        raise env_error(exc, doing="use" if named else doing) from None


def cannot_write(folder, exc: OSError) -> OperationFailed:
    return OperationFailed(f"cannot write to {folder} ({exc.strerror or exc})",
                           hint="check the folder's permissions or choose another config folder", remedy="config_dir")
