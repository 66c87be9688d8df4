"""The three-root walker (tests/kit/walker_roots.py): seeded walks over a repository holding three
`.planning/` roots, each root's invariants and `msd_run workspace` checked after every move.

CI runs ROOT_SEEDS with compact content off and on; `python scripts/walk.py --roots --seeds N` runs more
(it sets MSD_WALK_ROOT_SEEDS for this file)."""

from __future__ import annotations

import os

import pytest

from tests.kit.walker_roots import RootsWalk

ROOT_SEEDS = [3, 8]  # 3: a local install; 8: a global install, worktree waves in services/api


def _seeds() -> list[int]:
    chosen = os.environ.get("MSD_WALK_ROOT_SEEDS", "").strip()
    return [int(s) for s in chosen.split(",") if s.strip()] if chosen else ROOT_SEEDS


@pytest.mark.parametrize("seed", _seeds())
def test_a_seeded_walk_over_three_roots_keeps_every_invariant(cycle, compact, seed):
    w = RootsWalk(cycle, seed, compact)
    moves = w.run()
    assert len([m for m in moves if "new-project" in m]) == 3, moves
    print(f"roots walk seed {seed} compact {compact} install {w.install}: {len(moves)} moves: {' -> '.join(moves)}")
    print(cycle.report())
