#!/usr/bin/env python3
"""Run the walker (tests/kit/walker.py) over more seeds than CI runs.

    python scripts/walk.py --seeds N [--start S] [--compact off|on|both] [--roots] [-n WORKERS]

Runs seeds S .. S+N-1 (default S=1000, away from the fixed ones in tests/cycle/walker_seeds.txt)
through tests/cycle/test_walker.py (with --roots: the three-root walk of tests/cycle/test_walker_roots.py,
whose fixed seeds are its ROOT_SEEDS), each with compact content off and on (or the one given), and
prints each failing seed with what it found. A seed that finds a seam belongs in
tests/cycle/walker_seeds.txt once the seam is fixed, as a fixed regression scenario.
Exit 0 when every walk kept every invariant, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="how many seeds (default 10)")
    parser.add_argument("--start", type=int, default=1000, help="the first seed (default 1000)")
    parser.add_argument("--compact", choices=("off", "on", "both"), default="both")
    parser.add_argument("--roots", action="store_true", help="walk a repository of three .planning/ roots")
    parser.add_argument("-n", dest="workers", default="auto", help="pytest-xdist workers (default auto)")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    seeds = ",".join(str(s) for s in range(args.start, args.start + args.seeds))
    env = {**os.environ, ("MSD_WALK_ROOT_SEEDS" if args.roots else "MSD_WALK_SEEDS"): seeds}
    select = "test_a_seeded_walk_over_three_roots_keeps_every_invariant" if args.roots else "test_a_seeded_walk_keeps_every_invariant"
    if args.compact != "both":
        select += f" and compact-{args.compact}"
    cmd = [sys.executable, "-m", "pytest", "-q", "-n", str(args.workers), "-p", "no:cacheprovider",
           f"tests/cycle/test_walker{'_roots' if args.roots else ''}.py", "-k", select, "-rf"]
    print(f"walking seeds {args.start}..{args.start + args.seeds - 1} (compact {args.compact})", flush=True)
    return 0 if subprocess.run(cmd, cwd=REPO, env=env).returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
