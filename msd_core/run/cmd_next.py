"""`msd_run next [--cwd DIR]`: what the project should do next, and why.

    -> {"route": "execute-phase", "command": "/msd-execute-phase 3", "reason": "...", "phase": {...}}
    a flow run in progress adds "resume": {"workflow", "step", "command": "msd_run next-step --workflow ..."}

Routes: new-project, resume-work, discuss-phase, plan-phase, execute-phase, verify-work,
plan-gaps, complete-milestone, new-milestone, claimed (every phase left is someone else's),
wait-for-root (the phase depends on a phase of another .planning/ root that is not done).
A phase someone else claimed (`msd_run claim`) is passed by unless --ignore-claims. The rules live in msd_core.progress.route.
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cwd", metavar="DIR", help="the project folder (default: the current directory)")
    parser.add_argument("--root", metavar="DIR", help="the installed msd-core folder, named in `resume`'s command")
    parser.add_argument("--raw", action="store_true", help="print only the command")
    parser.add_argument("--ignore-claims", action="store_true",
                        help="route as if nobody claimed a phase (by default a phase someone else holds is passed by)")


def run(args):
    from pathlib import Path

    from msd_core.errors import UsageError
    from msd_core.progress.route import decide

    if args.cwd and not Path(args.cwd).expanduser().is_dir():
        raise UsageError(f"--cwd {args.cwd} is not a folder")
    answer = decide(args.cwd, install_root=args.root, ignore_claims=args.ignore_claims)
    return answer["command"] if args.raw else answer
