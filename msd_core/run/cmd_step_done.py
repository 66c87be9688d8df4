"""`msd_run step-done`: record a flow step's result and advance (`msd_run next-step` gave the step).

    msd_run step-done --workflow plan-phase --step load-context --result '{"phase": "02", "phase_dir": "02-auth"}'
    -> {"recorded": "load-context", "next_step": "research", "status": "running", "next": {...}}

The logic lives in msd_core.flows (service, engine, schema); this module only parses.
"""

from __future__ import annotations

import argparse

from msd_core.run.cmd_next_step import flow_options, open_flow


def configure(parser: argparse.ArgumentParser) -> None:
    flow_options(parser)
    parser.add_argument("--step", required=True, metavar="ID", help="the step just finished (must be the current one)")
    parser.add_argument("--result", metavar="JSON",
                        help="the step's result as a JSON object; `-` reads it from stdin (no shell quoting needed)")


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


def run(args) -> dict:
    service, ctx = open_flow(args)
    return service.step_done(ctx, args.step, read_result_arg(args.result), args.var)
