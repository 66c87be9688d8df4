"""The `msd` application: each subcommand group registers itself from its own module."""

from __future__ import annotations

import importlib

import typer

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
]

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


def main() -> None:
    app()
