"""scripts/lint_ceiling.py: counting ruff's and mypy's findings and the ceiling verdicts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
import lint_ceiling  # noqa: E402


def test_ruff_findings_are_the_json_list_length():
    findings = [{"code": "F401", "filename": "a.py"}, {"code": "E501", "filename": "b.py"}]
    assert lint_ceiling.count_ruff(json.dumps(findings)) == 2
    assert lint_ceiling.count_ruff("[]") == 0
    with pytest.raises(ValueError):
        lint_ceiling.count_ruff('{"not": "a list"}')


def test_mypy_closing_line_is_read():
    out = "a.py:1: error: x  [misc]\nb.py:2: error: y  [misc]\nFound 2 errors in 2 files (checked 9 source files)\n"
    assert lint_ceiling.count_mypy(out) == 2
    assert lint_ceiling.count_mypy("Found 1 error in 1 file (checked 3 source files)\n") == 1
    assert lint_ceiling.count_mypy("Success: no issues found in 3 source files\n") == 0
    with pytest.raises(ValueError):
        lint_ceiling.count_mypy("Traceback (most recent call last):\n")


def test_verdicts_hold_the_ceiling_both_ways():
    got = dict(lint_ceiling.verdicts({"ruff": 10, "mypy": 5, "new": 1}, {"ruff": 9, "mypy": 6}))
    assert got == {"ruff": "above", "mypy": "below", "new": "no ceiling"}
    assert lint_ceiling.verdicts({"ruff": 9}, {"ruff": 9}) == [("ruff", "ok")]


def _run(monkeypatch, tmp_path, counts, ceilings, *argv):
    path = tmp_path / "ceilings.json"
    path.write_text(json.dumps(ceilings), encoding="utf-8")
    monkeypatch.setattr(lint_ceiling, "measure", lambda: dict(counts))
    return lint_ceiling.main(["--ceilings", str(path), *argv]), json.loads(path.read_text(encoding="utf-8"))


def test_a_count_above_or_below_its_ceiling_fails(monkeypatch, tmp_path, capsys):
    assert _run(monkeypatch, tmp_path, {"ruff": 3, "mypy": 2}, {"ruff": 3, "mypy": 2})[0] == 0
    assert _run(monkeypatch, tmp_path, {"ruff": 4, "mypy": 2}, {"ruff": 3, "mypy": 2})[0] == 1
    assert "above its ceiling 3" in capsys.readouterr().err
    assert _run(monkeypatch, tmp_path, {"ruff": 2, "mypy": 2}, {"ruff": 3, "mypy": 2})[0] == 1
    assert "--lower" in capsys.readouterr().err


def test_lower_writes_only_counts_that_went_down(monkeypatch, tmp_path):
    status, written = _run(monkeypatch, tmp_path, {"ruff": 2, "mypy": 1}, {"ruff": 3, "mypy": 2}, "--lower")
    assert (status, written) == (0, {"ruff": 2, "mypy": 1})
    status, written = _run(monkeypatch, tmp_path, {"ruff": 5, "mypy": 1}, {"ruff": 3, "mypy": 2}, "--lower")
    assert status == 1 and written == {"ruff": 3, "mypy": 2}  # a rise is never written


def test_the_committed_ceilings_name_both_tools():
    ceilings = json.loads((REPO / ".ci" / "lint-ceilings.json").read_text(encoding="utf-8"))
    assert set(ceilings) == {"ruff", "mypy"} and all(isinstance(v, int) and v >= 0 for v in ceilings.values())
