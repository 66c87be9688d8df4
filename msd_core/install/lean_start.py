"""How msd starts a Python process the host may start often: its own python, `-I -S -c <start>`.

<start> puts the folder holding msd_core on sys.path and calls msd_run's own entry point
(msd_core/run/entry.py): no site (-S), no environment (-I) and not the script pip generates (it
imports re). Should that folder be gone (the venv rebuilt on a newer Python), <start> falls back
to site's search. Used by the guard hook rows (host_hooks.py) and the guard server's entry
(guard_server_setup.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

LEAN_FLAGS = ["-I", "-S", "-c"]
LEAN_MARK = "from msd_core.run.entry import main"


def interpreter() -> Path:
    """The python this msd runs on (own_runner's msd_run is its console script)."""
    return Path(sys.executable)


def lean_start() -> str:
    """The `-c` program of a lean start: msd_run's entry point, found without site."""
    import msd_core

    home = os.path.dirname(os.path.dirname(os.path.abspath(msd_core.__file__)))
    return (f"import sys\nsys.path.append({home!r})\ntry:\n    {LEAN_MARK}\n"
            f"except ImportError:\n    import site\n    site.main()\n    {LEAN_MARK}\nmain()\n")
