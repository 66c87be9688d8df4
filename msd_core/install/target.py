"""Refuse install targets that cannot hold an install: a file, a symlink (unless accepted), unwritable.

Also the safe file access every other installer module uses: read a file under the config
folder without following a symlink on the way.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core.errors import UsageError
from msd_core.paths import Target


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
                hint=f"install through it, or into {real} itself", remedy=("allow_symlink", "config_dir"),
            )
        if not config.exists():
            raise UsageError(f"the config folder {config} is a broken symlink")
    base = nearest_existing(config)
    if not base.is_dir():
        raise UsageError(f"the install target {base} is a file, not a folder", hint="choose another config folder",
                         remedy="config_dir")
    core = config / "msd-core"
    if os.path.lexists(core) and (core.is_symlink() or not core.is_dir()):
        raise UsageError(f"{core} is not a folder msd can use (a file or a symlink)",
                         hint="move it aside, then rerun")
    # Writability is proven by creating the config folder and the lock file (see
    # cannot_write): os.access lies for root, ACLs and immutable folders, and a separate
    # probe file could be left behind by a crash.
