"""The options the report commands share (health, stats, milestone-summary, forensics): JSON by
default or `--text`, the project folder, optionally `--write` and the usage meter's switches."""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser, *, text: str, write: str | None = None, usage: bool = False) -> None:
    options.json(parser, default=True)
    parser.add_argument("--text", action="store_true", help=f"{text} instead of JSON")
    if write:
        parser.add_argument("--write", action="store_true", help=write)
    if usage:
        parser.add_argument("--no-usage", action="store_true", help="do not read the host's session transcripts")
        parser.add_argument("--config-dir", metavar="DIR", help="Claude Code's config folder (default: ~/.claude)")
    options.cwd(parser)


def config_dir(args: argparse.Namespace):
    """The `--config-dir` given, as a Path, or None (the usage meter's default)."""
    from pathlib import Path

    return Path(args.config_dir).expanduser() if args.config_dir else None
