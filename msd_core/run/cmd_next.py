"""`msd_run next [--cwd DIR]`: what the project should do next, and why.

    -> {"route": "execute-phase", "command": "/msd-execute-phase 3", "reason": "...", "phase": {...}}
    a flow run in progress adds "resume": {"workflow", "step", "command": "msd_run next-step --workflow ..."}

Routes: new-project, resume-work, discuss-phase, plan-phase, execute-phase, verify-work,
plan-gaps, complete-milestone, new-milestone, claimed (every phase left is someone else's),
review-drift (drift makes the proposal wrong: msd_core.execution.drift_route),
wait-for-root (the phase depends on a phase of another .planning/ root that is not done).
A phase someone else claimed (`msd_run claim`) is passed by unless --ignore-claims. The rules live in msd_core.progress.route.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    options.cwd(parser)
    options.root(parser, default="none; it is only named in `resume`'s command")
    options.raw(parser, what="only the command")
    parser.add_argument("--ignore-claims", action="store_true",
                        help="route as if nobody claimed a phase (by default a phase someone else holds is passed by)")


def run(args):
    from msd_core.execution import drift_route
    from msd_core.progress.route import decide

    answer = decide(args.cwd, install_root=args.root, ignore_claims=args.ignore_claims)
    answer = drift_route.review(answer)  # drift that makes the proposal wrong routes to its review
    return answer["command"] if args.raw else answer
