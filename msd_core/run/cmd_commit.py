"""`msd_run commit`: commit exactly the named paths (rules in msd_core.execution.commit).

    msd_run commit -m "<msg>" [--plan <plan-path>] [--task <n>] [--deviation "<why>"] --files <path>...
    msd_run commit -m "<msg>" [--plan <plan-path>] ... -- <path>...
    msd_run commit --plan <plan-path> --list      the plan's run record (commits, tasks_done)

Prints {"committed", "hash", "short", "files", "branch", "worktree", "skipped_docs", "record"}.
Exit 0 committed (or nothing to commit because commit_docs is false); 1 refused (a path
outside the plan, nothing changed, git failed); 2 bad usage or a bad path; 4 lock timeout.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    options.cwd(parser)
    parser.add_argument("-m", "--message", metavar="MSG", help="commit message: <type>(<scope>): <what>")
    parser.add_argument("--plan", metavar="PLAN", help="the PLAN.md the commit belongs to (scopes the paths, records the commit)")
    parser.add_argument("--task", metavar="N", help="the plan's task number this commit finishes or advances")
    parser.add_argument("--deviation", metavar="WHY", help="allow paths outside the plan's files; the reason is recorded")
    parser.add_argument("--files", nargs="+", default=[], metavar="PATH", help="the paths to commit")
    parser.add_argument("--list", action="store_true", help="print the plan's run record instead of committing")
    parser.add_argument("paths", nargs="*", metavar="PATH", help="paths after `--`")


def run(args: argparse.Namespace):
    from pathlib import Path

    from msd_core.errors import UsageError
    from msd_core.execution import commit as sc

    cwd = Path(args.cwd).expanduser() if args.cwd else Path.cwd()
    if args.cwd and not cwd.is_dir():
        raise UsageError(f"--cwd {args.cwd} is not a directory")
    if args.list:
        if not args.plan:
            raise UsageError("--list needs --plan <plan-path>")
        return sc.plan_record(cwd=cwd, plan=args.plan)
    task = None
    if args.task is not None:
        if not args.task.strip().isdigit() or int(args.task) < 1:
            raise UsageError(f"--task {args.task!r}: a task number, 1 or more")
        task = int(args.task)
    return sc.scoped_commit(cwd=cwd, message=args.message or "", paths=list(args.files) + list(args.paths),
                            plan=args.plan, deviation=args.deviation, task=task)
