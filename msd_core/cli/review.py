"""`msd security accept`, `msd ui accept`: a person accepts recorded review findings as risks.

An accepted finding stops being a gap (`gaps_found` can become `secured`, or `passed` for a UI
review), so accepting is the person's act: msd_run, the agent's runtime, refuses `security record
--accept` and `ui record --accept` and names these commands (msd_core/run/cmd_security.py). The
review must be recorded already (`msd_run security|ui record --findings ...`); each ID must be an
open finding of it.
"""

from __future__ import annotations

from typing import List, Optional

import typer

from msd_core.cli.common import errors_to_exit, group, report

# review: (its group's help, an example of its finding ids)
REVIEWS = {"security": ("A phase's security review: the person's decisions on it.", "S1, S2, ..."),
           "ui": ("A phase's UI review: the person's decisions on it.", "V1, V2, ...")}


def register(app: typer.Typer) -> None:
    for kind, (group_help, examples) in REVIEWS.items():
        group(app, kind, group_help).command("accept")(errors_to_exit(accept_command(kind, examples)))


def accept_command(kind: str, examples: str):
    """The `msd <kind> accept` command: the findings of that review accepted as risks."""

    def accept(
        ids: List[str] = typer.Argument(..., metavar="ID...", help=f"The findings to accept as risks ({examples})."),
        phase: str = typer.Option(..., "--phase", metavar="N", help="The phase (2, 02, 02-auth)."),
        reason: str = typer.Option(..., "--reason", metavar="TEXT", help="Why the risk is acceptable (kept in the review)."),
        block_on: str = typer.Option("high", "--block-on", metavar="SEVERITY",
                                     help="The lowest severity of an open finding that is a gap (default: high)."),
        json_output: bool = typer.Option(False, "--json", help="Print the result as JSON."),
        cwd: Optional[str] = typer.Option(None, "--cwd", metavar="DIR", help="Project folder (default: the current folder)."),
    ) -> None:
        from msd_core.run.cmd_security import accept as accept_findings

        data = accept_findings(cwd, phase, ids, reason, block_on, kind)
        report(f"{kind} accept", data, json_output,
               f"accepted {', '.join(data['accepted'])} in {data['file']}: status {data['status']}"
               + (f", gaps left: {', '.join(data['gaps'])}" if data["gaps"] else ""))

    accept.__doc__ = f"Accept recorded {'security' if kind == 'security' else 'UI review'} findings as risks, with your reason."
    return accept
