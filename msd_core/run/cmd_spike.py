"""`msd_run spike start|finish|list`: a throwaway experiment on its own branch, its finding kept.

    msd_run spike start "<question>" [--slug <s>]
    msd_run spike finish <slug> --finding <path>|- --verdict works|fails|partly|inconclusive --branch keep|remove
    msd_run spike list

Rules in msd_core.review.spikes. start: JSON {slug, question, branch, base, start, switched_to}.
finish: JSON {slug, file, verdict, branch, branch_kept, tip, commits, files, switched_to,
commit_files}. Exit 1: not a git checkout, detached HEAD, uncommitted changes, a slug or
branch in use, no such open spike, the injection screen refused the finding; 2: bad usage or
an empty finding; 4: lock timeout.
"""

from __future__ import annotations

import argparse

from msd_core.run import options
from msd_core.run.inputs import MAX_NOTE_BYTES


def configure(parser: argparse.ArgumentParser) -> None:
    subs = parser.add_subparsers(dest="verb", required=True, metavar="start|finish|list")

    def common(p):
        options.cwd(p)
        options.json_errors(p, hidden=True)
        return p

    p = common(subs.add_parser("start", help="branch spike/<slug> off HEAD and switch to it"))
    p.add_argument("question", help="what the experiment should find out")
    p.add_argument("--slug")
    p = common(subs.add_parser("finish", help="record the finding, switch back, keep or remove the branch"))
    p.add_argument("slug")
    p.add_argument("--finding", required=True, metavar="PATH", help="the finding, markdown (`-`: stdin)")
    p.add_argument("--verdict", required=True, choices=("works", "fails", "partly", "inconclusive"))
    p.add_argument("--branch", dest="branch_choice", required=True, choices=("keep", "remove"))
    common(subs.add_parser("list", help="open and finished spikes"))


def run(args: argparse.Namespace):
    from pathlib import Path

    from msd_core.planning.project import project_root
    from msd_core.review import spikes

    root = project_root(args.cwd)
    if args.verb == "start":
        return spikes.start(root, args.question, args.slug)
    if args.verb == "list":
        return spikes.list_spikes(root)
    from msd_core.run.inputs import drop_draft, read_input, screen

    base = Path(args.cwd or ".").expanduser().absolute()
    raw = read_input(args.finding, "--finding", MAX_NOTE_BYTES, base)
    out = spikes.finish(root, args.slug, raw, args.verdict, args.branch_choice, screen=screen())
    drop_draft(args.finding, base, root)
    return out
