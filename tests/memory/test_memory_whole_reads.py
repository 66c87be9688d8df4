"""Concurrent readers see a whole file or none.

- A query runs in one read transaction: another process re-indexing meanwhile (dropping and
  re-inserting a file's rows) waits for it, so no hit points at a file row that is gone (the
  "internal error: TypeError" once seen under concurrent SUMMARY rewrites).
- The index reads each file once, whole: the facts and the text come from one read; a file
  rewritten in place while read is read again, and skipped (with its reason) when it keeps
  changing, to be indexed on the next run.
- The PR body (ship) reads each SUMMARY once too.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from msd_core.files import safe_read
from tests.memory.test_memory import SUMMARY_A, SUMMARY_B, make_project


def _open_counter(monkeypatch):
    opened: dict[str, int] = {}
    real = safe_read.open_regular

    def counting(path, **kw):
        opened[os.fspath(path)] = opened.get(os.fspath(path), 0) + 1
        return real(path, **kw)

    monkeypatch.setattr(safe_read, "open_regular", counting)
    return opened


def test_a_query_is_one_snapshot_while_another_process_re_indexes(tmp_path, monkeypatch):
    from msd_core.memory import indexer, query
    from msd_core.memory.store import db_path, refresh
    from msd_core.run.dispatch import call

    proj = make_project(tmp_path)
    conn, _ = refresh(proj)
    conn.close()
    summary = proj / ".planning/phases/01-foundation/01-01-SUMMARY.md"
    writer_done: dict = {}

    def reindex_elsewhere():  # another process's `memory index`: the file's rows get a new id
        other = sqlite3.connect(str(db_path(proj)), timeout=10)
        other.execute("PRAGMA foreign_keys = ON")
        try:
            indexer.index_project(other, proj)
            writer_done["at"] = time.monotonic()
        finally:
            other.close()

    real = query._file_info
    started: list[threading.Thread] = []

    def file_info_then_race(conn, file_id):
        if not started:
            summary.write_text(SUMMARY_A.replace("login flow", "login flow, rewritten"))
            os.utime(summary, ns=(1, 1))
            t = threading.Thread(target=reindex_elsewhere)
            t.start()
            started.append(t)
            t.join(1.0)  # before the fix the other process commits here, under the query's feet
        return real(conn, file_id)

    monkeypatch.setattr(query, "_file_info", file_info_then_race)
    monkeypatch.setenv("MSD_LOCK_TIMEOUT", "10")
    # one hit: its row is the statement's last, read after the statement itself is done (the window)
    code, out = call(["memory", "search", "experience", "--cwd", str(proj)])
    answered = time.monotonic()
    started[0].join(20)
    assert code == 0, out
    assert out["hits"] and all(h["file"] and h["file"].startswith(".planning/") for h in out["hits"])
    assert writer_done["at"] >= answered - 0.05  # the re-index waited for the query to end


def test_the_index_reads_each_file_once(tmp_path, monkeypatch):
    from msd_core.memory.store import refresh

    proj = make_project(tmp_path)
    opened = _open_counter(monkeypatch)
    conn, report = refresh(proj)
    conn.close()
    assert len(report.indexed) == 3
    read = {p: n for p, n in opened.items() if p.endswith(".md")}
    assert read and all(n == 1 for n in read.values()), read


def test_a_file_rewritten_while_read_is_read_again_then_skipped(tmp_path, monkeypatch):
    from msd_core.memory.store import refresh

    proj = make_project(tmp_path)
    target = proj / ".planning/phases/02-billing/02-01-SUMMARY.md"
    real = safe_read._read_fd
    writes = {"left": 1}

    def racing(fd, path, max_bytes):
        data = real(fd, path, max_bytes)
        if os.fspath(path) == str(target) and writes["left"]:
            writes["left"] -= 1
            with open(target, "ab") as fh:  # a writer appends while we read
                fh.write(b"\nMore: Invoice model, appended\n")
        return data

    monkeypatch.setattr(safe_read, "_read_fd", racing)
    conn, report = refresh(proj)
    text = conn.execute("SELECT group_concat(body, ' ') FROM sections WHERE path = ?",
                        (".planning/phases/02-billing/02-01-SUMMARY.md",)).fetchone()[0]
    size = conn.execute("SELECT size FROM files WHERE path LIKE '%02-01-SUMMARY.md'").fetchone()[0]
    conn.close()
    assert "appended" in text and size == target.stat().st_size  # the second, whole read was indexed
    writes["left"] = 10  # now it never stops changing: skipped with the reason, indexed next time
    target.write_text(SUMMARY_B + "\nchanged again\n")
    conn, report = refresh(proj)
    conn.close()
    assert {"file": ".planning/phases/02-billing/02-01-SUMMARY.md",
            "reason": "cannot read: changing while read (rewritten in place); skipped this time"} in report.skipped
    monkeypatch.setattr(safe_read, "_read_fd", real)
    conn, report = refresh(proj)
    conn.close()
    assert ".planning/phases/02-billing/02-01-SUMMARY.md" in report.indexed


def test_read_whole_gives_the_stat_of_what_it_read(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"abc")
    data, st = safe_read.read_whole(p)
    assert data == b"abc" and st.st_size == 3 and st.st_mtime_ns == os.stat(p).st_mtime_ns


@pytest.mark.slow
def test_searches_under_concurrent_rewrites_and_re_indexes_never_fail(tmp_path):
    """Bounded: 3 writer threads rewriting summaries in place and by rename, 2 processes
    re-indexing, 240 searches (or 90 s); every search answers."""
    proj = make_project(tmp_path)
    phase = proj / ".planning/phases/01-foundation"
    stop = threading.Event()

    def writer(i):
        n = 0
        while not stop.is_set():
            p = phase / f"01-0{i}-SUMMARY.md"
            data = (SUMMARY_A if n % 2 else SUMMARY_B).replace("01-foundation", "01-foundation") + f"\nround {n}\n"
            if n % 3:
                with open(p, "w") as fh:
                    fh.write(data[: len(data) // 2])
                    fh.flush()
                    time.sleep(0.001)
                    fh.write(data[len(data) // 2:])
            else:
                tmp = p.with_name(p.name + ".tmp")
                tmp.write_text(data)
                os.replace(tmp, p)
            n += 1
            time.sleep(0.002)

    threads = [threading.Thread(target=writer, args=(i,), daemon=True) for i in (1, 2, 3)]
    for t in threads:
        t.start()
    loop = ("import sys, time\nfrom msd_core.run.dispatch import call\nend = time.monotonic() + 80\n"
            "while time.monotonic() < end:\n    call(['memory', 'index', '--cwd', sys.argv[1]])\n")
    indexers = [subprocess.Popen([sys.executable, "-c", loop, str(proj)]) for _ in range(2)]
    from msd_core.run.dispatch import call

    failures, start = [], time.monotonic()
    try:
        for _ in range(240):
            if time.monotonic() - start > 90:
                break
            code, out = call(["memory", "search", "model", "--cwd", str(proj)])
            if code != 0:
                failures.append(out.get("message"))
    finally:
        stop.set()
        for p in indexers:
            p.kill()
            p.wait(timeout=30)
    assert failures == []
