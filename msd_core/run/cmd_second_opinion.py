"""`msd_run second-opinion --cli codex|gemini|opencode (--plan <PLAN.md> | --phase <n>) [--timeout S] [--dry-run]`
and `msd_run second-opinion --list`: another agent CLI reviews a plan or a phase's recorded diff,
headless and read-only; its findings are written beside the plan (msd_core.chain.second_opinion).

JSON {"cli", "exe", "what", "source", "brief_chars", "file", "dry_run"[, "argv"][, "seconds", "written"]};
`--list`: {"clis": {name: path or null}}. Exit 0 recorded (or listed / dry run), 1 the CLI is absent
(nothing runs), failed, timed out or printed nothing (nothing is written), 2 bad usage.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cli", metavar="NAME", help="codex, gemini or opencode")
    parser.add_argument("--plan", metavar="PLAN", help="a PLAN.md to review")
    options.phase(parser)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds the CLI may take (default 600)")
    options.dry_run(parser)
    parser.add_argument("--list", action="store_true", help="which of the CLIs are installed")
    options.cwd(parser)


def run(args: argparse.Namespace):
    from msd_core.chain import second_opinion
    from msd_core.errors import UsageError
    from msd_core.planning import project

    if args.list:
        return {"clis": second_opinion.present()}
    if not args.cli:
        raise UsageError("--cli is required: codex, gemini or opencode (see --list)")
    from msd_core.run.inputs import screen

    root = project.project_root(args.cwd)
    return second_opinion.run(root, args.cli, plan=args.plan, phase=args.phase, timeout=args.timeout,
                              dry_run=args.dry_run, screen=screen())
