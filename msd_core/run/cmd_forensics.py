"""`msd_run forensics [--text] [--write] [--no-usage] [--config-dir DIR]`: after a failed or stuck run,
what msd recorded and where it went wrong (msd_core.reports.forensics: the findings, their order and
codes). `--write` also writes the text to .planning/forensics/<stamp>.md (atomically) and adds
"written". Exit 0 nothing went wrong, 1 a finding, 2 bad usage (no project).
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="JSON output (the default)")
    parser.add_argument("--text", action="store_true", help="the report as Markdown instead of JSON")
    parser.add_argument("--write", action="store_true", help="write it to .planning/forensics/<stamp>.md")
    parser.add_argument("--no-usage", action="store_true", help="do not read the host's session transcripts")
    parser.add_argument("--config-dir", metavar="DIR", help="Claude Code's config folder (default: ~/.claude)")
    parser.add_argument("--cwd", metavar="DIR", help="project folder (default: current directory)")


def run(args: argparse.Namespace):
    import json
    import sys
    from pathlib import Path

    from msd_core.planning import project
    from msd_core.reports import forensics

    root = project.project_root(args.cwd)
    config = Path(args.config_dir).expanduser() if args.config_dir else None
    out = forensics.investigate(root, config=config, usage=not args.no_usage)
    if args.write:
        out["written"] = forensics.write(root, out)
    sys.stdout.write(forensics.text(out) if args.text else json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n")
    return 1 if out["findings"] else 0
