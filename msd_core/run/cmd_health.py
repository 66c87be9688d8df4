"""`msd_run health [--repair [--dry-run]]`: what in `.planning/` is inconsistent, one code per finding.

JSON {"project", "status", "counts", "codes", "repairable", "findings": [{"code", "severity", "file",
"message"[, "repair"][, "next"]}]}; with --repair also "repair": {"dry_run", "planned" | "repaired", "written",
"deleted"[, "state"]}, and the findings are those left after the repair. The codes and what each
repair does: msd_core.health.codes, msd_core.health.repair. `--text`: one line per finding.
Exit 0 no error or warning (left), 1 an error or warning is (left), 2 bad usage, 4 lock timeout.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--repair", action="store_true", help="fix what is safe to fix, in one transaction")
    options.dry_run(parser)
    from msd_core.run.report_args import configure as shared

    shared(parser, text="one line per finding")


def run(args: argparse.Namespace):
    import json
    import sys

    from msd_core.errors import UsageError
    from msd_core.health import check, repair
    from msd_core.planning import project

    if args.dry_run and not args.repair:
        raise UsageError("--dry-run goes with --repair")
    root = project.project_root(args.cwd)
    out = repair.repair(root, dry_run=args.dry_run) if args.repair else check.report(root, check.findings(root))
    if args.text:
        lines = [f"{out['status']}: {out['counts']['error']} errors, {out['counts']['warning']} warnings, "
                 f"{out['counts']['info']} info ({out['repairable']} repairable)"]
        lines += [f"{f['severity']:7} {f['code']:28} {f['file'] or '-'}: {f['message']}"
                  + (f" (next: {f['next']})" if f.get("next") else "") for f in out["findings"]]
        for item in out.get("repair", {}).get("planned", out.get("repair", {}).get("repaired", [])):
            lines.append(f"repair  {item['code']:28} {item['file'] or '-'}: {item['action']}")
        sys.stdout.write("\n".join(lines) + "\n")
    else:
        sys.stdout.write(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n")
    return 0 if out["status"] == "healthy" else 1
