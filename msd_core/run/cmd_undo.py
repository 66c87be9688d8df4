"""`msd_run undo --plan <plan> | --phase <n> [--dry-run]`: revert only the commits msd recorded.

Rules in msd_core.execution.undo. JSON {"ok", "target", "commits", ...}; a refusal prints the
JSON with "refused" and exits 1 (nothing changed). Exit 2 bad usage, 4 lock timeout.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    from msd_core.run import cmd_recorded

    cmd_recorded.configure(parser)
    options.dry_run(parser)


def run(args: argparse.Namespace):
    import json
    import sys

    from msd_core.execution.undo import undo
    from msd_core.run.cmd_recorded import cwd_of

    out = undo(cwd_of(args), phase=args.phase, plan=args.plan, dry_run=args.dry_run)
    sys.stdout.write(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n")
    if not out.get("ok"):
        sys.stderr.write("msd_run undo: refused: " + " ".join(str(out.get("refused", "")).split()) + "\n")
    return 0 if out.get("ok") else 1
