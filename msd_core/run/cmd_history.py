"""`msd_run history-digest [--phase <n>]... [--affects <x>]`: compact JSON of every SUMMARY's facts.

Rules in msd_core.planning.digest. Exit 0 with the digest (skips listed with reasons),
1 when there is no project, 2 for a bad --cwd.
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--phase", action="append", metavar="N", help="only this phase (repeatable): 2, 02, 3.1")
    parser.add_argument("--affects", metavar="X", help="only summaries whose affects mention X (or subsystem X)")
    parser.add_argument("--cwd", metavar="DIR", help="project folder (default: current directory)")
    parser.add_argument("--no-cache", action="store_true", help="parse every summary again (ignore .planning/.msd cache)")


def run(args: argparse.Namespace):
    from msd_core.errors import UsageError
    from msd_core.planning.digest import build_digest
    from msd_core.planning.discovery import normalize_phase
    from msd_core.planning.project import project_root

    root = project_root(args.cwd)
    for p in args.phase or []:
        if normalize_phase(p) is None:
            raise UsageError(f"--phase {p!r} is not a phase number")
    if args.affects is not None and not args.affects.strip():
        raise UsageError("--affects needs a value")
    return build_digest(root, phases=args.phase, affects=args.affects, cache=not args.no_cache)
