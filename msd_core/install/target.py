"""Refuse install targets that cannot hold an install: a file, a symlink (unless accepted), unwritable.

Also the safe file access every other installer module uses: read a file under the config
folder without following a symlink on the way.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError
from msd_core.manifest import safe_path
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
    # Writability is proven by creating the config folder and the lock file (see
    # cannot_write): os.access lies for root, ACLs and immutable folders, and a separate
    # probe file could be left behind by a crash.


def cannot_write(folder: Path, exc: OSError) -> OperationFailed:
    return OperationFailed(f"cannot write to {folder} ({exc.strerror or exc})",
                           hint="check the folder's permissions or choose another --config-dir")


def read_installed(config: Path, relpath: str) -> bytes | None:
    """Bytes of <config>/<relpath>, None when absent. IntegrityError on a symlink on the way."""
    path = safe_path(config, relpath)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    except IsADirectoryError:
        raise OperationFailed(f"{path} is a folder where msd installs a file") from None
    except OSError as exc:
        raise OperationFailed(f"cannot read {path} ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as fh:
        return fh.read()
