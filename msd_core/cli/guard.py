"""`msd guard allow PATH`: a person lets the agent make one write msd's guards refused.

The planning write guard and the injection screen (msd_core/hooks/pre_tool_use.py) refuse an
agent's Write or Edit of a `.planning/` file; this records one allowance for that file
(msd_core/hooks/guard_memory.py), valid for `--minutes` and used up by the next write the guards
would have refused. It is the people's command: `msd_run` (the agent's runtime) has no such verb,
and an agent running `msd` meets the host's permission prompt.
"""

from __future__ import annotations

import os
from typing import Optional

import typer

from msd_core.cli.common import errors_to_exit, group, report
from msd_core.errors import UsageError
from msd_core.hooks import guard_memory, planning_guard

MAX_MINUTES = 24 * 60


def register(app: typer.Typer) -> None:
    guard = group(app, "guard", "msd's guards: let the agent make one write they refused.")

    @guard.command("allow")
    @errors_to_exit
    def allow(
        path: str = typer.Argument(..., metavar="PATH", help="The .planning/ file (e.g. .planning/ROADMAP.md)."),
        minutes: int = typer.Option(10, "--minutes", help=f"How long the allowance holds (1-{MAX_MINUTES})."),
        json_output: bool = typer.Option(False, "--json", help="Print the result as JSON."),
        cwd: Optional[str] = typer.Option(None, "--cwd", metavar="DIR", help="Resolve PATH from here (default: the current folder)."),
    ) -> None:
        """Allow the agent's next refused write of PATH (one write, within --minutes)."""
        import time


        if not 1 <= minutes <= MAX_MINUTES:
            raise UsageError(f"--minutes must be from 1 to {MAX_MINUTES}, got {minutes}")
        base = os.path.abspath(cwd or os.getcwd())
        full = path if os.path.isabs(path) else os.path.join(base, path)
        where = planning_guard.planning_dir_of(full)
        if where is None or not where[1]:
            raise UsageError(f"{path} is not a file under a .planning/ folder", hint="name the file, e.g. .planning/ROADMAP.md")
        planning, rel = where
        until = guard_memory.grant(planning, rel, minutes)
        data = {"path": f".planning/{rel}", "project": os.path.dirname(planning),
                "until": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(until))}
        report("guard allow", data, json_output,
               f"allowed one write of {data['path']} until {data['until']} (ask the agent to try again)")
