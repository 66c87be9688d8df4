"""`msd_run stats [--text] [--no-usage] [--config-dir DIR]`: the project in numbers (msd_core.reports.stats).

JSON: msd_core.reports.stats's shape; `--text`: a few lines and a table per phase. `--no-usage`
skips the session transcripts (tokens: null). Exit 0, 2 bad usage (no project).
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    from msd_core.run.report_args import configure as shared

    shared(parser, text="a few lines and a table", usage=True)


def run(args: argparse.Namespace):
    from msd_core.planning import project
    from msd_core.reports import stats
    from msd_core.run.report_args import config_dir

    root = project.project_root(args.cwd)
    out = stats.stats(root, config=config_dir(args), usage=not args.no_usage)
    return stats.text(out) if args.text else out
