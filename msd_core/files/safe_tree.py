"""Files under one root folder (an install's config folder), reached without following a symlink.

- `valid_relpath(rel)`: a relative POSIX path that stays below its base.
- `SafeTree(root).path(rel)`: the absolute path of `rel`, refusing a symlink on the way
  (folders already checked are remembered: an install touches hundreds of files).
- `read_installed(root, rel)`: the bytes of a regular file there, None when absent; a FIFO,
  device or folder is refused without blocking.

Standard library only.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from msd_core.errors import IntegrityError, OperationFailed, UsageError


def valid_relpath(rel: object) -> bool:
    """A relative POSIX path that stays below its base: not absolute, no `..` component (empty
    and `.` components are dropped, as PurePosixPath drops them). Strings, not PurePosixPath:
    every manifest entry is checked on every load (~0.5 ms on msd_run's hot path)."""
    if not isinstance(rel, str) or not rel or "\x00" in rel or "\\" in rel or rel[0] == "/":
        return False
    return ".." not in rel or ".." not in rel.split("/")


def link_error(path: str) -> UsageError:
    return UsageError(f"{path} is a symlink inside the config folder; msd never writes through links there",
                      hint="replace it with a real folder or file, or move it aside, then rerun")


class SafeTree:
    """`safe_path` for one operation, remembering folders already checked (installs touch
    hundreds of files in a few dozen folders). Only existing, non-symlink folders are cached."""

    def __init__(self, config: Path | str):
        self.config = Path(config)
        self._base = os.fspath(self.config)
        self._ok: set[str] = set()

    def path(self, relpath: str) -> Path:
        if not valid_relpath(relpath):
            raise IntegrityError(f"refusing unsafe path {relpath!r}")
        parts = relpath.split("/")
        prefix = ""
        for part in parts[:-1]:
            prefix = f"{prefix}/{part}" if prefix else part
            if prefix in self._ok:
                continue
            full = os.path.join(self._base, prefix)
            try:
                st = os.lstat(full)
            except (FileNotFoundError, NotADirectoryError):
                return Path(self._base, relpath)
            if stat.S_ISLNK(st.st_mode):
                raise link_error(full)
            self._ok.add(prefix)
        full = os.path.join(self._base, relpath)
        try:
            if stat.S_ISLNK(os.lstat(full).st_mode):
                raise link_error(full)
        except (FileNotFoundError, NotADirectoryError):
            pass
        return Path(full)


def as_tree(config) -> SafeTree:
    return config if isinstance(config, SafeTree) else SafeTree(config)


def read_installed(config, relpath: str) -> bytes | None:
    """Bytes of <config>/<relpath>, None when absent. IntegrityError on a symlink on the way.
    `config` is a folder or a SafeTree (which caches folder checks)."""
    path = as_tree(config).path(relpath)
    try:  # O_NONBLOCK: a FIFO planted there never blocks the read
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if os.path.islink(path):
            raise link_error(str(path)) from None
        from msd_core.files.oserrors import env_error

        raise env_error(exc, path, doing="read") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        what = "a folder is where msd installs a file" if stat.S_ISDIR(mode) else "it is not a regular file"
        raise OperationFailed(f"cannot use {path}: {what}", hint="move it aside, then rerun")
    with os.fdopen(fd, "rb") as fh:
        return fh.read()
