"""`msd_run history-digest [--phase <n>]... [--affects <x>] [--skipped]`: compact JSON of every SUMMARY's facts.

Rules in msd_core.planning.digest. Exit 0 with the digest, 1 when there is no project,
2 for a bad --cwd or a --phase that is no phase reference or names no phase folder of
any milestone and no ROADMAP.md phase (msd_core.planning.phase_ref).
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    options.phase(parser, repeat=True)
    parser.add_argument("--affects", metavar="X", help="only summaries whose affects mention X (or subsystem X)")
    parser.add_argument("--skipped", action="store_true", help="name the skipped and leniently read summaries")
    options.cwd(parser)
    parser.add_argument("--no-cache", action="store_true", help="parse every summary again (ignore .planning/.msd cache)")


def run(args: argparse.Namespace):
    from msd_core.errors import UsageError
    from msd_core.planning.digest import build_digest
    from msd_core.planning.discovery import phase_dirs
    from msd_core.planning.phase_ref import key_matches, parse_ref, resolve
    from msd_core.planning.project import project_root

    root = project_root(args.cwd)
    if args.phase:
        dirs = phase_dirs(root / ".planning")
        for p in args.phase:
            wanted = parse_ref(p)
            if not any(key_matches(d, wanted) for d in dirs):
                resolve(root / ".planning", p, dirs=dirs)  # a ROADMAP phase without a folder yet is fine
    if args.affects is not None and not args.affects.strip():
        raise UsageError("--affects needs a value")
    return build_digest(root, phases=args.phase, affects=args.affects, cache=not args.no_cache, detail=args.skipped)
