"""`msd_run autonomous [--until <n>] [--max-gap-rounds <k>] [--reset]`: the next step of an autonomous run.

JSON {"action": "run"|"stop"|"done", "command", "why", "route", "phase", "steps"}. Rules in
msd_core.progress.autonomous. Exit 0 always when decided (read `action`); 1 damaged run
memory; 2 bad usage; 4 lock timeout.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    from msd_core.run.argtypes import count

    parser.add_argument("--until", metavar="N", help="stop after this phase")
    parser.add_argument("--max-gap-rounds", type=count(0, 10, "--max-gap-rounds"), default=2, metavar="K",
                        help="gap-fix rounds per phase before stopping (default 2)")
    parser.add_argument("--reset", action="store_true", help="forget the run's memory and start afresh")
    options.cwd(parser)


def run(args: argparse.Namespace):
    import re

    from msd_core.planning.discovery import normalize_phase
    from msd_core.progress.autonomous import step

    until = None
    if args.until is not None:
        if not re.fullmatch(r"\d{1,6}(?:\.\d{1,6})*", args.until.strip()):
            from msd_core.errors import UsageError

            raise UsageError(f"--until {args.until[:40]!r} is not a phase number")
        until = normalize_phase(args.until.strip())
    return step(args.cwd, max_gap_rounds=args.max_gap_rounds, until=until, reset=args.reset)
