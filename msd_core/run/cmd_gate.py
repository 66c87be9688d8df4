"""`msd_run gate ...`: the regression gate (rules in msd_core.execution.gate).

    msd_run gate detect                 propose the project's test command (never runs it)
    msd_run gate confirm --command "<cmd>"
        the user agreed: set testing.command and record the confirmation on this machine
        (`none` needs none); an unconfirmed command is never run
    msd_run gate run [--label <text>] [--timeout <s>]
        run `testing.command` with a time bound; record it under .planning/.msd/gate/.
        Exit 0 passed (or `none`: skipped); 1 failed, timed out, or no command confirmed yet.
    msd_run gate status                 the latest run and the last runs
"""

from __future__ import annotations

import argparse
import json
import sys

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    options.cwd(parser)
    sub = parser.add_subparsers(dest="action", metavar="detect|confirm|run|status", parser_class=type(parser))
    sub.required = True
    d = sub.add_parser("detect", help="propose the test command from the repository's files")
    options.cwd(d, sub=True)
    c = sub.add_parser("confirm", help="set testing.command to the command the user confirmed")
    options.cwd(c, sub=True)
    c.add_argument("--command", dest="test_command", required=True, metavar="CMD", help="the command (or none)")
    r = sub.add_parser("run", help="run the test command, record pass/fail, duration and output tail")
    options.cwd(r, sub=True)
    r.add_argument("--label", default="", metavar="TEXT", help="what the run gates, e.g. 'phase 02 wave 1'")
    r.add_argument("--timeout", type=float, metavar="SECONDS", help="time bound (default: testing.timeout_seconds)")
    s = sub.add_parser("status", help="the latest gate run")
    options.cwd(s, sub=True)


def run(args: argparse.Namespace):
    from msd_core.errors import UsageError
    from msd_core.planning import project

    root = project.project_root(getattr(args, "cwd", None))
    if args.action == "detect":
        from msd_core.config.store import get_value
        from msd_core.execution.test_command import detect

        out = detect(root)
        out["configured"] = get_value("testing.command", cwd=root)
        return out
    from msd_core.execution import gate

    if args.action == "status":
        return {"last": gate.last(root), "runs": gate.runs(root, limit=20)}
    if args.action == "confirm":
        from msd_core.config.store import set_value

        text = args.test_command.strip()
        if not text or "\n" in text or "\x00" in text:
            raise UsageError("--command is one non-empty line (or none)")
        from msd_core.execution.test_counts import no_tests_flag

        flag = no_tests_flag(text)
        if flag is not None:
            raise UsageError(f"--command {text!r} passes when no test exists ({flag}); the gate would fail it",
                             hint="drop the flag: a suite that runs no test proves nothing")
        set_value("testing.command", text, cwd=root)
        if text.lower() == "none":
            return {"command": "none", "confirmed": True}
        return gate.confirm(root, text)
    from msd_core.config.store import get_value

    timeout = args.timeout if args.timeout is not None else get_value("testing.timeout_seconds", cwd=root)
    try:
        timeout = float(timeout)
    except (TypeError, ValueError):
        raise UsageError(f"testing.timeout_seconds must be a number, found {timeout!r}") from None
    if not 0 < timeout <= 86400:
        raise UsageError("the gate's time bound must be between 1 and 86400 seconds")
    entry = gate.run_gate(root, get_value("testing.command", cwd=root), args.label, timeout)
    sys.stdout.write(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n")
    if entry["status"] in gate.PASSING:
        return 0
    if entry["status"] == "unconfirmed":
        sys.stderr.write(f"msd_run gate run: testing.command {entry['command']!r} was not confirmed on this machine "
                         "(it may come from the repository): show it to the user; if they agree, run "
                         "`msd_run gate confirm --command '<command>'`\n")
    elif entry["status"] == "unconfigured":
        sys.stderr.write("msd_run gate run: no test command confirmed (testing.command is unset): run "
                         "`msd_run gate detect`, confirm with the user, then `msd_run gate confirm --command "
                         "'<command>'` (or `none`)\n")
    else:
        why = f": {entry['reason']}" if entry.get("reason") else ""
        sys.stderr.write(f"msd_run gate run: the test suite {entry['status']} ({entry['command']}){why}; output tail "
                         "recorded in .planning/.msd/gate/last.json\n")
    return 1
