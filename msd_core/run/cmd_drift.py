"""`msd_run drift [--json|--text] [--check]` and `msd_run drift accept <commit> --reason "..."`.

Rules in msd_core.execution.drift (docs/CONTRACTS.md, "Drift"). JSON {head, since, commits_read,
accepted, findings: [{kind, message, command, commands, ...}], count, clean, notes?} by default;
`--text` one line per finding and a tally line. Exit 0; with `--check`, exit 1 while a finding is
unresolved (for CI or a pre-push hook). `accept` records the commit with its reason in the
committed `.planning/drift-accepted.md`. Standard library only.
"""

from __future__ import annotations

import argparse
import sys

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("verb", nargs="?", choices=["accept"], metavar="accept", help="accept: record a commit as reviewed")
    parser.add_argument("commit", nargs="?", help="with accept: the commit (hash or any name git resolves)")
    parser.add_argument("--reason", help="with accept: why the commit is accepted (recorded)")
    out = parser.add_mutually_exclusive_group()
    options.json(out, default=True)
    out.add_argument("--text", action="store_true", help="one line per finding, then a tally line")
    parser.add_argument("--check", action="store_true", help="exit 1 while drift is unresolved")
    options.cwd(parser)


def run(args: argparse.Namespace):
    from msd_core.errors import UsageError
    from msd_core.execution import drift
    from msd_core.git.repo_files import main_project
    from msd_core.planning.project import project_root

    root = project_root(args.cwd)  # the working tree: its HEAD and its .planning/ (a linked worktree's own)
    if args.verb == "accept":
        if not args.commit:
            raise UsageError("drift accept needs a commit: `msd_run drift accept <commit> --reason \"...\"`")
        if args.check or args.text:
            raise UsageError("--check and --text go with `msd_run drift`, not with accept")
        return drift.accept(root, args.commit, args.reason or "")
    if args.commit or args.reason is not None:
        raise UsageError("a commit and --reason go with `msd_run drift accept`")
    result = drift.drift(root, main_project(root))
    code = 1 if args.check and not result["clean"] else 0
    if args.text:
        sys.stdout.write(drift.text_lines(result))
        return code
    if code == 0:
        return result
    from msd_core.run.answer import with_code

    return with_code(result, code)
