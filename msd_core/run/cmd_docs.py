"""`msd_run docs drift [--check]`: the project's docs the current milestone left behind.

Rules in msd_core.review.docs_drift. JSON {documents, changed_files, stale: [{path, stale,
broken, changed, updated_in_milestone}], current, notes?}. Exit 0; with --check, exit 1 while
a document is stale.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    subs = parser.add_subparsers(dest="verb", required=True, metavar="drift")
    p = subs.add_parser("drift", help="documents that name changed or missing files")
    p.add_argument("--check", action="store_true", help="exit 1 while a document is stale")
    options.cwd(p)
    options.json_errors(p, hidden=True)


def run(args: argparse.Namespace):
    from msd_core.planning.project import project_root
    from msd_core.review import docs_drift

    out = docs_drift.drift(project_root(args.cwd))
    if args.check and out["stale"]:
        from msd_core.run.answer import with_code

        return with_code(out, 1)
    return out
