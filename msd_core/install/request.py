"""What an install or an uninstall was asked to do: one frozen record each, carried through.

`install()` and `uninstall()` keep their keyword arguments (the public API); they build the
request, and everything below them reads its fields instead of a row of positional flags.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from msd_core.install.source import ContentSource


@dataclass(frozen=True)
class InstallRequest:
    """`repair` and `force` are one mode here (`force`): every shipped file made the shipped version.
    `profile` None keeps the recorded one; `cwd` is where a global install looks for the project
    whose repository gets the git merge drivers (None: none); `progress(phase, done, total)`."""

    source: ContentSource
    force: bool = False
    dry_run: bool = False
    allow_symlink: bool = False
    lock_timeout: float | None = None
    progress: Callable[[str, int, int], None] | None = None
    profile: str | None = None
    cwd: Path | None = None
    merge_drivers: bool = True
    pre_push: bool = False  # the opt-in git pre-push hook that runs `msd_run drift --check` (install/pre_push.py)


@dataclass(frozen=True)
class UninstallRequest:
    force: bool = False
    remove_backups: bool = False
    dry_run: bool = False
    allow_symlink: bool = False
    lock_timeout: float | None = None
