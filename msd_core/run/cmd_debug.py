"""`msd_run debug start|list|resume|close`: the life of `.planning/debug/<slug>.md` sessions.

    msd_run debug start "<symptom>" [--slug <s>] [--mode diagnose|fix] [--source <where>]
    msd_run debug list [--all]
    msd_run debug resume [<slug>]
    msd_run debug close <slug> --as resolved|abandoned

`close` also prints `commit_files`: the paths a commit of the closing names (the closed file,
and the open one's old path when git had it). Rules in msd_core.planning.debug_sessions. Exit 1: no open session / closing as resolved
without a proven root cause; 2: bad slug or usage; 4: lock timeout.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    subs = parser.add_subparsers(dest="verb", required=True, metavar="start|list|resume|close")

    def common(p):
        options.cwd(p)
        options.json_errors(p, hidden=True)
        return p

    p = common(subs.add_parser("start", help="open a session for a symptom"))
    p.add_argument("symptom")
    p.add_argument("--slug")
    p.add_argument("--mode", default="diagnose", help="diagnose (default) or fix")
    p.add_argument("--source", help="where the symptom came from (a UAT gap, an issue)")
    p = common(subs.add_parser("list", help="open sessions, newest first"))
    p.add_argument("--all", action="store_true", help="also closed ones")
    p = common(subs.add_parser("resume", help="the named or newest open session"))
    p.add_argument("slug", nargs="?")
    p = common(subs.add_parser("close", help="close as resolved or abandoned"))
    p.add_argument("slug")
    p.add_argument("--as", dest="outcome", required=True, help="resolved or abandoned")


def run(args: argparse.Namespace):
    from msd_core.planning import debug_sessions as ds
    from msd_core.planning.project import project_root

    root = project_root(args.cwd)
    if args.verb == "start":
        from msd_core.run.inputs import refuse_injected_words

        refuse_injected_words(root, "debug/", args.symptom, args.source)
        return ds.start(root, args.symptom, args.slug, args.mode, args.source)
    if args.verb == "list":
        return {"sessions": ds.list_sessions(root, args.all)}
    if args.verb == "resume":
        return ds.resume(root, args.slug)
    out = ds.close(root, args.slug, args.outcome)
    from msd_core.git.runner import commit_paths

    out["commit_files"] = commit_paths(root, [out["file"]], [f".planning/debug/{args.slug}.md"])
    return out
