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


# ------------------------------------------------------------------ its output, within a cap

CHUNK = 64 * 1024  # one read of an agent's pipe


class Capped:
    """One output stream of an agent kept within `limit` bytes: its first half as it came, then
    only its last half, and how many bytes between them were cut. With `forward` (a callable
    taking bytes), the first half is passed on as it comes and the note and the last half when
    the stream ends (`finish`), so a reader sees at most `limit` bytes and a note."""

    def __init__(self, name: str, limit: int, forward=None):
        self.name, self.limit, self.forward = name, max(2, limit), forward
        self.head, self.tail, self.total = bytearray(), bytearray(), 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.limit // 2 - len(self.head)
        if room > 0:
            part, chunk = chunk[:room], chunk[room:]
            self.head += part
            if self.forward is not None and part:
                self.forward(bytes(part))
        if chunk:
            self.tail += chunk
            over = len(self.tail) - (self.limit - self.limit // 2)
            if over > 0:
                del self.tail[:over]

    @property
    def cut(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def note(self) -> bytes:
        return f"\n… {self.cut:,} bytes of {self.name} cut …\n".encode() if self.cut else b""

    def data(self) -> bytes:
        return bytes(self.head) + self.note() + bytes(self.tail)

    def finish(self) -> None:
        if self.forward is not None and (self.tail or self.cut):
            self.forward(self.note() + bytes(self.tail))


def to_stderr(data: bytes) -> None:
    """A Capped's `forward` that passes an agent's output on to our stderr."""
    try:
        sys.stderr.write(data.decode("utf-8", errors="replace"))
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _drain(fd: int, into: Capped) -> None:
    try:
        while True:
            chunk = os.read(fd, CHUNK)
            if not chunk:
                break
            into.feed(chunk)
    except OSError:
        pass
    finally:
        os.close(fd)


def _send(pipe, data: bytes) -> None:
    try:
        pipe.write(data)
    except (BrokenPipeError, OSError, ValueError):  # the agent did not read its stdin
        pass
    finally:
        try:
            pipe.close()
        except (BrokenPipeError, OSError):
            pass


def _start_pipes(proc: subprocess.Popen, stdin_text: str | None, capture: tuple[Capped, Capped]) -> list:
    import threading

    jobs = []
    for pipe, cap in ((proc.stdout, capture[0]), (proc.stderr, capture[1])):
        fd = os.dup(pipe.fileno())
        pipe.close()
        jobs.append(threading.Thread(target=_drain, args=(fd, cap), daemon=True))
    if stdin_text is not None:
        jobs.append(threading.Thread(target=_send, args=(proc.stdin, stdin_text.encode("utf-8")), daemon=True))
    for job in jobs:
        job.start()
    return jobs


def _finish_pipes(jobs: list, capture: tuple[Capped, Capped]) -> None:
    for job in jobs:  # the step's processes are gone, so the pipes are at their end (a process
        job.join(GRACE_SECONDS)  # that escaped the group elsewhere than Linux may hold one: not waited for)
    for cap in capture:
        cap.finish()


def run_agent(argv: list[str], *, stdin_text: str | None, cwd: str, env: dict, timeout: float,
              stdout=None, capture: tuple[Capped, Capped] | None = None) -> tuple[int | None, bool]:
    """(exit code, timed out). The exit code is None when the agent was killed for the time limit.

    With `capture` (two Capped: stdout, stderr) both streams are read in CHUNK reads into
    them, so no output of the agent, however large, is held or passed on beyond their caps;
    otherwise stdout goes to `stdout` and stderr is inherited.

    FileNotFoundError / PermissionError when the command cannot be started; Ended when the
    chain got SIGTERM or SIGHUP (every process of the step is ended first)."""
    escapes = tracks_escapes()
    before = _children_now() if escapes else set()
    previous = _catch_ending_signals()
    proc = None
    jobs: list = []
    try:
        piped = subprocess.PIPE if capture is not None else None
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
                                stdout=piped or stdout, stderr=piped, cwd=cwd, env=env, text=capture is None,
                                start_new_session=True)
        try:
            if capture is not None:
                jobs = _start_pipes(proc, stdin_text, capture)
                proc.wait(timeout=timeout)
            else:
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
        if capture is not None:
            _finish_pipes(jobs, capture)
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
