"""`msd_run next-step`: the next step of a workflow's flow (`msd_run step-done` records its result).

    msd_run next-step --workflow plan-phase --var phase=02
    -> {"step": "load-context", "action": "run", "prompt": "...", "context_files": ["/abs/..."],
        "expects": {"fields": {"phase": "string", "phase_dir": "string"}}, ...}

The logic lives in msd_core.flows (service, engine, schema); this module only parses.
`flow_options` and `open_flow` serve step-done too (msd_core/run/cmd_step_done.py).
"""

from __future__ import annotations

import argparse

from msd_core.run import argtypes, options


def flow_options(parser: argparse.ArgumentParser) -> None:
    """What both flow commands take: the flow, its state file, where it is installed, the project, its inputs."""
    parser.add_argument("--workflow", required=True, metavar="NAME", help="the flow to drive, e.g. plan-phase")
    parser.add_argument("--state-file", metavar="PATH", help="flow state file (default .planning/state.json)")
    options.root(parser)
    parser.add_argument("--flows-dir", metavar="DIR",
                        help="development option: read <DIR>/<NAME>.toml instead of the install (unverified)")
    options.cwd(parser)
    parser.add_argument("--var", action="append", metavar="NAME=VALUE", default=[], type=argtypes.name_value,
                        help="a flow input, e.g. phase=02 (repeatable)")


def configure(parser: argparse.ArgumentParser) -> None:
    flow_options(parser)
    parser.add_argument("--restart", action="store_true", help="forget the stored run of this workflow and start over")


def open_flow(args):
    """(msd_core.flows.service, the flow opened for the command's arguments)."""
    from msd_core.flows import service

    return service, service.open_flow(args.workflow, cwd=args.cwd, state_file_arg=args.state_file,
                                      root=args.root, flows_dir=args.flows_dir)


def run(args) -> dict:
    service, ctx = open_flow(args)
    return service.next_step(ctx, args.var, restart=args.restart)
