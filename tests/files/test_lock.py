"""fsutil.locked: an flock-based lock that interoperates with filelock (both take flock on
POSIX), times out with exit code 4, and is released on error."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from msd_core.errors import LockTimeout
from msd_core.files.atomic import locked

pytest.importorskip("fcntl")

HOLD = r"""
import sys, time, filelock
lock = filelock.FileLock(sys.argv[1])
lock.acquire()
print("held", flush=True)
time.sleep(float(sys.argv[2]))
lock.release()
"""


def _holder(path, seconds):
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_times_out_while_filelock_holds_it(tmp_path):
    lock = tmp_path / "x.lock"
    proc = _holder(lock, 5)
    try:
        t0 = time.monotonic()
        with pytest.raises(LockTimeout) as err, locked(lock, timeout=0.3, what="the thing"):
            pass
        assert 0.25 <= time.monotonic() - t0 < 3
        assert err.value.exit_code == 4 and "the thing" in err.value.message
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_waits_for_a_short_holder(tmp_path):
    lock = tmp_path / "x.lock"
    proc = _holder(lock, 0.4)
    try:
        with locked(lock, timeout=10):
            assert proc.poll() is not None or proc.wait(timeout=10) == 0  # the holder finished first
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_released_after_an_error_and_filelock_can_take_it(tmp_path):
    import filelock

    lock = tmp_path / "sub" / "x.lock"
    with pytest.raises(RuntimeError), locked(lock, timeout=1):
        raise RuntimeError("boom")
    fl = filelock.FileLock(str(lock), timeout=0.2)
    fl.acquire()
    fl.release()
    with locked(lock, timeout=0.2):
        with pytest.raises(filelock.Timeout):
            filelock.FileLock(str(lock), timeout=0.2).acquire()
