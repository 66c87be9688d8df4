"""Extension rules over every real plan and phase folder of the corpus: no crash, sane choices."""

from __future__ import annotations

import pytest

from msd_core.agents.extensions import EXECUTOR_ORDER, PLANNER_ORDER, executor_rules, planner_rules
from msd_core.errors import MsdError

pytestmark = pytest.mark.corpus


def test_every_corpus_plan_gets_a_decision(corpus_dir):
    seen = tdd = cp = 0
    for plan in sorted(corpus_dir.glob("*/.planning/**/*-PLAN.md")):
        text = plan.read_bytes().decode("utf-8", errors="replace")
        chosen, _notes = executor_rules(text, None)
        got = [n for n, _ in chosen]
        assert got[0] == "deviation-rules" and got[-1] == "summary", plan
        assert got == [n for n in EXECUTOR_ORDER if n in got], plan  # reading order kept
        raw_tdd = 'tdd="true"' in text or 'approach="tdd"' in text
        raw_cp = 'type="checkpoint:' in text
        # a plan with neither marker anywhere can never get the extension
        if not raw_tdd and "type: tdd" not in text:
            assert "tdd" not in got, plan
        if not raw_cp:
            assert "checkpoints" not in got, plan
        seen += 1
        tdd += "tdd" in got
        cp += "checkpoints" in got
    assert seen > 500
    assert tdd > 20 and cp > 50  # the corpus has both kinds (see the task-tag census)


def test_every_corpus_phase_folder_gets_a_decision(corpus_dir):
    seen = 0
    counts = dict.fromkeys(PLANNER_ORDER, 0)
    for d in sorted(corpus_dir.glob("*/.planning/phases/*")):
        if not d.is_dir() or d.is_symlink():
            continue
        try:
            chosen, _notes = planner_rules(d, False, False, False)
        except MsdError as exc:  # pragma: no cover - would be a reader bug
            pytest.fail(f"{d}: {exc}")
        got = [n for n, _ in chosen]
        assert got == [n for n in PLANNER_ORDER if n in got]
        assert "gap-closure" not in got and "revision" not in got  # only ever from flags
        for n in got:
            counts[n] += 1
        seen += 1
    assert seen > 100
    # discovery is decided from files, and it is neither always on nor never on
    assert 0 < counts["discovery"] < seen


def test_task_flags_agree_with_the_plan_parser(corpus_dir):
    """An independent reader (msd_core.planning.plan) finds the same TDD/checkpoint plans."""
    plan_mod = pytest.importorskip("msd_core.planning.plan")
    from msd_core.agents.extensions import read_plan_facts

    disagree = []
    for plan in sorted(corpus_dir.glob("*/.planning/**/*-PLAN.md")):
        text = plan.read_bytes().decode("utf-8", errors="replace")
        ours = read_plan_facts(text)
        theirs = plan_mod.parse_plan(text)
        a = (bool(ours.tdd_tasks), bool(ours.checkpoint_tasks))
        # approach="tdd" is a corpus spelling we accept on purpose
        b = (any(t.tdd for t in theirs.tasks) or 'approach="tdd"' in text, any(t.is_checkpoint for t in theirs.tasks))
        if a != b:
            disagree.append(str(plan.relative_to(corpus_dir)))
    assert disagree == []
