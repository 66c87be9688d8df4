"""`msd_run undo --plan <plan> | --phase <n> [--dry-run]`: revert only the commits msd recorded.

Rules in msd_core.git.undo. JSON {"ok", "target", "commits", ...}; a refusal prints the
JSON with "refused" and exits 1 (nothing changed). Exit 2 bad usage, 4 lock timeout.
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plan", metavar="PLAN", help="a PLAN.md path or plan id (02-01)")
    parser.add_argument("--phase", metavar="N", help="every recorded commit of the phase")
    parser.add_argument("--dry-run", action="store_true", help="check and list, change nothing")
    parser.add_argument("--cwd", metavar="DIR", help="project folder (default: current directory)")


def run(args: argparse.Namespace):
    import json
    import sys
    from pathlib import Path

    from msd_core.errors import UsageError
    from msd_core.git.undo import undo

    cwd = Path(args.cwd).expanduser() if args.cwd else Path.cwd()
    if not cwd.is_dir():
        raise UsageError(f"--cwd {args.cwd} is not a directory")
    out = undo(cwd, phase=args.phase, plan=args.plan, dry_run=args.dry_run)
    sys.stdout.write(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n")
    return 0 if out.get("ok") else 1
