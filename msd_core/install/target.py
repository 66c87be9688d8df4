"""Refuse install targets that cannot hold an install: a file, a symlink (unless accepted), unwritable.

Also the safe file access every other installer module uses: read a file under the config
folder without following a symlink on the way.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from msd_core.errors import IntegrityError, OperationFailed, UsageError
from msd_core.ownership.manifest import _valid_relpath
from msd_core.paths import Target

ALLOW_SYMLINK_FLAG = "--allow-symlink"


def nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            return candidate
    return Path("/")


def check_target(target: Target, *, allow_symlink: bool, writing: bool) -> None:
    """UsageError (exit 2) for a file or symlinked config folder; OperationFailed (exit 1) when unwritable."""
    config = target.config
    if config.is_symlink():
        if not allow_symlink:
            real = os.path.realpath(config)
            raise UsageError(
                f"the {target.scope} config folder {config} is a symlink to {real}",
                hint=f"pass {ALLOW_SYMLINK_FLAG} to install through it, or use --config-dir {real}",
            )
        if not config.exists():
            raise UsageError(f"the config folder {config} is a broken symlink")
    base = nearest_existing(config)
    if not base.is_dir():
        raise UsageError(f"the install target {base} is a file, not a folder", hint="choose another --config-dir")
    core = config / "msd-core"
    if os.path.lexists(core) and (core.is_symlink() or not core.is_dir()):
        raise UsageError(f"{core} is not a folder msd can use (a file or a symlink)",
                         hint="move it aside, then rerun")
    # Writability is proven by creating the config folder and the lock file (see
    # cannot_write): os.access lies for root, ACLs and immutable folders, and a separate
    # probe file could be left behind by a crash.


def cannot_write(folder: Path, exc: OSError) -> OperationFailed:
    return OperationFailed(f"cannot write to {folder} ({exc.strerror or exc})",
                           hint="check the folder's permissions or choose another --config-dir")


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
        if not _valid_relpath(relpath):
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
