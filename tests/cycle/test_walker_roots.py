"""The three-root walker (tests/kit/walker_roots.py): seeded walks over a repository holding three
`.planning/` roots, each root's invariants and `msd_run workspace` checked after every move.

CI walks ROOT_SEEDS, one seed with compact content off and another with it on (about 45 s of CPU
each); `python scripts/walk.py --roots --seeds N` walks more, each both ways (it sets
MSD_WALK_ROOT_SEEDS for this file)."""

from __future__ import annotations

import os

import pytest

from tests.kit.walker_roots import RootsWalk

# 4: a global install; services/api's phase 1 waits on the top's, runs a wave in worktrees of the repository;
#    the top completes its milestone. 5: `msd install --local` at the top; apps/web runs a wave in worktrees;
#    services/api completes its milestone while apps/web's phase 1 still depends on its phase 1.
ROOT_SEEDS = {"off": [4], "on": [5]}
CHOSEN = [int(s) for s in os.environ.get("MSD_WALK_ROOT_SEEDS", "").split(",") if s.strip()]


@pytest.mark.parametrize("seed", CHOSEN or sorted({s for seeds in ROOT_SEEDS.values() for s in seeds}))
def test_a_seeded_walk_over_three_roots_keeps_every_invariant(cycle, compact, seed):
    if not CHOSEN and seed not in ROOT_SEEDS[compact]:
        pytest.skip(f"CI walks seed {seed} with compact {'on' if compact == 'off' else 'off'} only")
    w = RootsWalk(cycle, seed, compact)
    moves = w.run()
    assert len([m for m in moves if "new-project" in m]) == 3, moves
    print(f"roots walk seed {seed} compact {compact} install {w.install}: {len(moves)} moves: {' -> '.join(moves)}")
    print(cycle.report())
