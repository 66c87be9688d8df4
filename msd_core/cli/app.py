"""The `msd` application: each subcommand group registers itself from its own module.

typer reads every `msd` command line: one argument reader. `msd` is the people's command
(agents call `msd_run`), so no command is answered on a path around typer; what such a path
saved on each command was measured (scripts/bench_cli.py, docs/PERFORMANCE.md "msd's
start-up") and is not worth a second reader on commands a person runs now and then.
"""

from __future__ import annotations

import importlib
import sys

from msd_core import __version__

# Each module exposes register(app). Order is the order shown in --help.
SUBCOMMAND_MODULES = [
    "msd_core.cli.install",   # install, update, uninstall, status
    "msd_core.cli.config",    # config get/set/unset/list
    "msd_core.cli.check",     # check content
    "msd_core.cli.bench",     # bench tokens
    "msd_core.cli.init",      # init new-project
    "msd_core.cli.chain",     # chain
    "msd_core.cli.mcp",       # mcp
    "msd_core.cli.plugin",    # plugin build
    "msd_core.cli.usage",     # usage
    "msd_core.cli.guard",     # guard allow
    "msd_core.cli.review",    # security accept, ui accept
]


EXAMPLE_LINES = (
    ("msd install --global", "install for every project (~/.claude)"),
    ("msd status", "what is installed, and whether msd_run is reachable"),
    ("msd config set mode yolo", "change one project setting (`msd config list` shows all)"),
    ("msd init new-project --defaults", "write .planning/config.json without asking"),
    ("msd uninstall --global --dry-run", "what uninstall would remove"),
    ("msd usage", "tokens each phase, plan and agent used, from Claude Code's transcripts"),
)
EXAMPLES_TAIL = ("\nEvery command takes -h/--help; commands that report take --json. "
                 "Exit codes: 0 ok, 1 failed, 2 bad usage, 3 integrity failure, 4 lock timeout.")


def build_app():
    """The typer app with every subcommand module registered."""
    import typer

    from msd_core.cli.helpstyle import examples, tidy

    tidy()
    app = typer.Typer(
        name="msd",
        help="msd-core: spec-driven development for coding agents. Install the content, manage config, check and benchmark it.",
        epilog=examples(*EXAMPLE_LINES) + EXAMPLES_TAIL,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"], "show_default": True},
    )

    def _version_callback(value: bool) -> None:
        if value:
            typer.echo(__version__)
            raise typer.Exit()

    @app.callback()
    def _root(
        version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."),
    ) -> None:
        """msd-core: spec-driven development for coding agents."""

    for _name in SUBCOMMAND_MODULES:
        importlib.import_module(_name).register(app)
    return app


def __getattr__(name: str):
    if name == "app":  # `from msd_core.cli.app import app` builds it
        globals()["app"] = built = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """`msd`: Ctrl-C at any moment (while typer and rich load, before any command's own boundary,
    msd_core.cli.common.errors_to_exit, is reached) is one line and exit 130, never a traceback."""
    try:
        _main()
    except KeyboardInterrupt:
        try:
            sys.stderr.write("msd: interrupted\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        sys.exit(130)


def _main() -> None:
    from msd_core.cli.helpstyle import run_typer

    sys.exit(run_typer(__getattr__("app"), sys.argv[1:]))
