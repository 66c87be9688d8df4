"""`msd_run validate <phase> [--json] [--write]`: the tests that exercise a phase's requirements and must-haves.

Rules in msd_core.execution.validate (docs/CONTRACTS.md "msd_run validate"). Prints one line
per item (`covered` with its tests, `gap` with why), or with `--json` the report. `--write`
also writes the machine part of the phase's `<NN>-VALIDATION.md` (execution.validation_doc).
Exit 0 every item covered, 1 gaps (or the gate's latest run failed), 2 bad usage or an unknown phase.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("phase", metavar="PHASE", help="the phase (2, 02, 2.1, 02-auth)")
    options.json(parser, default=False)
    parser.add_argument("--write", action="store_true", help="write the machine part of <NN>-VALIDATION.md")
    options.cwd(parser)


def _text(report: dict) -> str:
    c = report["counts"]
    lines = [f"phase {report['phase']['phase']}: {c['covered']} of {c['items']} covered, {c['gaps']} gaps "
             f"({c['test_files']} test files)"]
    for it in report["items"]:
        if it["status"] == "covered":
            where = "; ".join(e["file"] + (f" ({', '.join(e['names'][:3])})" if e["names"] else "") for e in it["tests"][:3])
            lines.append(f"  covered  {it['id']}: {where}")
        else:
            lines.append(f"  gap      {it['id']}: {it['reason']}")
    lines += [f"  {f['code']}: {f['message']}" for f in report["findings"]]
    lines += [f"  skipped  {s['file']}: {s['reason']}" for s in report["skipped"][:10]]
    if report.get("written"):
        lines.append(f"  {'wrote' if report['changed'] else 'unchanged'} {report['written']}")
    return "\n".join(lines)


def run(args: argparse.Namespace):
    import json
    import sys

    from msd_core.execution import validate, validation_doc
    from msd_core.planning import project

    root = project.project_root(args.cwd)
    report = validate.validate(root, args.phase)
    if args.write:
        report["written"], report["changed"] = validation_doc.write(root, report)
    if args.json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        sys.stdout.write(_text(report) + "\n")
    return 0 if report["ok"] else 1
