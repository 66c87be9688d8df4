"""`msd_run explore record|list`: questions answered into a note, no plans.

    msd_run explore record --topic "<topic>" --note <path>|- [--slug <s>]
    msd_run explore list

Rules in msd_core.review.explore_notes. record: JSON {file, topic, cites, not_found?,
commit_files}. Exit 2: an empty or oversized note, a `path:line` citation that is not in the
project; 1: the injection screen refused the note; 4: lock timeout.
"""

from __future__ import annotations

import argparse

from msd_core.run import options
from msd_core.run.inputs import MAX_NOTE_BYTES


def configure(parser: argparse.ArgumentParser) -> None:
    subs = parser.add_subparsers(dest="verb", required=True, metavar="record|list")

    def common(p):
        options.cwd(p)
        options.json_errors(p, hidden=True)
        return p

    p = common(subs.add_parser("record", help="save an exploration note to .planning/explorations/"))
    p.add_argument("--topic", required=True, help="what was explored, one line")
    p.add_argument("--note", required=True, metavar="PATH", help="the note, markdown (`-`: stdin)")
    p.add_argument("--slug")
    common(subs.add_parser("list", help="the exploration notes"))


def run(args: argparse.Namespace):
    from pathlib import Path

    from msd_core.planning.project import project_root
    from msd_core.review import explore_notes

    root = project_root(args.cwd)
    if args.verb == "list":
        return explore_notes.list_notes(root)
    from msd_core.run.inputs import drop_draft, read_input, screen

    base = Path(args.cwd or ".").expanduser().absolute()
    raw = read_input(args.note, "--note", MAX_NOTE_BYTES, base)
    out = explore_notes.record(root, args.topic, raw, args.slug, screen=screen())
    drop_draft(args.note, base, root)
    return out
