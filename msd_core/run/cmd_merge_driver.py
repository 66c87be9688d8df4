"""`msd_run merge-driver <kind> <base> <ours> <theirs> <path> [<marker-size>]`: the command git
runs to merge a planning file (registered by `msd install`; msd_core.git.merge_config).

kind: state | roadmap | requirements | claims | todos. git passes `%O %A %B %P %L`: the three
temporary files, the file's path in the work tree and the conflict-marker size. The merged
text replaces `<ours>`. Exit 0 merged, 1 conflict markers written (git's convention for a
driver); a usage error (exit 2) makes the registered command fall back to `git merge-file`.
Rules in msd_core.merging.driver. Nothing is printed on stdout; what could not be merged by
entry is named on stderr.
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    from msd_core.merging.driver import KINDS

    parser.add_argument("kind", choices=KINDS, metavar="|".join(KINDS), help="which planning file")
    parser.add_argument("base", help="git's %%O: the common ancestor's version")
    parser.add_argument("ours", help="git's %%A: ours, replaced by the result")
    parser.add_argument("theirs", help="git's %%B: theirs")
    parser.add_argument("path", help="git's %%P: the file's path in the work tree")
    parser.add_argument("marker_size", nargs="?", type=int, default=7, help="git's %%L: conflict-marker size")


def run(args: argparse.Namespace) -> int:
    from msd_core.errors import UsageError
    from msd_core.merging.driver import run as merge

    if not 1 <= args.marker_size <= 200:
        raise UsageError(f"marker size {args.marker_size} is out of range (1-200)")
    return merge(args.kind, args.base, args.ours, args.theirs, args.path, args.marker_size)
