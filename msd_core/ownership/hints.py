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
    from msd_core.paths import DEFAULT_RUNTIME, runtime_global_dir

    config = Path(config)
    if scope not in ("global", "local"):
        scope = _guess_scope(config)
    runtime = _guess_runtime(config)
    flag = [] if runtime == DEFAULT_RUNTIME else ["--runtime", runtime]
    if scope == "global" and config == runtime_global_dir(runtime):
        words = ["msd", verb, "--global", *flag]
    else:
        words = ["msd", verb, f"--{scope}", *flag, "--config-dir", str(config)]
    return " ".join([*words, *extra])


def _guess_runtime(config: Path) -> str:
    """The runtime an install folder belongs to: its manifest's record, else its folder's name."""
    from msd_core.files.bounded import loads_json
    from msd_core.files.safe_read import read_regular
    from msd_core.paths import DEFAULT_RUNTIME, MANIFEST_REL, RUNTIME_DIRS

    try:  # a regular file only: a FIFO or device there must not block a hint
        manifest = config / MANIFEST_REL
        recorded = loads_json(read_regular(manifest, 4 * 1024 * 1024), str(manifest)).get("runtime")
    except (OSError, ValueError, AttributeError):
        recorded = None
    if recorded in RUNTIME_DIRS:
        return recorded
    for name, (local, _env, rel) in RUNTIME_DIRS.items():
        if config.name == local or config.as_posix().endswith("/" + rel):
            return name
    return DEFAULT_RUNTIME


def repair_command(config: str | os.PathLike, scope: str | None = None) -> str:
    """The exact command line that repairs the install in `config`."""
    return command_for("install", config, scope, REPAIR_FLAG)


def repair_hint(config: str | os.PathLike, scope: str | None = None) -> str:
    return (f"run `{repair_command(config, scope)}` to restore the shipped files; "
            "files you edited are backed up first")
