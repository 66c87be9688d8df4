"""The `msd` application: each subcommand group registers itself from its own module.

`msd --version` is answered before typer is imported: typer (and pydantic, which typer
imports to coerce any option that is not a bool flag) costs ~60 ms. Every other command
builds the typer app (`app`, built on first use).
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
]


def build_app():
    """The typer app with every subcommand module registered."""
    import typer

    app = typer.Typer(
        name="msd",
        help="msd-core: spec-driven development for coding agents. Install the content, manage config, check and benchmark it.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
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
    if sys.argv[1:] == ["--version"]:
        sys.stdout.write(__version__ + "\n")
        return
    __getattr__("app")()
