"""`read_tail`: the end of a log that may have grown large, refusing what read_regular refuses;
`stale_temp`: which temp names are a dead write's."""

from __future__ import annotations

import os
import time

import pytest

from msd_core.files.atomic import stale_temp
from msd_core.files.safe_read import read_tail


def test_the_tail_of_a_large_file_and_all_of_a_small_one(tmp_path):
    log = tmp_path / "runs.jsonl"
    log.write_bytes(b"".join(b"line %05d\n" % i for i in range(5000)))
    tail = read_tail(log, 100)
    assert len(tail) == 100 and tail.endswith(b"line 04999\n")
    small = tmp_path / "small"
    small.write_bytes(b"abc")
    assert read_tail(small, 100) == b"abc" and read_tail(small, 0) == b""


def test_a_symlink_and_a_fifo_are_refused(tmp_path):
    target = tmp_path / "t"
    target.write_text("x")
    os.symlink(target, tmp_path / "link")
    with pytest.raises(OSError):
        read_tail(tmp_path / "link", 10, follow_symlinks=False)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OSError):
        read_tail(tmp_path / "fifo", 10)


def test_stale_temp_names():
    now = time.time()
    assert stale_temp(".STATE.md.999999999-ab.msd-tmp", now, now)  # no such pid
    assert not stale_temp(f".STATE.md.{os.getpid()}-ab.msd-tmp", now, now)  # this writer is alive
    assert stale_temp(f".STATE.md.{os.getpid()}-ab.msd-tmp", now - 10 * 86400, now)  # too old
    assert not stale_temp("STATE.md", now, now) and not stale_temp(".notes.txt", now, now)
    assert stale_temp(".x.msd-tmp", now, now)  # no pid in the name: not ours to keep
