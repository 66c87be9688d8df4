"""Locks honour exit 4: a file or database another process holds gives exit 4 once
MSD_LOCK_TIMEOUT has passed, and nothing is rebuilt or deleted meanwhile."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import time

import pytest

from tests.kit.hostile import one_clear_line
from tests.kit.installed import make_project

WAIT = "0.3"
ENV = {"MSD_LOCK_TIMEOUT": WAIT}
SUMMARY = "---\nphase: 01-core\nplan: 01\nsubsystem: core\nprovides: [login endpoint]\n---\n# Summary\nlogin works\n"


@pytest.fixture
def proj(tmp_path, msd_run):
    p = make_project(tmp_path / "proj", {"mode": "yolo"})
    (p / ".planning" / "STATE.md").write_text("# Project State\n\n## Current Position\nStatus: In progress\n")
    phase = p / ".planning" / "phases" / "01-core"
    phase.mkdir(parents=True)
    (phase / "01-01-SUMMARY.md").write_text(SUMMARY)
    assert msd_run(["memory", "index"], cwd=p).returncode == 0
    return p


def _db(proj):
    return proj / ".planning" / ".msd" / "memory.sqlite"


@contextlib.contextmanager
def held(path):
    """Another process's lock, as msd takes it (flock on the lock file)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        os.close(fd)


def _timed(msd_run, argv, cwd):
    start = time.monotonic()
    r = msd_run(argv, cwd=cwd, env=ENV, timeout=20)  # the old 30 s SQLite wait fails here
    return r, time.monotonic() - start


@pytest.mark.parametrize("verb", [["search", "login"], ["what-uses", "login"], ["index"]])
def test_exclusively_locked_memory_db_is_exit_4_and_kept(proj, msd_run, verb):
    db = _db(proj)
    other = sqlite3.connect(str(db), timeout=0)
    other.execute("BEGIN EXCLUSIVE")
    try:
        (proj / ".planning" / "phases" / "01-core" / "01-01-SUMMARY.md").write_text(SUMMARY + "changed\n")
        r, took = _timed(msd_run, ["memory", *verb], proj)
    finally:
        other.rollback()
        other.close()
    assert r.returncode == 4, r.stderr
    assert one_clear_line(r.stderr) and "locked" in r.stderr and str(db) in r.stderr
    assert took < 10
    with sqlite3.connect(str(db)) as conn:  # same database, rows intact: not deleted and rebuilt
        assert conn.execute("SELECT count(*) FROM files").fetchone()[0] == 1


def test_reserved_lock_blocks_the_reindex_write_with_exit_4(proj, msd_run):
    db = _db(proj)
    ino = db.stat().st_ino
    other = sqlite3.connect(str(db), timeout=0)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO facts(file_id, field, value) VALUES (999, 'x', 'y')")
    try:
        (proj / ".planning" / "phases" / "01-core" / "01-02-SUMMARY.md").write_text(SUMMARY.replace("01\n", "02\n", 1))
        r, _ = _timed(msd_run, ["memory", "index"], proj)
    finally:
        other.rollback()
        other.close()
    assert r.returncode == 4 and one_clear_line(r.stderr), r.stderr
    assert db.stat().st_ino == ino


@pytest.mark.parametrize("lock,argv", [
    ("config.lock", ["config", "set", "mode", "interactive"]),
    ("config.lock", ["config", "unset", "mode"]),
    ("state.lock", ["state", "patch", "--status", "Done"]),
    ("memory.lock", ["memory", "search", "login"]),
    ("flow-state.lock", ["next-step", "--workflow", "plan-phase", "--restart", "--flows-dir",
                         "{flows}"]),
])
def test_held_file_lock_is_exit_4_within_the_timeout(proj, msd_run, lock, argv):
    from pathlib import Path

    flows = Path(__file__).resolve().parents[2] / "msd_core/content/msd-core/flows"
    argv = [a.replace("{flows}", str(flows)) for a in argv]
    before = {p: p.read_bytes() for p in (proj / ".planning").glob("*.*") if p.is_file()}
    with held(proj / ".planning" / ".msd" / lock):
        r, took = _timed(msd_run, argv, proj)
    assert r.returncode == 4, r.stderr
    assert one_clear_line(r.stderr) and "MSD_LOCK_TIMEOUT" in r.stderr
    assert took < 10
    assert {p: p.read_bytes() for p in before} == before  # nothing written without the lock


def test_lock_is_taken_once_the_holder_lets_go(proj, msd_run, tmp_path):
    """Bounded wait, not a refusal: a holder that finishes within the timeout is waited for."""
    import subprocess
    import sys

    code = ("import fcntl, os, sys, time\nfd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(0.5)\n")
    holder = subprocess.Popen([sys.executable, "-c", code, str(proj / ".planning/.msd/config.lock")],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        r = msd_run(["config", "set", "mode", "interactive"], cwd=proj, env={"MSD_LOCK_TIMEOUT": "10"}, timeout=20)
    finally:
        holder.wait(timeout=10)
    assert r.returncode == 0, r.stderr


def test_corrupt_db_is_still_rebuilt(proj, msd_run):
    """The guard is narrow: a damaged file (not a locked one) is rebuilt as before."""
    _db(proj).write_bytes(b"this is not a database" * 100)
    r = msd_run(["memory", "index"], cwd=proj, timeout=20)
    assert r.returncode == 0 and '"rebuilt":"unreadable database' in r.stdout
