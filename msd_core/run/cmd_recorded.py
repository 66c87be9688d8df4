"""`msd_run recorded --phase <n> | --plan <plan>`: the commits msd recorded, for review and undo.

JSON {"target", "plans", "commits": [{"hash", "plan", "message", "files"}], "files",
"show"}: `show` is the one git command that prints their diffs (for the reviewer). Exit 1
when nothing is recorded, 2 bad usage. Standard library only.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    """--plan / --phase / --cwd: the target of `recorded` and `undo`."""
    parser.add_argument("--plan", metavar="PLAN", help="a PLAN.md path or plan id (02-01)")
    options.phase(parser)
    options.cwd(parser)


def cwd_of(args: argparse.Namespace):
    from pathlib import Path

    from msd_core.errors import UsageError

    cwd = Path(args.cwd).expanduser() if args.cwd else Path.cwd()
    if not cwd.is_dir():
        raise UsageError(f"--cwd {args.cwd} is not a directory")
    return cwd


def run(args: argparse.Namespace):
    from msd_core.errors import MsdError, OperationFailed
    from msd_core.execution import recorded
    from msd_core.git.repo_files import main_project
    from msd_core.git.runner import main_checkout
    from msd_core.planning.project import project_root

    try:  # a project below the repository's top keeps its own run records
        root = main_project(project_root(str(cwd_of(args))))
    except MsdError:
        root = main_checkout(cwd_of(args))
    records = recorded.select(root, phase=args.phase, plan=args.plan)
    commits = recorded.commits(records)
    target = f"phase {args.phase}" if args.phase else f"plan {args.plan}"
    if not commits:
        raise OperationFailed(f"no recorded commits for {target}",
                              hint="commits made with `msd_run commit --plan` are recorded")
    files = sorted({f for c in commits for f in c["files"]})
    return {"target": target, "plans": [r.get("plan") for _p, r in records], "commits": commits, "files": files,
            "show": "git show --stat --patch " + " ".join(c["hash"][:12] for c in commits)}
