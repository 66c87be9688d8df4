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

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    options.json(parser, default=False)
    options.cwd(parser)


def run(args: argparse.Namespace):
    from msd_core.progress.workspace import table, workspace

    result = workspace(args.cwd)
    return result if args.json else table(result)
