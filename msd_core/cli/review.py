"""`msd security accept`: a person accepts recorded security findings as risks.

An accepted finding stops being a gap (`gaps_found` can become `secured`), so accepting is the
person's act: msd_run, the agent's runtime, refuses `security record --accept` and names this
command (msd_core/run/cmd_security.py). The review must be recorded already
(`msd_run security record --findings ...`); each ID must be an open finding of it.
"""

from __future__ import annotations

from typing import List, Optional

import typer

from msd_core.cli.common import errors_to_exit, group, report


def register(app: typer.Typer) -> None:
    security = group(app, "security", "A phase's security review: the person's decisions on it.")

    @security.command("accept")
    @errors_to_exit
    def accept(
        ids: List[str] = typer.Argument(..., metavar="ID...", help="The findings to accept as risks (S1, S2, ...)."),
        phase: str = typer.Option(..., "--phase", metavar="N", help="The phase (2, 02, 02-auth)."),
        reason: str = typer.Option(..., "--reason", metavar="TEXT", help="Why the risk is acceptable (kept in the review)."),
        block_on: str = typer.Option("high", "--block-on", metavar="SEVERITY",
                                     help="The lowest severity of an open finding that is a gap (default: high)."),
        json_output: bool = typer.Option(False, "--json", help="Print the result as JSON."),
        cwd: Optional[str] = typer.Option(None, "--cwd", metavar="DIR", help="Project folder (default: the current folder)."),
    ) -> None:
        """Accept recorded security findings as risks, with your reason."""
        from msd_core.run.cmd_security import accept as accept_findings

        data = accept_findings(cwd, phase, ids, reason, block_on)
        report("security accept", data, json_output,
               f"accepted {', '.join(data['accepted'])} in {data['file']}: status {data['status']}"
               + (f", gaps left: {', '.join(data['gaps'])}" if data["gaps"] else ""))
