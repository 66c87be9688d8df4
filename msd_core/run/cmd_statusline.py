"""`msd_run statusline [--root DIR]`: the status line Claude Code shows (msd_core/hooks/statusline.py).

Reads the host's JSON on stdin, prints one short line, exit 0 whatever happens (a status line
that fails shows nothing useful; `msd` alone is printed instead).
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    options.root(parser, default="the one the install names")


def run(args):
    import os
    import sys

    from msd_core.hooks.payload import absolute_root, read_payload

    try:
        from msd_core.hooks.statusline import line

        payload = read_payload()
        text = line(payload, absolute_root(args.root, payload))
    except Exception as exc:  # noqa: BLE001 - the status line never fails
        if os.environ.get("MSD_DEBUG"):
            raise
        sys.stderr.write(f"msd_run statusline: {type(exc).__name__}: {str(exc)[:200]}\n")
        text = "msd"
    from msd_core.lean.terminal import clean

    sys.stdout.write(clean(text).replace("\n", " ").replace("\t", " ") + "\n")  # one line, nothing for the terminal to run
    return 0
