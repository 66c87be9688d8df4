"""`msd_run forensics [--text] [--write] [--no-usage] [--config-dir DIR]`: after a failed or stuck run,
what msd recorded and where it went wrong (msd_core.reports.forensics: the findings, their order and
codes). `--write` also writes the text to .planning/forensics/<stamp>.md (atomically) and adds
"written". Exit 0 nothing went wrong, 1 a finding, 2 bad usage (no project).
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    from msd_core.run.report_args import configure as shared

    shared(parser, text="the report as Markdown", write="write it to .planning/forensics/<stamp>.md", usage=True)


def run(args: argparse.Namespace):
    import json
    import sys

    from msd_core.planning import project
    from msd_core.reports import forensics
    from msd_core.run.report_args import config_dir

    root = project.project_root(args.cwd)
    out = forensics.investigate(root, config=config_dir(args), usage=not args.no_usage)
    if args.write:
        out["written"] = forensics.write(root, out)
    sys.stdout.write(forensics.text(out) if args.text else json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n")
    return 1 if out["findings"] else 0
