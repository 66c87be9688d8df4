"""`msd_run workspace [--json] [--cwd DIR]`: every `.planning/` root under the git work tree, where each stands.

Rules in msd_core.progress.workspace. A table by default (the root the current folder belongs to
marked `*`, its phase and state, phases done, the command `msd_run next` proposes there);
`--json`: {top, work_tree, start, current, start_is_root, count, roots: [{root, path, route, command, reason, phase?,
phase_name?, state?, phases_done?, phases_total?, run_in?, waiting_on?: [{root, phase, state, next}],
current}], folders_walked,
too_deep, truncated}. Exit 0; nothing is written.
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="JSON output (default: a table)")
    parser.add_argument("--cwd", metavar="DIR", help="a folder in the repository (default: the current directory)")


def run(args: argparse.Namespace):
    from pathlib import Path

    from msd_core.errors import UsageError
    from msd_core.progress.workspace import table, workspace

    if args.cwd and not Path(args.cwd).expanduser().is_dir():
        raise UsageError(f"--cwd {args.cwd} is not a folder")
    result = workspace(args.cwd)
    return result if args.json else table(result)
