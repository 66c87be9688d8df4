"""`msd_run model <agent> [--raw]`: the model to pass when spawning an agent (rules in msd_core.agents.models).

JSON {"agent", "role", "profile", "model"} (model null for `inherit`); `--raw` prints the
model name, or an empty line when no model is to be passed. Exit 2 for an unknown agent.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("agent", help="planner, executor, ... (with or without the msd- prefix)")
    options.raw(parser, what="the bare model name (empty: pass none)")
    options.cwd(parser)


def run(args: argparse.Namespace):
    from msd_core.agents.models import model_for, role_of
    from msd_core.config import store

    role = role_of(args.agent)
    profile = str(store.get_value("model_profile", args.cwd))
    model = model_for(profile, role)
    if args.raw:
        return (model or "") + "\n"
    return {"agent": f"msd-{role}", "role": role, "profile": profile, "model": model}
