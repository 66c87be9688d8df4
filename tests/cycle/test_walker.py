"""The walker (tests/kit/walker.py): seeded random milestones, invariants checked after every move.

CI runs the seeds in tests/cycle/walker_seeds.txt; `python scripts/walk.py --seeds N` runs more
(it sets MSD_WALK_SEEDS for this file)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.kit.walker import Walk, seeds_file_seeds

SEEDS_FILE = Path(__file__).with_name("walker_seeds.txt")


def _seeds() -> list[int]:
    chosen = os.environ.get("MSD_WALK_SEEDS", "").strip()
    if chosen:
        return [int(s) for s in chosen.split(",") if s.strip()]
    return seeds_file_seeds(SEEDS_FILE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("seed", _seeds())
def test_a_seeded_walk_keeps_every_invariant(cycle, compact, seed):
    w = Walk(cycle, seed, compact)
    moves = w.run()
    assert moves[0].startswith("new-project") and len(moves) > 3, moves
    print(f"walk seed {seed} compact {compact}: {len(moves)} moves: {' -> '.join(moves)}")
    print(cycle.report())


def test_the_model_expects_what_contracts_say():
    """The walker's own model, without a project: a phase goes discuss, plan, execute; gaps reopen it."""
    from tests.kit import cyclewalk as walk
    from tests.kit.walker import DONE, GAPS, NEW, PhaseModel

    w = Walk.__new__(Walk)
    w.audited = w.completed = False
    p1 = PhaseModel(walk.Phase("1", "A", "a", "g", ["A-01"]), [])
    p2 = PhaseModel(walk.Phase("2", "B", "b", "g", ["B-01"]), [])
    w.phases = [p2, p1]
    assert w.expected() == "/msd-discuss-phase 1"
    p1.state = DONE
    assert w.expected() == "/msd-discuss-phase 2"
    p1.state = GAPS
    assert w.expected() == "/msd-plan-phase 1 --gaps"
    p1.state = p2.state = DONE
    assert w.expected() == "/msd-audit-milestone"
    w.audited = True
    assert w.expected() == "/msd-complete-milestone"
    p3 = PhaseModel(walk.Phase("1.1", "C", "c", "g", ["C-01"]), [])
    w.phases.append(p3)
    assert p3.state == NEW and w.expected() == "/msd-discuss-phase 1.1"


DETOURS = ["quick", "debug", "debug-list", "undo-quick", "debug-resume", "remove", "move", "debug-close", "docs-off",
           "follow", "follow", "quick", "follow", "code-review"]


def test_the_detours_keep_every_invariant(cycle, compact):
    """Every detour move at least once, in a fixed order, on a local install: quick task and its undo,
    a debug session (start, list, resume, close), remove and move of phases never discussed,
    commit_docs turned off."""
    w = Walk(cycle, 5, compact, script=list(DETOURS), install="local")  # seed 5: three phases
    moves = w.run()
    assert [m.split()[0] for m in moves[1:10]] == ["quick", "debug", "debug", "undo", "debug", "remove", "move", "debug",
                                                    "settings"], moves
    print(f"detours compact {compact}: {' -> '.join(moves)}; known seams: {w.seams}")
    print(cycle.report())


def test_undo_of_a_quick_task_takes_it_out_of_state(cycle):
    """After /msd-undo of a quick task STATE.md no longer says it is done (it once did)."""
    w = Walk(cycle, 5, "off", script=["quick", "undo-quick"], strict_seams=True, install="global")
    w.run()


def test_a_second_clone_adds_a_phase_and_merges(cycle):
    """Two clones each add the next phase and merge: `next` routes to /msd-health, reconcile renumbers."""
    w = Walk(cycle, 5, "off", script=["clone", "follow"], install="global", clone_both=True)
    moves = w.run()
    assert moves[1].startswith("second clone adds phase 4, so does this one"), moves
    print(f"clone: {' -> '.join(moves)}; known seams: {w.seams}")


def test_the_reports_todo_and_explore_keep_every_invariant(cycle, compact):
    """The read-only reports (stats, health, forensics, milestone summary), todos (one done, one promoted
    to a quick task when the draw says so), an explore note."""
    w = Walk(cycle, 5, compact, script=["look"] * 6 + ["todo", "todo", "explore"], install="global")
    moves = w.run()
    print(f"reports: {' -> '.join(moves)}; known seams: {w.seams}")


def test_a_clone_of_a_local_install_stays_clean_after_installing(cycle):
    """A teammate's `msd install --local` in a fresh clone changes no committed file (the manifest
    once stored the absolute path of .git/info/exclude)."""
    w = Walk(cycle, 5, "off", script=["clone"], strict_seams=True, install="local", clone_both=False)
    w.run()
