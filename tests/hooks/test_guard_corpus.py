"""The labelled planning-write cases (guard_corpus/planning_writes.json), each judged through both
transports: the command hook and the guard server's tool. The file's first case describes `setup`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "guard_corpus" / "planning_writes.json"
CASES = json.loads(CORPUS.read_text(encoding="utf-8"))
TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
PATH_KEYS = ("file_path", "notebook_path")


def absolute(project: Path, tool_input: dict) -> dict:
    return {k: str(project / v) if k in PATH_KEYS else v for k, v in tool_input.items()}


def build(project: Path, setup: dict, decide) -> None:
    """The project a case's `setup` describes (see the first case's note), laid out by the one
    function the accuracy benchmark uses (scripts/guard_accuracy.py)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    from guard_accuracy import lay_out

    project.mkdir(parents=True)
    lay_out(project, {"setup": setup},
            lambda payload: decide(project, payload["tool_name"], payload["tool_input"], session=payload["session_id"]))


def test_the_corpus_is_well_formed():
    assert len(CASES) >= 20 and "setup" in CASES[0]["note"] and "`prior`" in CASES[0]["note"]
    for case in CASES:
        assert set(case) <= {"class", "tool", "input", "expect", "note", "setup"}, case
        assert case["tool"] in TOOLS and case["expect"] in ("allow", "deny") and case["note"], case
    by_class: dict[str, set] = {}
    for case in CASES:
        by_class.setdefault(case["class"], set()).add(case["expect"])
    assert all(labels == {"allow", "deny"} for labels in by_class.values()), by_class  # each class shows both sides


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['class']}-{c['expect']}" for i, c in enumerate(CASES)])
def test_each_case_gets_its_label(case, decide, tmp_path):
    project = tmp_path / "proj"
    build(project, case.get("setup", {}), decide)
    reason = decide(project, case["tool"], absolute(project, case["input"]), session="corpus")
    if case["expect"] == "deny":
        assert reason and reason.startswith("msd guard: ") and "msd guard allow" in reason, case["note"]
    else:
        assert reason is None, (case["note"], reason)
