"""`msd chain WORKFLOW --agent-cmd CMD`: run a flow step by step, one fresh agent per step.

Example with a real agent CLI:  msd chain plan-phase --var phase=02 --agent-cmd "claude -p"
Logic: msd_core.chain.
"""

from __future__ import annotations

from typing import List, Optional

import typer

from msd_core.cli.common import errors_to_exit, print_json, stdin_is_tty


def register(app: typer.Typer) -> None:
    app.command("chain")(chain)


@errors_to_exit
def chain(
    workflow: str = typer.Argument(..., help="the flow to run, e.g. plan-phase"),
    agent_cmd: Optional[str] = typer.Option(None, "--agent-cmd", help='the agent command started once per step, e.g. "claude -p"'),
    dry_run: bool = typer.Option(False, "--dry-run", help="print the plan from the current step; run nothing"),
    prompt_file: bool = typer.Option(False, "--prompt-file", help="pass the step brief as a file path (last argument) instead of on stdin"),
    var: List[str] = typer.Option([], "--var", help="a flow input, e.g. phase=02 (repeatable)"),
    cwd: Optional[str] = typer.Option(None, "--cwd", help="the project folder (default: the current directory)"),
    root: Optional[str] = typer.Option(None, "--root", help="the installed msd-core folder (default: the global install)"),
    flows_dir: Optional[str] = typer.Option(None, "--flows-dir", help="development option: read flows from this folder (unverified)"),
    timeout: float = typer.Option(3600.0, "--timeout", min=1.0, help="seconds one agent may run"),
    max_steps: int = typer.Option(200, "--max-steps", min=1, help="stop after this many steps"),
    json_output: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Run WORKFLOW's flow: each agent step starts --agent-cmd once; stop at the first failure."""
    import sys

    from msd_core import chain as logic
    from msd_core.errors import UsageError
    from msd_core.flows import service

    ctx = service.open_flow(workflow, cwd=cwd, root=root, flows_dir=flows_dir)
    if dry_run:
        items = logic.plan(ctx, var)
        if json_output:
            print_json({"workflow": workflow, "dry_run": True, "plan": items})
        else:
            sys.stdout.write(logic.render_plan(workflow, items))
        return
    if not agent_cmd:
        raise UsageError("--agent-cmd is required unless --dry-run", hint='e.g. --agent-cmd "claude -p"')
    argv = logic.parse_agent_cmd(agent_cmd)
    ask = None
    if stdin_is_tty():
        def ask(prompt: str) -> str | None:
            sys.stderr.write(prompt)
            sys.stderr.flush()
            line = sys.stdin.readline()
            return None if line == "" else line

    runner = logic.Chain(ctx, argv, prompt_file=prompt_file, timeout=timeout, max_steps=max_steps, ask=ask)
    report = runner.run(var)
    if json_output:
        print_json(report.to_json())
        if not report.ok:
            raise typer.Exit(1)
        return
    for s in report.steps:
        sys.stdout.write(f"ok   {s['step']:<20} -> {s['next_step']}\n")
    if report.ok:
        sys.stdout.write(f"{workflow}: done\n")
        return
    logic.ensure_ok(report)
