"""`msd_run template select <plan-path> [--root ~/.claude/msd-core]` (rules in msd_core.planning.template_select).

JSON {"template", "path", "exists", "counts": {tasks, files, decisions, deviations}, "rule"}.
The path is computed under --root (default: the global install), not verified here;
`exists` says whether the file is there. A relative plan path is taken from --cwd.
Exit 1 when the plan cannot be read, 2 for bad usage.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="select", parser_class=type(parser))
    sub.required = True
    s = sub.add_parser("select", help="choose the SUMMARY template for a plan")
    s.add_argument("plan", help="the PLAN.md")
    options.root(s)
    options.cwd(s)


def run(args: argparse.Namespace):
    from msd_core.planning.plan import parse_plan
    from msd_core.planning.project import plan_and_root, read_text_file
    from msd_core.planning.template_select import select

    _base, plan_path, root = plan_and_root(args.plan, args.root, args.cwd)
    _raw, text = read_text_file(plan_path, "plan")
    return {"plan": str(plan_path), **select(parse_plan(text), root)}
