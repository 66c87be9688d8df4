"""Running a short-lived program and collecting its output, without the subprocess module.

`run(argv, env, timeout)` starts `argv` with `os.posix_spawnp` (vfork + exec: cheaper than
the fork subprocess uses, and no import of subprocess, signal, selectors and threading,
~4 ms of a fresh interpreter's start-up), stdin from /dev/null, stdout and stderr each on a
pipe, and returns a `Completed` (args, returncode, stdout, stderr) as `subprocess.run(...,
capture_output=True, text=True, stdin=DEVNULL, timeout=...)` would:

- output is decoded as subprocess's text mode does (UTF-8 in UTF-8 mode, else the locale's
  encoding; strict errors; `\\r\\n` and `\\r` become `\\n`);
- the return code is negative (-signal) for a child killed by a signal;
- SIGPIPE and SIGXFSZ are reset to their default in the child (subprocess's restore_signals);
- both pipes are read as the output arrives (select.poll), so a child writing more than a
  pipe buffer on both never deadlocks; the child is reaped as soon as it exits (a pidfd on
  Linux; elsewhere a short back-off once both pipes are closed);
- past `timeout` seconds the child is killed (SIGKILL), reaped, and `Timeout` is raised;
  any other exception while waiting also kills and reaps it;
- a program that cannot be found raises FileNotFoundError, as subprocess does.

There is no working-directory argument (posix_spawn has none portably): callers pass it in
the argv (`git -C <dir>`). The pipes are created close-on-exec (os.pipe), so a child started
from another thread at the same time never inherits them, and every other descriptor the
parent holds open and inheritable is closed in the child (subprocess's close_fds).
Differences from subprocess: glibc's posix_spawn leaves its two internal real-time signals
(32, 33) ignored in the child.

`start(argv, env, timeout)` starts the same child and returns at once; its `.wait()` gives
what `run` gives, so a caller can do short work of its own while git runs.

Where os.posix_spawnp does not exist (not a POSIX system), and when `input_text` is given
for the child's stdin, the same call goes through subprocess.run, with the same result type
and Timeout.

Standard library only.
"""

from __future__ import annotations

import errno
import os
import sys

_SIGPIPE, _SIGXFSZ, _SIGKILL = 13, 25, 9  # the same numbers on Linux and macOS
_CHUNK = 1 << 16


class Timeout(Exception):
    """The child ran past its time bound; it was killed and reaped."""


class Completed:
    """What subprocess.CompletedProcess holds, for the attributes callers read."""

    __slots__ = ("args", "returncode", "stdout", "stderr")

    def __init__(self, args, returncode: int, stdout: str, stderr: str):
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr

    def __repr__(self) -> str:
        return f"Completed(args={self.args!r}, returncode={self.returncode})"


def _signals() -> tuple[int, ...]:
    try:
        import _signal

        return (_signal.SIGPIPE, _signal.SIGXFSZ)
    except (ImportError, AttributeError):  # pragma: no cover - every POSIX build has both
        return (_SIGPIPE, _SIGXFSZ)


def _close_inherited() -> list[tuple]:
    """File actions closing, in the child, every descriptor above 2 the parent holds open and
    inheritable (as subprocess's close_fds does): a host's pipe leaked into msd_run never
    reaches git, or a process git leaves running (`gc --auto` detached)."""
    closefrom = getattr(os, "POSIX_SPAWN_CLOSEFROM", None)  # Python 3.13+
    if closefrom is not None:
        return [(closefrom, 3)]
    try:
        names = os.listdir("/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd")
    except OSError:
        return []
    actions = []
    for name in names:
        fd = int(name)
        if fd > 2:
            try:
                if os.get_inheritable(fd):
                    actions.append((os.POSIX_SPAWN_CLOSE, fd))
            except OSError:  # the listing's own descriptor, closed by now
                continue
    return actions


def text_encoding() -> str:
    """The encoding subprocess's text mode decodes with."""
    if sys.flags.utf8_mode:
        return "utf-8"
    import _locale

    get = getattr(_locale, "getencoding", None)  # Python 3.11+
    if get is not None:
        return get()
    import locale  # Python 3.10

    return locale.getpreferredencoding(False)


def decode(data: bytes, encoding: str) -> str:
    return data.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")


def run(argv: list[str], env: dict, timeout: float, input_text: str | None = None) -> Completed:
    if input_text is not None or not hasattr(os, "posix_spawnp"):
        # text for the child's stdin (rare: rev-list --stdin), or not a POSIX system: subprocess
        return _run_subprocess(argv, env, timeout, input_text)
    return start(argv, env, timeout).wait()


