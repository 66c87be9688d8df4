"""`msd_run`: the agents' runtime entry point.

Hot-path rules: standard library only at import time; only the module of the command
being run is imported (see COMMANDS). Output is JSON on stdout (`--raw` for a bare value
where a command offers it); errors are one line on stderr (JSON with `--json-errors`).
It never prompts and never reads stdin unless a command is told to.
"""

from __future__ import annotations

import sys

from msd_core.run.dispatch import COMMANDS, main

__all__ = ["COMMANDS", "main"]

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
