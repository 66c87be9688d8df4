"""`msd_run milestone-summary [--milestone <v>] [--text] [--write]`: a milestone told to a person
(msd_core.reports.milestone). The current milestone by default; `--milestone v1.0` an archived one.
`--write` also writes the text (atomically) and adds "written". Exit 0, 2 bad usage (no project,
no such archived milestone).
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    from msd_core.run.report_args import configure as shared

    parser.add_argument("--milestone", metavar="V", help="an archived milestone's label (default: the current one)")
    shared(parser, text="the summary as Markdown", write="write it to .planning/ (MILESTONE-SUMMARY.md)")


def run(args: argparse.Namespace):
    from msd_core.planning import project
    from msd_core.reports import milestone

    root = project.project_root(args.cwd)
    out = milestone.summary(root, args.milestone)
    if args.write:
        out["written"] = milestone.write(root, out)
    return milestone.text(out) if args.text else out
