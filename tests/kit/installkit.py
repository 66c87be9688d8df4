"""Helpers shared by the installer tests (imported by test_install_*.py; holds no tests)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "install" / "basic"


def age_host_lock(root: Path, seconds: float = 60.0) -> None:
    """Make a lock folder a killed run left on Claude Code's file (~/.claude.json, or
    <config>/.claude.json) as old as the host's own rule needs to take it over (10 s:
    files/dirlock.py), so the next run does not wait for it."""
    t = time.time() - seconds
    for lock in Path(root).rglob(".claude.json.lock"):
        os.utime(lock, (t, t))


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under root, by relative path; symlinks as 'L:<target>'."""
    out: dict[str, bytes | None] = {}
    root = Path(root)
    if not root.exists():
        return out
    for dirpath, dirs, names in os.walk(root):
        for d in dirs:
            p = Path(dirpath, d)
            out[str(p.relative_to(root)) + "/"] = ("L:" + os.readlink(p)).encode() if p.is_symlink() else None
        for n in names:
            p = Path(dirpath, n)
            out[str(p.relative_to(root))] = ("L:" + os.readlink(p)).encode() if p.is_symlink() else p.read_bytes()
    return out


def make_runner(folder: Path) -> Path:
    """An msd_run in `folder` that runs this checkout's runtime (what the venv's entry point does)."""
    import sys

    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "msd_run"
    exe.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m msd_core.run \"$@\"\n")
    exe.chmod(0o755)
    return exe


def copy_fixture(dest: Path, src: Path = FIXTURE) -> Path:
    shutil.copytree(src, dest)
    return dest


def files_of(root: Path) -> list[str]:
    return sorted(k for k, v in snapshot(root).items() if not k.endswith("/"))


WATCHED = ("replace", "unlink", "link", "rmdir", "mkdir")


def crash_at(k: int, after: bool, action) -> int:
    """Run action() in a child that exits hard at its k-th watched filesystem call; return its exit status."""
    pid = os.fork()
    if pid == 0:  # child
        try:
            count = [0]
            originals = {name: getattr(os, name) for name in WATCHED}

            def wrap(name):
                def inner(*a, **kw):
                    count[0] += 1
                    if count[0] == k and not after:
                        os._exit(77)
                    try:
                        return originals[name](*a, **kw)
                    finally:  # also after a call that raised (mkdir of an existing folder)
                        if count[0] == k and after:
                            os._exit(77)
                return inner

            for name in WATCHED:
                setattr(os, name, wrap(name))
            action()
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)
