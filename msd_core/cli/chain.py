"""`msd chain WORKFLOW --agent claude` (or `--agent-cmd CMD`): run a flow step by step, one fresh agent per step.

Example with the real agent CLI:  msd chain plan-phase --var phase=02 --agent claude
Logic: msd_core.chain.loop; command lines: msd_core.chain.agent_command.
"""

from __future__ import annotations

from typing import List, Optional

import typer

from msd_core.chain.agent_command import AgentCommand
from msd_core.chain.agent_process import Ended
from msd_core.chain.loop import DEFAULT_MAX_STEPS, DEFAULT_TIMEOUT
from msd_core.cli.common import errors_to_exit, print_json, stdin_is_tty
from msd_core.cli.terminal import write
from msd_core.errors import UsageError
from msd_core.flows import service
from msd_core.run.argtypes import name_values


def register(app: typer.Typer) -> None:
    from msd_core.cli.helpstyle import examples

    app.command("chain", epilog=examples(
        ("msd chain plan-phase --dry-run --var phase=02", "the steps it would run, with each command line"),
        ("msd chain plan-phase --agent claude --var phase=02", "run them with Claude Code, headless"),
        ("msd chain plan-phase --agent-cmd \"my-agent --headless\"", "with another agent (brief on stdin)"),
    ))(chain)


@errors_to_exit
def chain(
    workflow: str = typer.Argument(..., metavar="WORKFLOW", help="the flow to run, e.g. plan-phase"),
    agent: Optional[str] = typer.Option(None, "--agent", metavar="NAME", help="an agent preset: claude (headless, with the narrowest permissions each step needs)"),
    agent_cmd: Optional[str] = typer.Option(None, "--agent-cmd", metavar="CMD", help='any other agent command, started once per step with the brief on stdin, e.g. "my-agent --headless"'),
    allow: List[str] = typer.Option([], "--allow", metavar="RULE", help="with --agent: one more permission rule for every step, e.g. 'Bash(npm test)' (repeatable)"),
    dry_run: bool = typer.Option(False, "--dry-run", help="print the plan from the current step, with each agent step's command line; run nothing"),
    prompt_file: bool = typer.Option(False, "--prompt-file", help="write the brief to a file and pass one line telling the agent to read it (after --, or in place of {prompt})"),
    var: List[str] = typer.Option([], "--var", metavar="NAME=VALUE", help="a flow input, e.g. phase=02 (repeatable)"),
    cwd: Optional[str] = typer.Option(None, "--cwd", metavar="DIR", help="the project folder (default: the current directory)"),
    root: Optional[str] = typer.Option(None, "--root", metavar="DIR", help="the installed msd-core folder (default: the global install)"),
    flows_dir: Optional[str] = typer.Option(None, "--flows-dir", metavar="DIR", help="development option: read flows from this folder (unverified)"),
    timeout: float = typer.Option(DEFAULT_TIMEOUT, "--timeout", min=1.0, metavar="SECONDS", help="seconds one agent step may run; then it and everything it started are ended"),
    max_steps: int = typer.Option(DEFAULT_MAX_STEPS, "--max-steps", min=1, metavar="N", help="stop after this many steps"),
    json_output: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Run WORKFLOW's flow: each agent step starts the agent once; stop at the first failure."""
    import sys

    from msd_core.chain import loop as logic

    if agent and agent_cmd:
        raise UsageError("give --agent or --agent-cmd, not both")
    if allow and not agent:
        raise UsageError("--allow works with --agent presets", hint="put the flags into --agent-cmd yourself")
    command = None
    if agent or agent_cmd:
        command = AgentCommand(argv=logic.parse_agent_cmd(agent_cmd) if agent_cmd is not None else None, preset=agent,
                               allow=allow)
    pairs = name_values(var)
    ctx = service.open_flow(workflow, cwd=cwd, root=root, flows_dir=flows_dir)
    if dry_run:
        items = logic.plan(ctx, pairs, command, prompt_file)
        if json_output:
            print_json({"workflow": workflow, "dry_run": True, "plan": items})
        else:
            write(logic.render_plan(workflow, items))
        return
    if command is None:
        raise UsageError("--agent or --agent-cmd is required unless --dry-run", hint="e.g. --agent claude")
    ask = None
    if stdin_is_tty():
        def ask(prompt: str) -> str | None:
            write(prompt, err=True)
            sys.stderr.flush()
            line = sys.stdin.readline()
            return None if line == "" else line

    runner = logic.Chain(ctx, command, prompt_file=prompt_file, timeout=timeout, max_steps=max_steps, ask=ask)

    try:
        report = runner.run(pairs)
    except Ended as exc:  # SIGTERM or SIGHUP: the running step's processes are already ended
        sys.stderr.write(f"msd chain: ended by {exc.name}; the running agent and every process it started were ended\n")
        raise typer.Exit(exc.exit_code) from None
    if json_output:
        print_json(report.to_json())
        if not report.ok:
            raise typer.Exit(1)
        return
    for s in report.steps:
        write(f"ok   {s['step']:<20} -> {s['next_step']}\n")
    if report.ok:
        write(f"{workflow}: done\n")
        return
    logic.ensure_ok(report)
