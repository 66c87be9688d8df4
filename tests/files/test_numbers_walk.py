"""The door's small entries: counts and percentages checked before arithmetic (files/numbers.py),
the iterative, depth-capped walk (files/walk.py), the head of a file (safe_read.read_head)."""

from __future__ import annotations

import json
import os

import pytest

from msd_core.files import numbers, safe_read
from msd_core.files.walk import walk


@pytest.mark.parametrize("text, expected", [
    ("0", 0), ("12", 12), ("12.0", 12), ("1e3", 1000), (str(numbers.MAX_COUNT), numbers.MAX_COUNT),
    ("-1", None), ("-0.0", 0), ("1.5", None), ("NaN", None), ("Infinity", None), ("-Infinity", None), ("1e400", None),
    (str(numbers.MAX_COUNT + 1), None), ("1" + "0" * 300, None), ("true", None), ('"12"', None), ("null", None),
])
def test_a_count_is_a_whole_number_from_zero_or_unknown(text, expected):
    assert numbers.count(json.loads(text)) == expected


@pytest.mark.parametrize("value, expected", [(0, 0.0), (41.6, 41.6), (100, 100.0), (-40, None), (100.5, None),
                                             (float("nan"), None), (float("inf"), None), (True, None), ("12", None)])
def test_a_percentage_is_from_0_to_100_or_not_shown(value, expected):
    assert numbers.percent(value) == expected


def test_the_walk_goes_top_down_sorted_prunes_in_place_and_never_enters_a_link(tmp_path):
    (tmp_path / "b" / "inner").mkdir(parents=True)
    (tmp_path / "a").mkdir()
    (tmp_path / "skip").mkdir()
    (tmp_path / "b" / "inner" / "x.md").write_text("x")
    (tmp_path / "z.md").write_text("z")
    (tmp_path / "link").symlink_to(tmp_path / "b")
    os.mkfifo(tmp_path / "pipe")
    seen = []
    for top, dirs, files in walk(tmp_path):
        dirs[:] = [d for d in dirs if d != "skip"]
        seen.append((os.path.relpath(top, tmp_path), list(dirs), files))
    assert seen == [(".", ["a", "b", "link"], ["pipe", "z.md"]), ("a", [], []), ("b", ["inner"], []),
                    ("b/inner", [], ["x.md"])]  # `link` listed, not entered; `skip` pruned


def test_the_walk_stops_at_its_depth_and_says_where(tmp_path):
    deep = str(tmp_path)
    for _ in range(1100):  # past the interpreter's recursion limit
        deep = os.path.join(deep, "d")
        os.mkdir(deep)
    try:
        walker = walk(tmp_path, max_depth=5)
        assert len(list(walker)) == 6 and walker.deep == [os.path.join(str(tmp_path), *["d"] * 6)]
        assert len(list(walk(tmp_path, max_depth=2000))) == 1101  # no RecursionError either way
    finally:
        while deep != str(tmp_path):
            os.rmdir(deep)
            deep = os.path.dirname(deep)


def test_read_head_reads_only_the_head_and_refuses_a_fifo(tmp_path):
    path = tmp_path / "big"
    path.write_bytes(b"abc" * 1000)
    assert safe_read.read_head(path, 4) == b"abca" and safe_read.read_head(path, 3, offset=2997) == b"abc"
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(safe_read.NotRegularFile):
        safe_read.read_head(tmp_path / "pipe", 10)
