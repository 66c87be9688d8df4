"""`msd_run verify <phase> [--json] [--no-write [--no-tests]] [--fresh]`: verification decided by code (rules in msd_core.execution.verify).

Checks every must-have artifact (exists, not a stub), every key link (its pattern matches in the
linking file), that every phase requirement is covered by a plan, and that the project's tests
pass on the tree checked out now (the regression gate: a run recorded for exactly this tree is
reused, else the suite runs; `--fresh` always runs it; `--no-tests`, only with `--no-write`, leaves
the tests out: a reading of the other checks and the UAT that never runs the suite); writes the machine part of
`<NN>-VERIFICATION.md` (not with `--no-write`). One line per failed check and a result line;
`--json` prints {phase, phase_dir, result, checked, failed, checks, notes, gate, file, uat}.
Exit 0 passed, 1 a check failed, 2 bad usage (a reference naming no phase folder).
"""

from __future__ import annotations

import argparse
import json
import sys

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("phase", help="phase number or folder (2, 02, 02-auth)")
    options.json(parser, default=False)
    parser.add_argument("--no-write", action="store_true", help="check only; leave VERIFICATION.md as it is")
    parser.add_argument("--fresh", action="store_true",
                        help="run the test suite even when a gate run on this exact tree is recorded")
    parser.add_argument("--no-tests", action="store_true",
                        help="with --no-write: leave the tests out (nothing runs; the result does not judge them)")
    options.cwd(parser)


def run(args: argparse.Namespace) -> int:
    from msd_core.errors import UsageError
    from msd_core.execution import phase_files, verify
    from msd_core.planning.project import project_root

    if args.no_tests and not args.no_write:
        raise UsageError("--no-tests needs --no-write: a VERIFICATION.md is never written without the tests",
                         hint="drop --no-tests; a gate run recorded for this exact tree is reused, not run again")
    if args.no_tests and args.fresh:
        raise UsageError("--no-tests and --fresh contradict each other")
    root = project_root(args.cwd)
    files = phase_files.load(root, args.phase)
    result = verify.verify(files, gate=not args.no_tests, fresh=args.fresh)
    result["uat"] = phase_files.uat(files)
    if not args.no_write:
        result["file"] = phase_files.rel_to(verify.write(files, result), root)
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        for note in result["notes"]:
            sys.stdout.write(f"note {note}\n")
        said = result.get("gate") or {}
        if said.get("source"):
            sys.stdout.write(f"tests {said['status']} ({said['source']} {said['command']})\n")
        for c in result["checks"]:
            if c["result"] == "failed":
                sys.stdout.write(f"failed {c['check']} {c['subject']}: {c['detail']}\n")
        sys.stdout.write(f"verify {result['phase_dir']}: {result['result']} ({result['checked'] - result['failed']}/"
                         f"{result['checked']} checks ok)" + (f"; wrote {result['file']}" if result.get("file") else "") + "\n")
    return 1 if result["result"] == "failed" else 0

