"""Special files planted where msd expects a plain file or folder (tests only).

    plant(path, "fifo" | "socket" | "link-to-fifo" | "dir" | "link-out", outside=folder)

"link-out" makes `path` a symlink to a file or folder outside the project (`outside`),
so a test can check nothing there changed. Sockets are bound by a relative name (an
absolute temp path can be longer than a Unix socket name may be); the socket object is
kept open for the test's lifetime in `SOCKETS`.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

KINDS = ("fifo", "socket", "link-to-fifo", "dir")
SOCKETS: list[socket.socket] = []


def plant(path: Path, kind: str, outside: Path | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.is_file():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        here = os.getcwd()
        os.chdir(path.parent)
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(path.name)
            SOCKETS.append(s)
        finally:
            os.chdir(here)
    elif kind == "link-to-fifo":
        target = path.parent / f".{path.name}.fifo-target"
        os.mkfifo(target)
        path.symlink_to(target)
    elif kind == "dir":
        path.mkdir()
    elif kind == "link-out":
        assert outside is not None
        path.symlink_to(outside)
    else:
        raise ValueError(kind)
    return path


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every entry under `folder` (files with their bytes), to prove nothing there changed."""
    out: dict[str, bytes | None] = {}
    for p in sorted(Path(folder).rglob("*")):
        rel = p.relative_to(folder).as_posix()
        out[rel] = p.read_bytes() if p.is_file() and not p.is_symlink() else None
    return out


def one_clear_line(stderr: str) -> bool:
    """At most one line on stderr, no traceback, no 'internal error ... report it'."""
    return stderr.count("\n") <= 1 and "Traceback" not in stderr and "internal error" not in stderr


# Names that must never select installed content (workflow stems, agent names): escapes, look-alikes.
HOSTILE = [
    "..",
    "../plan-phase",
    "plan-phase/../../etc",
    "/etc/passwd",
    "/tmp/x",
    "workflows/plan-phase",
    "plan-phase\\x",
    "%2e%2e",
    "plan%2dphase",
    "plan\u2010phase",  # unicode hyphen look-alike
    "plаn-phase",  # Cyrillic a
    "ｐlan-phase",  # fullwidth p
    "plan-phase\x00",
    "plan\x00phase",
    "a" * 65,
    "Plan-Phase",
    "PLAN-PHASE",
    "plan-phase.md",
    "plan-phase\n",
    " plan-phase",
    "plan--phase",
    "-plan",
    "",
    "~",
    "~/.claude/msd-core",
]


def finishes(func, *fifos: Path, seconds: float = 10.0):
    """`func()`'s result, failing the test when it does not return within `seconds` (a read blocked
    on a FIFO). On a timeout each of `fifos` is opened for writing, which lets the stuck reader go,
    so the suite moves on instead of hanging."""
    import threading

    box: dict = {}

    def run():
        try:
            box["value"] = func()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        for fifo in fifos:
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        t.join(5)
        raise AssertionError(f"still running after {seconds} s: blocked on {', '.join(map(str, fifos)) or 'something'}")
    if "error" in box:
        raise box["error"]
    return box.get("value")
