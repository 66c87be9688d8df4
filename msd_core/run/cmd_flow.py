"""`msd_run next-step` and `msd_run step-done`: drive a workflow's flow one step at a time.

    msd_run next-step --workflow plan-phase --var phase=02
    -> {"step": "load-context", "action": "run", "prompt": "...", "context_files": ["/abs/..."],
        "expects": {"fields": {"phase": "string", "phase_dir": "string"}}, ...}
    msd_run step-done --workflow plan-phase --step load-context --result '{"phase": "02", "phase_dir": "02-auth"}'
    -> {"recorded": "load-context", "next_step": "research", "status": "running", "next": {...}}

The logic lives in msd_core.flows (service, engine, schema); this module only parses.
"""

from __future__ import annotations

import argparse


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workflow", required=True, metavar="NAME", help="the flow to drive, e.g. plan-phase")
    parser.add_argument("--state-file", metavar="PATH", help="flow state file (default .planning/state.json)")
    parser.add_argument("--root", metavar="DIR", help="the installed msd-core folder (default: the global install)")
    parser.add_argument("--flows-dir", metavar="DIR",
                        help="development option: read <DIR>/<NAME>.toml instead of the install (unverified)")
    parser.add_argument("--cwd", metavar="DIR", help="the project folder (default: the current directory)")
    parser.add_argument("--var", action="append", metavar="NAME=VALUE", default=[],
                        help="a flow input, e.g. phase=02 (repeatable)")


def configure_next_step(parser: argparse.ArgumentParser) -> None:
    _common(parser)
    parser.add_argument("--restart", action="store_true", help="forget the stored run of this workflow and start over")


def configure_step_done(parser: argparse.ArgumentParser) -> None:
    _common(parser)
    parser.add_argument("--step", required=True, metavar="ID", help="the step just finished (must be the current one)")
    parser.add_argument("--result", metavar="JSON",
                        help="the step's result as a JSON object; `-` reads it from stdin (no shell quoting needed)")


def configure(parser: argparse.ArgumentParser) -> None:  # pragma: no cover - dispatch uses the named ones
    configure_next_step(parser)


def _open(args):
    from msd_core.flows import service

    return service, service.open_flow(args.workflow, cwd=args.cwd, state_file_arg=args.state_file,
                                      root=args.root, flows_dir=args.flows_dir)


def run_next_step(args) -> dict:
    service, ctx = _open(args)
    return service.next_step(ctx, args.var, restart=args.restart)


def read_result_arg(value: str | None) -> str | None:
    """`--result -`: the JSON comes from stdin, read up to one byte past the size limit
    (the engine refuses anything larger with its usual message)."""
    if value != "-":
        return value
    import sys

    from msd_core.errors import UsageError
    from msd_core.flows.engine import MAX_RESULT_BYTES

    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("--result -: pipe the JSON on stdin (nothing is piped)")
    data = sys.stdin.buffer.read(MAX_RESULT_BYTES + 1)
    if not data.strip():
        raise UsageError("--result -: stdin is empty; pipe the step's result as a JSON object")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError("--result -: stdin is not UTF-8 text") from None


def run_step_done(args) -> dict:
    service, ctx = _open(args)
    return service.step_done(ctx, args.step, read_result_arg(args.result), args.var)


def run(args):  # pragma: no cover - dispatch uses the named ones
    return run_next_step(args)
