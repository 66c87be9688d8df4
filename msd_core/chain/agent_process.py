"""Running one agent command so that it can never outlive its step.

What ends a step's processes, and when:

- The agent starts in a new session (its own process group, no controlling terminal), so
  everything it spawns that stays in the group (a shell, a tool, a sleeping grandchild) shares
  one group id. When the time limit passes, when the agent exits, and when the chain itself
  is interrupted (SIGINT) or told to end (SIGTERM, SIGHUP: a closed terminal, `kill`, a
  supervisor), the whole group is ended: SIGTERM, a short grace period, then SIGKILL. A
  signal to the chain is re-raised as `Ended` once the step's processes are gone (the CLI
  exits 128 + the signal's number).
- Linux: the chain process is also a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so a
  process that left the group (`setsid`, a double fork) stays below the chain in the process
  tree even when its parents exit; at the same moments every process below the chain that
  was not there before the step (read from /proc) is ended the same way and reaped. So no
  process an agent starts survives its step, whatever group or session it moved to.
- Elsewhere (macOS, the BSDs, or Linux without /proc): the process group only; a process the
  agent moved out of its group with setsid can outlive the step there.

Standard library only (ctypes is imported on Linux only, for prctl).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

GRACE_SECONDS = 3.0
ENDING_SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None)
PR_SET_CHILD_SUBREAPER = 36
_ROUNDS = 5  # passes over the process tree: a process may fork while the previous pass ends it


class Ended(BaseException):
    """The chain received SIGTERM or SIGHUP while an agent ran (after the step's processes were ended)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        try:
            return signal.Signals(self.signum).name
        except ValueError:
            return f"signal {self.signum}"


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def end_group(pgid: int, grace: float = GRACE_SECONDS, reap=None) -> None:
    """SIGTERM the process group, wait up to `grace` seconds, then SIGKILL what is left.
    `reap()` is called while waiting: members that became the chain's children (subreaper)
    are zombies, and still in the group, until it reaps them."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if reap is not None:
            reap()
        if not _group_alive(pgid):
            return
        time.sleep(0.05)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# ------------------------------------------------------------------ Linux: the subreaper and the tree

_subreaper: bool | None = None


def tracks_escapes() -> bool:
    """Whether processes that leave the agent's group are tracked here (Linux: subreaper + /proc)."""
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if sys.platform.startswith("linux") and os.path.isdir("/proc/self"):
            try:
                import ctypes

                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                _subreaper = False
    return _subreaper


def _parents() -> dict[int, int]:
    """{pid: parent pid} of every process /proc shows (one that ends meanwhile is left out)."""
    from msd_core.files.safe_read import read_head

    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = read_head(f"/proc/{name}/stat", 64 * 1024)
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()  # after the command name, which may hold spaces
        if len(fields) > 1:
            out[int(name)] = int(fields[1])
    return out


def _below(root: int, parents: dict[int, int], exclude: set[int] = frozenset()) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = set(), [c for c in children.get(root, []) if c not in exclude]
    while todo:
        pid = todo.pop()
        if pid not in out:
            out.add(pid)
            todo.extend(c for c in children.get(pid, []) if c not in exclude)
    return out


def _reap(pids) -> None:
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not a child of the chain (a living parent reaps it)
            pass
        except OSError:
            pass


def end_descendants(before: set[int], grace: float = GRACE_SECONDS) -> list[int]:
    """End every process below the chain that is not below one of `before` (its children
    before the step): SIGTERM, `grace`, SIGKILL, a few passes; reap those that are ours.
    Returns the pids that were signalled."""
    me = os.getpid()
    signalled: list[int] = []
    for round_ in range(_ROUNDS):
        found = _below(me, _parents(), exclude=before) - {me}
        if not found:
            break
        sig = signal.SIGTERM if round_ == 0 else signal.SIGKILL
        for pid in found:
            try:
                os.kill(pid, sig)
                signalled.append(pid)
            except (ProcessLookupError, PermissionError):
                pass
        if round_ == 0:
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline:
                _reap(found)
                if not (_below(me, _parents(), exclude=before) - {me}) & found:
                    break
                time.sleep(0.05)
        else:
            time.sleep(0.05)
        _reap(found)
    return signalled


def _children_now() -> set[int]:
    me = os.getpid()
    return {pid for pid, ppid in _parents().items() if ppid == me}


# ------------------------------------------------------------------ running one agent


def _raise_ended(signum, _frame):
    raise Ended(signum)


def _catch_ending_signals() -> dict | None:
    """SIGTERM/SIGHUP raise Ended while an agent runs (main thread only: elsewhere Python
    cannot install handlers, and the default action stays). The previous handlers, or None."""
    try:
        return {s: signal.signal(s, _raise_ended) for s in ENDING_SIGNALS}
    except ValueError:  # not the main thread
        return None


def _restore(previous: dict | None) -> None:
    for s, handler in (previous or {}).items():
        signal.signal(s, handler)


def run_agent(argv: list[str], *, stdin_text: str | None, cwd: str, env: dict, timeout: float,
              stdout=None) -> tuple[int | None, bool]:
    """(exit code, timed out). The exit code is None when the agent was killed for the time limit.

    FileNotFoundError / PermissionError when the command cannot be started; Ended when the
    chain got SIGTERM or SIGHUP (every process of the step is ended first)."""
    escapes = tracks_escapes()
    before = _children_now() if escapes else set()
    previous = _catch_ending_signals()
    proc = None
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
                                stdout=stdout, cwd=cwd, env=env, text=True, start_new_session=True)
        try:
            proc.communicate(input=stdin_text, timeout=timeout)
        except subprocess.TimeoutExpired:
            _end_step(proc, before, escapes)
            return None, True
        _end_step(proc, before, escapes)  # children the agent left behind would race the next step
        return proc.returncode, False
    except BaseException:  # Ctrl-C, SIGTERM, SIGHUP in the chain: the agent and everything it started go too
        if previous is not None:  # a second signal must not cut the clean-up short
            for s in ENDING_SIGNALS:
                signal.signal(s, signal.SIG_IGN)
        if proc is not None:
            _end_step(proc, before, escapes)
        raise
    finally:
        _restore(previous)


def _end_step(proc: subprocess.Popen, before: set[int], escapes: bool) -> None:
    pgid = proc.pid  # a new session's leader: its pid is the group id
    def reap():  # the agent through Popen (which keeps its exit code), the rest directly
        proc.poll()
        if escapes:
            _reap(_below(os.getpid(), _parents(), exclude=before | {proc.pid}))

    if proc.poll() is None or _group_alive(pgid):
        end_group(pgid, reap=reap)
    proc.wait()
    if escapes:
        end_descendants(before)
