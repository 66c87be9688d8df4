"""Can a client start msd's hook? One probe for every host: `<start> hook probe` must answer `ok`.

`start` is what the host runs before `hook <event> ...`: an absolute msd_run, a python with its
lean flags (host_hooks.py), or `msd_run` by name, which the client finds on its PATH (a local
install of another agent CLI names it so: runtimes/base.guard_command). The answer is why it cannot
start, in one clause, or None. Nothing is written; the probe process answers without reading stdin.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

PROBE_TIMEOUT = 20  # seconds


def can_start(start: list[str]) -> str | None:
    """Why the host could not start a hook started by `start` (None: `<start> hook probe` answered)."""
    import subprocess  # only when a status asks

    if os.sep not in start[0] and "/" not in start[0]:  # by name: the client looks it up on PATH
        found = shutil.which(start[0])
        if found is None:
            return f"{start[0]} is not on PATH"
        start = [found, *start[1:]]
    exe = Path(start[0])
    if not exe.is_file():
        moved = "msd_run" if len(start) == 1 else "the python msd runs on"
        return f"{exe} does not exist ({moved} moved or was uninstalled)"
    if not os.access(exe, os.X_OK):
        return f"{exe} is not executable"
    try:
        proc = subprocess.run([*start, "hook", "probe"], capture_output=True, text=True, timeout=PROBE_TIMEOUT,
                              stdin=subprocess.DEVNULL)
    except OSError as exc:
        return f"{exe} cannot start: {exc.strerror}"
    except subprocess.TimeoutExpired:
        return f"{exe} did not answer within {PROBE_TIMEOUT} s"
    if proc.returncode != 0 or proc.stdout.strip() != "ok":
        tail = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        return f"{exe} cannot start: {tail[:160]}"
    return None
