"""`msd_run memory`: index the project's recorded summaries and query them precisely."""

from __future__ import annotations

import argparse

from msd_core.run import options

MAX_LIMIT = 1000

QUERIES = ("search", "what-uses", "pattern-for", "decisions-affecting")
TYPES = ("any", "model", "file", "api", "lib")


def configure(parser: argparse.ArgumentParser) -> None:
    from msd_core.run.argtypes import count

    limit = count(1, MAX_LIMIT, "--limit")
    subs = parser.add_subparsers(dest="verb", required=True, metavar="index|search|what-uses|pattern-for|decisions-affecting")

    def common(p):
        options.cwd(p)
        options.json_errors(p, hidden=True)

    common(subs.add_parser("index", help="index SUMMARY/CONTEXT/RESEARCH/VERIFICATION files (incremental)"))
    p = subs.add_parser("search", help="full-text search, ranked with bm25")
    p.add_argument("text")
    p.add_argument("--limit", type=limit, default=10)
    common(p)
    p = subs.add_parser("what-uses", help="what declares or uses SYMBOL (whole word; case-sensitive when it has capitals)")
    p.add_argument("symbol")
    p.add_argument("--type", choices=TYPES, default="any", help="which facts to look in")
    p.add_argument("--limit", type=limit, default=10)
    common(p)
    p = subs.add_parser("pattern-for", help="patterns and conventions recorded for DOMAIN")
    p.add_argument("domain")
    p.add_argument("--limit", type=limit, default=10)
    common(p)
    p = subs.add_parser("decisions-affecting", help="decisions recorded for SUBSYSTEM")
    p.add_argument("subsystem")
    p.add_argument("--limit", type=limit, default=20)
    common(p)


def run(args: argparse.Namespace):
    import sqlite3

    from msd_core.memory.db import corrupt, failure
    from msd_core.memory.store import db_path, refresh
    from msd_core.planning.project import project_root

    project = project_root(args.cwd)
    if args.verb == "index":
        conn, report = refresh(project)
        conn.close()
        return {"project": str(project), **report.to_json()}
    # A query checks the database cheaply; a corruption error then gets the full check
    # (which rebuilds a damaged file) and the query runs once more.
    conn, report = refresh(project, full_check=False)
    try:
        try:
            result = _query(conn, args, report)
        except sqlite3.DatabaseError as exc:
            if not corrupt(exc):
                raise
            conn.close()
            conn, report = refresh(project, full_check=True)
            if not report.rebuilt:
                raise
            result = _query(conn, args, report)
        return result
    except sqlite3.Error as exc:
        raise failure(exc, db_path(project)) from None
    finally:
        conn.close()


def _query(conn, args: argparse.Namespace, report) -> dict:
    """One query in one read transaction: every statement sees the same index, whole, even
    while another process re-indexes (it waits for the transaction to end)."""
    conn.execute("BEGIN")
    try:
        return _answer(conn, args, report)
    finally:
        conn.rollback()


def _answer(conn, args: argparse.Namespace, report) -> dict:
    from msd_core.memory import query

    if args.verb == "search":
        hits = query.search(conn, args.text, args.limit)
        term = args.text
    elif args.verb == "what-uses":
        hits = query.what_uses(conn, args.symbol, args.type, args.limit)
        term = args.symbol
    elif args.verb == "pattern-for":
        hits = query.pattern_for(conn, args.domain, args.limit)
        term = args.domain
    else:
        hits = query.decisions_affecting(conn, args.subsystem, args.limit)
        term = args.subsystem
    out = {"query": args.verb, "term": term, "reindexed": len(report.indexed), "hits": hits}
    if report.rebuilt:
        out["rebuilt"] = report.rebuilt
    return out
