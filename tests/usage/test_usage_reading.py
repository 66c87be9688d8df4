"""Reading transcripts in bounded memory, and the incremental cache the status line and hooks use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from msd_core.usage import cache, jsonl, locate, report
from tests.kit.transcripts import Transcript, usage

PEAK = r"""
import json, sys, tracemalloc
from pathlib import Path
from msd_core.usage import jsonl, report
jsonl.MAX_LINE_BYTES = int(sys.argv[3])
tracemalloc.start()
files = report.scan(Path(sys.argv[1]), Path(sys.argv[2]))
data = report.build(files)
print(json.dumps({"peak": tracemalloc.get_traced_memory()[1], "lines": data["lines"], "requests": data["totals"]["requests"]}))
"""


def test_lines_are_yielded_whole_an_oversized_one_is_skipped_and_a_partial_last_one_waits(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"a\n" + b"x" * 5000 + b"\nb\n\nc-not-finished")
    got = list(jsonl.lines(path, 0, max_line=1000))
    assert [raw for _off, raw in got] == [b"a", None, b"b", b""]
    assert got[-1][0] == len(b"a\n" + b"x" * 5000 + b"\nb\n\n")  # the partial line is left for the next read
    again = list(jsonl.lines(path, got[1][0], max_line=1000))
    assert [raw for _off, raw in again] == [b"b", b""]


def _big_project(tmp_path: Path, sessions: int, lines_per: int, long_line: int) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    (root / ".planning").mkdir(parents=True)
    config = tmp_path / "cfg"
    folder = config / "projects" / locate.folder_name(str(root))
    pad = "p" * 2000  # a tool result's worth of text in each line
    for s in range(sessions):
        t = Transcript(str(root), session=f"s{s}").command("msd-plan-phase", "1")
        for _ in range(lines_per):
            t.user([{"type": "tool_result", "tool_use_id": "x", "content": pad}])
            t.reply(usage(10, 20, 0, 1))
        t.write(folder / f"s{s}.jsonl", extra=b'{"type": "user", "x": "' + b"y" * long_line + b'"}\n')
    return root, config


def _peak(root: Path, config: Path, max_line: int) -> dict:
    r = subprocess.run([sys.executable, "-c", PEAK, str(root), str(config), str(max_line)], capture_output=True, text=True,
                       timeout=300, cwd=str(Path(__file__).resolve().parents[2]))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_huge_folder_is_read_in_bounded_memory(tmp_path):
    """Bounded: 8 sessions of 2,500 requests (about 45 MB) with a 4 MB line each; memory stays near
    one chunk and one line, whatever the folder holds (the same as for a folder a tenth its size)."""
    small = _peak(*_big_project(tmp_path / "small", 1, 250, 4 << 20), max_line=1 << 20)
    big = _peak(*_big_project(tmp_path / "big", 8, 2500, 4 << 20), max_line=1 << 20)
    assert big["requests"] == 8 * 2500 and big["lines"]["oversized"] == 8
    assert big["peak"] < 6 * (1 << 20), big  # one 1 MiB chunk and one line at most, plus small bookkeeping
    assert big["peak"] < small["peak"] + (2 << 20)  # it does not grow with the folder


def test_the_cache_reads_only_what_was_written_since_and_agrees_with_a_full_read(tmp_path):
    root = tmp_path / "proj"
    (root / ".planning").mkdir(parents=True)
    config = tmp_path / "cfg"
    path = config / "projects" / locate.folder_name(str(root)) / "s.jsonl"
    t = Transcript(str(root)).command("msd-plan-phase", "1").reply(usage(10))
    t.write(path)
    files, doc = cache.refresh(root, config)
    first_offset = doc["files"][str(path)]["offset"]
    assert first_offset == path.stat().st_size
    t.reply(usage(30), [{"type": "tool_use", "id": "b", "name": "Bash", "input": {"command": "msd_run state get --phase 2"}}])
    t.reply(usage(50))
    t.write(path)
    reads = []
    real = jsonl.lines

    def counting(p, start=0, max_line=None):
        reads.append(start)
        return real(p, start, max_line)

    report.jsonl.lines = counting
    try:
        files, doc = cache.refresh(root, config)
    finally:
        report.jsonl.lines = real
    assert reads == [first_offset]  # only the new bytes
    assert report.build(files) == report.build(report.scan(root, config))
    assert {r["phase"]: r["input"] for r in report.build(files)["by_phase"]} == {"01": 40, "02": 50}
    os.unlink(path)
    t.write(path)  # replaced (another inode): read again from the start
    files, _doc = cache.refresh(root, config)
    assert report.build(files)["totals"]["requests"] == 3
    rewritten = Transcript(str(root)).command("msd-plan-phase", "3").reply(usage(7)).reply(usage(9)).reply(usage(11)).reply(usage(13))
    rewritten.write(path)  # the same file rewritten in place, longer than before: not an append
    files, _doc = cache.refresh(root, config)
    assert {r["phase"]: r["input"] for r in report.build(files)["by_phase"]} == {"03": 40}


def test_a_cache_that_cannot_be_read_is_rebuilt(tmp_path):
    root = tmp_path / "proj"
    (root / ".planning" / ".msd" / "usage").mkdir(parents=True)
    cache.cache_path(root).write_text("{not json")
    assert cache.load(root) == {"version": cache.VERSION, "files": {}, "windows": {}}
    cache.learn_window(root, "claude-x", 1_000_000)
    assert cache.load(root)["windows"] == {"claude-x": 1_000_000}
