"""`msd init new-project`: the settings wizard that writes `.planning/config.json`.

In a terminal it asks the eight questions (a flag answers its question in advance).
Without a terminal it never asks: the flags (and `--defaults` for the rest) decide;
with neither, it exits 2 at once and lists the flags. Logic: msd_core.config.wizard.
"""

from __future__ import annotations

from typing import Optional

import typer

from msd_core.cli.common import errors_to_exit, print_envelope, stdin_is_tty
from msd_core.cli.terminal import write
from msd_core.errors import UsageError
from msd_core.progress import evidence


def register(app: typer.Typer) -> None:
    init_app = typer.Typer(help="Set up a project.", no_args_is_help=True, add_completion=False)
    from msd_core.cli.helpstyle import examples

    init_app.command("new-project", epilog=examples(
        ("msd init new-project", "ask each question (in a terminal)"),
        ("msd init new-project --defaults", "take every default, ask nothing"),
        ("msd init new-project --mode yolo --no-research --defaults", "two answers given, defaults for the rest"),
    ))(new_project)
    app.add_typer(init_app, name="init")


@errors_to_exit
def new_project(
    mode: Optional[str] = typer.Option(None, "--mode", metavar="interactive|yolo", help="interactive asks before each gate; yolo runs gates without asking. Default: interactive"),
    granularity: Optional[str] = typer.Option(None, "--granularity", metavar="coarse|standard|fine", help="how finely the roadmap is cut into phases and plans. Default: standard"),
    parallelization: Optional[bool] = typer.Option(None, "--parallelization/--no-parallelization", help="run independent plans in parallel. Default: on"),
    compact: Optional[bool] = typer.Option(None, "--compact/--no-compact", help="workflow.compact_content: run on spines alone. Default: off"),
    research: Optional[bool] = typer.Option(None, "--research/--no-research", help="research before planning. Default: on"),
    plan_check: Optional[bool] = typer.Option(None, "--plan-check/--no-plan-check", help="check plans before executing. Default: on"),
    verifier: Optional[bool] = typer.Option(None, "--verifier/--no-verifier", help="verify each phase after executing. Default: on"),
    commit_docs: Optional[bool] = typer.Option(None, "--commit-docs/--no-commit-docs", help="commit .planning/ docs to git. Default: on"),
    use_defaults: bool = typer.Option(False, "--defaults", help="answer every question not given as a flag with its default (the project's current value, else your user defaults, else the Default shown)"),
    cwd: Optional[str] = typer.Option(None, "--cwd", metavar="DIR", help="the project folder (default: the current directory)"),
    json_output: bool = typer.Option(False, "--json", help="print the result as JSON"),
) -> None:
    """Ask (or take from flags) the project settings and write .planning/config.json."""
    import sys

    from msd_core.config import wizard as settings

    flags = {
        "mode": mode, "granularity": granularity, "parallelization": parallelization,
        "workflow.compact_content": compact, "workflow.research": research, "workflow.plan_check": plan_check,
        "workflow.verifier": verifier, "commit_docs": commit_docs,
    }
    given: dict[str, object] = {}
    for q in settings.QUESTIONS:
        value = flags[q.key]
        if value is None:
            continue
        if q.choices:
            value = value.strip().lower()
            if value not in q.choices:
                raise UsageError(f"--{q.flag} must be one of {', '.join(q.choices)}, got {value!r}")
        given[q.key] = value
    interactive = stdin_is_tty() and not use_defaults and len(given) < len(settings.QUESTIONS)
    if not interactive and not given and not use_defaults:
        raise UsageError("no terminal to ask in and no answers given", hint=f"pass flags: {settings.flag_list()}")
    project = settings.project_dir(cwd)
    base = settings.defaults(project)
    if interactive:
        def ask(prompt: str) -> str | None:
            write(prompt)
            sys.stdout.flush()
            line = sys.stdin.readline()
            return None if line == "" else line

        def say(text: str) -> None:
            write(text + "\n")

        answers = settings.ask_all(given, base, ask, say)
    else:
        answers = {**base, **given}
    result = settings.write(answers, project)
    if result.pop("created", False):
        from pathlib import Path


        # msd made this project: every SUMMARY it gets needs its recorded commits (progress.evidence)
        evidence.mark_since(evidence.main_root(Path(result["path"]).parent.parent), publish=True)
    if json_output:
        print_envelope("init new-project", result)
        return
    write(f"wrote {result['path']}\n")
    for key, value in result["settings"].items():
        shown = ("true" if value else "false") if isinstance(value, bool) else value
        write(f"  {key} = {shown}\n")
