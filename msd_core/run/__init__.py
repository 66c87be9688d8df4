"""`msd_run`: the agents' runtime entry point.

Hot-path rules: standard library only at import time; only the module of the command
being run is imported (see COMMANDS). Output is JSON on stdout (`--raw` for a bare value
where a command offers it); errors are one line on stderr (JSON with `--json-errors`).
It never prompts and never reads stdin unless a command is told to.
"""

from __future__ import annotations

__all__ = ["COMMANDS", "main"]


def __getattr__(name: str):
    """`COMMANDS` and `main` load the dispatcher on first use: importing msd_core.run.entry (the
    process entry) must not, since `msd_run hook ...` skips it (msd_core/run/entry.py)."""
    if name in __all__:
        from msd_core.run import dispatch

        return getattr(dispatch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
