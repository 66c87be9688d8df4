"""The labelled shell-write cases of the planning guard (guard_corpus/planning_bash.json): Bash
commands an agent might run against a project's `.planning/` files, labelled by what they do to them
(overwrite, edit in place, replace, move away or delete a kept file: deny; read, append, create, the
workflows' archive move, writes elsewhere: allow), each judged through both transports in a project
laid out by the case's `setup` (the one layout function scripts/guard_accuracy.py uses)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hooks.test_guard_corpus import build

CORPUS = Path(__file__).parent / "guard_corpus" / "planning_bash.json"
CASES = json.loads(CORPUS.read_text(encoding="utf-8"))


def test_the_corpus_keeps_its_format():
    assert len(CASES) >= 40
    for case in CASES:
        assert set(case) == {"class", "tool", "input", "expect", "note", "setup"}, case
        assert case["tool"] == "Bash" and case["expect"] in ("allow", "deny") and case["note"], case
    assert sum(c["expect"] == "allow" for c in CASES) >= 15 and sum(c["expect"] == "deny" for c in CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['class']}-{c['expect']}" for i, c in enumerate(CASES)])
def test_each_case_gets_its_label(case, decide, tmp_path):
    project = tmp_path / "proj"
    build(project, case["setup"], decide)
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    reason = decide(project, "Bash", case["input"])
    if case["expect"] == "deny":
        assert reason and reason.startswith("msd guard: "), (case["note"], reason)
        assert "msd guard allow" in reason or "msd_run " in reason, reason  # a way forward: a person's allowance, or msd_run's command
    else:
        assert reason is None, (case["note"], reason)
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before  # judging writes nothing
