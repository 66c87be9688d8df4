"""`msd_run agent-role AGENT [--root DIR] [--raw]`.

The role of AGENT (its installed agent file's instructions) for a host agent spawned in its
place (a core install lists no msd agent to the model). Default JSON {"agent", "path", "text"};
--raw prints the text.
"""

from __future__ import annotations

from msd_core.run import options


def configure(parser) -> None:
    parser.add_argument("agent", help="an installed agent name, e.g. planner")
    options.root(parser)
    options.raw(parser, what="the role text")


def run(args):
    from msd_core.agents.role import agent_role

    path, text = agent_role(args.agent, args.root)
    if args.raw:
        return text
    return {"agent": args.agent, "path": path, "text": text}
