"""`msd_run agent-skills AGENT [--root DIR] [--raw] [--cwd DIR]`.

The skill payload an orchestrator appends when it spawns AGENT. Default JSON
{"agent", "compact", "variant", "path", "text"}; --raw prints the payload text.
"""

from __future__ import annotations

from msd_core.run import options


def configure(parser) -> None:
    parser.add_argument("agent", help="a shipped agent name, e.g. executor")
    options.root(parser)
    options.raw(parser, what="the payload text")
    options.cwd(parser)


def run(args):
    from msd_core.agents.skills import agent_skills
    from msd_core.resolve import trace

    payload = agent_skills(args.agent, args.root, args.cwd)
    trace.record(payload.layers, "agent-skills", "agent", payload.agent, payload.compact,
                 [payload.path] if payload.path else [])
    if args.raw:
        return payload.text
    return payload.to_json()
