"""Running one agent command so that it can never outlive its step.

The agent starts in a new session (its own process group, no controlling terminal), so
everything it spawns (a shell, a tool, a sleeping grandchild) shares one group id. When
the time limit passes, or the chain is interrupted, or the agent exits and leaves
children behind, the whole group is ended: SIGTERM, a short grace period, then SIGKILL.
Standard library only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

GRACE_SECONDS = 3.0


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def end_group(pgid: int, grace: float = GRACE_SECONDS) -> None:
    """SIGTERM the process group, wait up to `grace` seconds, then SIGKILL what is left."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not _group_alive(pgid):
            return
        time.sleep(0.05)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_agent(argv: list[str], *, stdin_text: str | None, cwd: str, env: dict, timeout: float,
              stdout=None) -> tuple[int | None, bool]:
    """(exit code, timed out). The exit code is None when the agent was killed for the time limit.

    FileNotFoundError / PermissionError when the command cannot be started.
    """
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
                            stdout=stdout, cwd=cwd, env=env, text=True, start_new_session=True)
    pgid = proc.pid  # a new session's leader: its pid is the group id
    try:
        proc.communicate(input=stdin_text, timeout=timeout)
    except subprocess.TimeoutExpired:
        end_group(pgid)
        proc.wait()
        return None, True
    except BaseException:  # Ctrl-C in the chain: the agent and its children go too
        end_group(pgid)
        proc.wait()
        raise
    if _group_alive(pgid):  # children the agent left behind would race the next step
        end_group(pgid)
    return proc.returncode, False
