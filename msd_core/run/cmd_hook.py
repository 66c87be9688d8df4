"""`msd_run hook <event> [--root DIR]`: what msd does when Claude Code calls one of its hooks.

Events: session-start, pre-compact, post-tool-use (msd_core/hooks/events.py), and `probe`
(prints `ok`: `msd status` checks the host can start msd's hooks). The host's JSON arrives on
stdin; the answer (if any) is printed on stdout; the exit code is always 0.
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("event", help="the hook event: session-start, pre-compact, post-tool-use, probe")
    parser.add_argument("--root", metavar="DIR", help="the installed msd-core folder (the install names it)")


def run(args):
    import sys

    from msd_core.hooks.events import run as run_hook

    out, code = run_hook(args.event, args.root)
    if out:
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return code
