"""The options the report commands share (health, stats, milestone-summary, forensics): JSON by
default or `--text`, the project folder, optionally `--write` and the usage meter's switches."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser, *, text: str, write: str | None = None, usage: bool = False) -> None:
    parser.add_argument("--json", action="store_true", help="JSON output (the default)")
    parser.add_argument("--text", action="store_true", help=f"{text} instead of JSON")
    if write:
        parser.add_argument("--write", action="store_true", help=write)
    if usage:
        parser.add_argument("--no-usage", action="store_true", help="do not read the host's session transcripts")
        parser.add_argument("--config-dir", metavar="DIR", help="Claude Code's config folder (default: ~/.claude)")
    parser.add_argument("--cwd", metavar="DIR", help="project folder (default: current directory)")


def config_dir(args: argparse.Namespace):
    """The `--config-dir` given, as a Path, or None (the usage meter's default)."""
    from pathlib import Path

    return Path(args.config_dir).expanduser() if args.config_dir else None
