"""`msd_run stats [--text] [--no-usage] [--config-dir DIR]`: the project in numbers (msd_core.reports.stats).

JSON: msd_core.reports.stats's shape; `--text`: a few lines and a table per phase. `--no-usage`
skips the session transcripts (tokens: null). Exit 0, 2 bad usage (no project).
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="JSON output (the default)")
    parser.add_argument("--text", action="store_true", help="a few lines and a table instead of JSON")
    parser.add_argument("--no-usage", action="store_true", help="do not read the host's session transcripts")
    parser.add_argument("--config-dir", metavar="DIR", help="Claude Code's config folder (default: ~/.claude)")
    parser.add_argument("--cwd", metavar="DIR", help="project folder (default: current directory)")


def run(args: argparse.Namespace):
    from pathlib import Path

    from msd_core.planning import project
    from msd_core.reports import stats

    root = project.project_root(args.cwd)
    config = Path(args.config_dir).expanduser() if args.config_dir else None
    out = stats.stats(root, config=config, usage=not args.no_usage)
    return stats.text(out) if args.text else out