def start(argv: list[str], env: dict, timeout: float) -> "_Started":
    """Start `argv` and return at once; `.wait()` gives what `run` gives. The time bound runs
    from now. Until `.wait()` is called the child's output waits in its pipes (a child that
    writes more than a pipe holds pauses until then), so a caller does its own short work in
    between and always calls `.wait()` (a `with` block does it on the way out, also on an
    exception). Without os.posix_spawnp the child runs, through subprocess, in `.wait()`."""
    if not hasattr(os, "posix_spawnp"):
        return _Deferred(argv, env, timeout)
    import time

    deadline = time.monotonic() + timeout
    out_r, out_w = os.pipe()
    try:
        err_r, err_w = os.pipe()
    except BaseException:
        os.close(out_r)
        os.close(out_w)
        raise
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
    try:
        try:
            pid = os.posix_spawnp(argv[0], argv, env, file_actions=actions + _close_inherited(),
                                  setsigdef=_signals())
        except OSError as exc:
            if exc.errno != errno.EBADF:
                raise
            # an inherited descriptor was closed by another thread meanwhile: list them again
            pid = os.posix_spawnp(argv[0], argv, env, file_actions=actions + _close_inherited(),
                                  setsigdef=_signals())
    except BaseException:
        for fd in (out_r, out_w, err_r, err_w):
            os.close(fd)
        raise
    os.close(out_w)
    os.close(err_w)
    pidfd = -1
    open_pidfd = getattr(os, "pidfd_open", None)
    if open_pidfd is not None:
        try:
            pidfd = open_pidfd(pid)
        except OSError:  # kernel before 5.3, or a sandbox refusing it
            pidfd = -1
    return Running(argv, pid, pidfd, out_r, err_r, deadline)


class _Started:
    """What `start` returns: `wait()` collects the child once (later calls return the same
    Completed); a `with` block collects it on the way out."""

    _done: Completed | None = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.wait()

    def wait(self) -> Completed:
        if self._done is None:
            self._done = self._collect()
        return self._done

    def _collect(self) -> Completed:  # pragma: no cover - each kind has its own
        raise NotImplementedError


class Running(_Started):
    """A child started with posix_spawnp: its pipes and pid (pidfd where there is one)."""

    def __init__(self, argv, pid: int, pidfd: int, out_r: int, err_r: int, deadline: float):
        self.argv, self.pid, self._pidfd, self._out, self._err, self._deadline = argv, pid, pidfd, out_r, err_r, deadline

    def _collect(self) -> Completed:
        import select
        import time

        pid, pidfd, out_r, err_r, deadline = self.pid, self._pidfd, self._out, self._err, self._deadline
        status = None
        try:
            chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
            poller = select.poll()
            for fd in chunks:
                poller.register(fd, select.POLLIN)
            if pidfd >= 0:
                poller.register(pidfd, select.POLLIN)
            live = 2
            while live or (pidfd >= 0 and status is None):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Timeout
                for fd, _event in poller.poll(left * 1000):
                    if fd == pidfd:
                        poller.unregister(pidfd)
                        status = os.waitpid(pid, 0)[1]
                        continue
                    data = os.read(fd, _CHUNK)
                    if data:
                        chunks[fd].append(data)
                    else:
                        poller.unregister(fd)
                        live -= 1
            delay = 0.0002
            while status is None:  # no pidfd: both pipes closed, the child is exiting
                done, st = os.waitpid(pid, os.WNOHANG)
                if done:
                    status = st
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise Timeout
                time.sleep(min(delay, left))
                delay = min(delay * 2, 0.05)
        finally:
            if status is None:  # timed out, or interrupted: never leave the child behind
                try:
                    os.kill(pid, _SIGKILL)
                except ProcessLookupError:
                    pass
                os.waitpid(pid, 0)
            for fd in (out_r, err_r, pidfd):
                if fd >= 0:
                    os.close(fd)
        encoding = text_encoding()
        return Completed(self.argv, os.waitstatus_to_exitcode(status), decode(b"".join(chunks[out_r]), encoding),
                         decode(b"".join(chunks[err_r]), encoding))


class _Deferred(_Started):
    """`start` where posix_spawnp is missing: the child runs (through subprocess) in `wait()`."""

    def __init__(self, argv, env: dict, timeout: float):
        self.argv, self._env, self._timeout = argv, env, timeout

    def _collect(self) -> Completed:
        return _run_subprocess(self.argv, self._env, self._timeout)


def _run_subprocess(argv: list[str], env: dict, timeout: float, input_text: str | None = None) -> Completed:
    import subprocess

    try:
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, input=input_text,
                              stdin=subprocess.DEVNULL if input_text is None else None)
    except subprocess.TimeoutExpired:
        raise Timeout from None
    return Completed(argv, proc.returncode, proc.stdout, proc.stderr)
