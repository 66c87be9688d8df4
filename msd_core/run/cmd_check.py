"""`msd_run check plan <phase> [--json]`: the plan checker's mechanical part (rules in msd_core.execution.plan_check).

One line per finding, `<severity> <code> <file>:<line> <message>`, then a tally line; `--json`
prints {phase, phase_dir, plans, requirements, decisions, status, blockers, warnings, findings}.
Exit 0 no blocker, 1 blockers found, 2 bad usage (a reference naming no phase folder).
"""

from __future__ import annotations

import argparse
import json
import sys

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="what", metavar="plan", parser_class=type(parser))
    sub.required = True
    p = sub.add_parser("plan", help="the mechanical plan check of one phase")
    p.add_argument("phase", help="phase number or folder (2, 02, 02-auth)")
    options.json(p, default=False)
    options.cwd(p)


def run(args: argparse.Namespace) -> int:
    from msd_core.execution import phase_files, plan_check
    from msd_core.planning.project import project_root

    files = phase_files.load(project_root(args.cwd), args.phase)
    result = plan_check.report(files, plan_check.check(files))
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        for f in result["findings"]:
            sys.stdout.write(f"{f['severity']} {f['code']} {f['file']}:{f['line']} {f['message']}\n")
        sys.stdout.write(f"check plan {result['phase_dir']}: {result['status']} ({result['plans']} plans, "
                         f"{result['blockers']} blockers, {result['warnings']} warnings)\n")
    return 1 if result["blockers"] else 0
