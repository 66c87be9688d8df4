"""The one command that repairs an install, named by every message that tells a user how to repair.

`msd install --repair` makes every file msd ships byte-identical to the shipped version
again: a missing file is restored, a modified one is first saved to a backup folder,
a corrupt manifest is rebuilt (from its bookkeeping copy when that is intact). It is the
only repair that works for every integrity failure (exit 3); a plain `msd install`
rightly keeps an edited file, so it is never named as the repair of a modified file.

Standard library only: the resolver names this command on msd_run's hot path.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core.errors import REPAIR_HINT as GENERIC  # noqa: F401  (the hint when no install is known)

REPAIR_FLAG = "--repair"


def _guess_scope(config: Path) -> str:
    from msd_core.paths import global_config_dir

    if config == global_config_dir():
        return "global"
    return "local" if config.name == ".claude" else "global"


def command_for(verb: str, config: str | os.PathLike, scope: str | None = None, *extra: str) -> str:
    """`msd <verb>` aimed at exactly the install in `config` (scope guessed when unknown)."""
    from msd_core.paths import global_config_dir

    config = Path(config)
    if scope not in ("global", "local"):
        scope = _guess_scope(config)
    if scope == "global" and config == global_config_dir():
        words = ["msd", verb, "--global"]
    else:
        words = ["msd", verb, f"--{scope}", "--config-dir", str(config)]
    return " ".join([*words, *extra])


def repair_command(config: str | os.PathLike, scope: str | None = None) -> str:
    """The exact command line that repairs the install in `config`."""
    return command_for("install", config, scope, REPAIR_FLAG)


def repair_hint(config: str | os.PathLike, scope: str | None = None) -> str:
    return (f"run `{repair_command(config, scope)}` to restore the shipped files; "
            "files you edited are backed up first")
