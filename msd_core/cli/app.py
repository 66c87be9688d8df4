"""The `msd` application: each subcommand group registers itself from its own module.

`msd --version` is answered before typer is imported, and so is an install or update with
nothing to change (cli/fast_install.py). Typer costs ~30 ms to import, and
typer 0.2x coerces every option that is not a bool flag through a pydantic TypeAdapter,
built when the command runs even for an option that was not given (~30 ms more). So a
top-level command whose options are all plain (`--flag`, `--name VALUE`, `--name=VALUE`,
str or bool) is called directly with the values its own typer declarations define
(`direct()`); anything else (help, groups, other option kinds, an unknown argument) goes
through typer unchanged, which also reports every usage error.
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


_PLAIN = {"bool": bool, "str": str, "Optional[str]": str, "str | None": str}


def _plain_options(fn) -> dict | None:
    """{param: (decls, kind, default)} of a command function whose parameters are all plain
    typer options; None when any is not (positional argument, callback, prompt, envvar, ...)."""
    import typer.models

    target = fn
    while hasattr(target, "__wrapped__"):
        target = target.__wrapped__
    code = target.__code__
    names = code.co_varnames[: code.co_argcount]
    defaults = target.__defaults__ or ()
    if code.co_kwonlyargcount or len(defaults) != len(names):
        return None
    out = {}
    for name, info in zip(names, defaults):
        kind = _PLAIN.get(str(target.__annotations__.get(name)))
        if type(info) is not typer.models.OptionInfo or kind is None:
            return None
        if (info.callback or info.prompt or info.envvar or info.is_eager or info.parser or info.count
                or info.default_factory or not info.expose_value or any("/" in d for d in info.param_decls)):
            return None
        if not isinstance(info.default, kind) and info.default is not None:
            return None
        out[name] = (tuple(info.param_decls), kind, info.default)
    return out


def direct(app, argv: list[str]) -> int | None:
    """Run `msd <command> ...` by calling the command's function, or None for typer to run it."""
    if not argv or argv[0].startswith("-") or any(a in ("-h", "--help", "--") for a in argv):
        return None
    fn = next((c.callback for c in app.registered_commands
               if (c.name or c.callback.__name__.replace("_", "-")) == argv[0]), None)
    spec = _plain_options(fn) if fn is not None else None
    if spec is None:
        return None
    from msd_core.cli.plainargs import plain_values

    values = plain_values(argv[1:], {d: name for name, (decls, _k, _d) in spec.items() for d in decls},
                          {name: kind for name, (_d, kind, _v) in spec.items()},
                          {name: default for name, (_d, _k, default) in spec.items()})
    if values is None:
        return None
    import typer

    try:
        fn(**values)
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        sys.stderr.write("Aborted!\n")
        return 1
    return 0


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
    argv = sys.argv[1:]
    if argv == ["--version"]:
        sys.stdout.write(__version__ + "\n")
        return
    if argv and argv[0] in ("install", "update"):
        from msd_core.cli.fast_install import answer

        code = answer(argv)  # an install with nothing to change: before typer and rich (fast_install.py)
        if code is not None:
            sys.exit(code)
    app = __getattr__("app")
    code = direct(app, argv)
    if code is None:
        from msd_core.cli.helpstyle import run_typer

        code = run_typer(app, argv)
    sys.exit(code)
