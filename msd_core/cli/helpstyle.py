"""How `msd --help` shows options and arguments, and how `msd` reports a usage error.

typer 0.2x prints a type column for every parameter: `<bool>` beside a flag that takes no
value (which reads as if it wanted one) and `{key}` for a required argument. `tidy()`
makes a flag show no type at all, an argument with a metavar show just that, and in the
usage line a required argument show as its bare name (KEY), optional ones as [KEY]; an option with a metavar keeps it. It changes typer's classes
once per process (the `msd` process owns them) and leaves them alone when a typer
release no longer has the hooks, so help degrades to typer's own style, never breaks.

`usage_error_line()` turns click's boxed usage error into the one line every other
`msd` error uses (`msd: error: ... (see `msd <command> --help`)`), or JSON with `--json`.
"""

from __future__ import annotations

import json
import sys

_DONE = False


def tidy() -> None:
    """Flags without a `<bool>` type; an argument named by its metavar alone (KEY, not KEY <str>);
    in the usage line a required argument as KEY, an optional one as [KEY]."""
    global _DONE
    if _DONE:
        return
    _DONE = True
    from typer import core

    option, argument = getattr(core, "TyperOption", None), getattr(core, "TyperArgument", None)
    if option is not None and hasattr(option, "display_type_rich"):
        shown = option.display_type_rich

        def display_type_rich(self, ctx):
            if getattr(self, "is_flag", False) and not getattr(self, "count", False):
                return None  # a flag takes no value: no type to show
            return shown(self, ctx)

        option.display_type_rich = display_type_rich
    if argument is not None and hasattr(argument, "display_type_rich"):
        shown_arg = argument.display_type_rich

        def arg_display_type_rich(self, ctx):
            return None if self.metavar is not None else shown_arg(self, ctx)  # KEY says it already

        argument.display_type_rich = arg_display_type_rich
    if argument is not None and hasattr(argument, "_usage_display_name"):

        def _usage_display_name(self):
            name = self.display_name_raw
            name = name if self.required else f"[{name}]"
            return name + ("..." if self.nargs != 1 else "")

        argument._usage_display_name = _usage_display_name


def usage_error_line(exc, argv: list[str]) -> tuple[int, str]:
    """(exit code, the line for stderr) for a click usage error: one line, or JSON with --json."""
    ctx = getattr(exc, "ctx", None)
    path = ctx.command_path if ctx is not None else "msd"
    message = " ".join(str(exc.format_message()).split())
    code = getattr(exc, "exit_code", 2) or 2
    hint = f"see `{path} --help`"
    if "--json" in argv:
        from msd_core.errors import UsageError

        payload = UsageError(message, hint=hint).to_json()
        payload["exit_code"] = code  # click's own code (2 for every usage error it raises)
        return code, json.dumps(payload, ensure_ascii=False)
    return code, f"msd: error: {message} ({hint})"


def run_typer(app, argv: list[str]) -> int:
    """Run the typer app on argv; a usage error is one line (exit 2), never a box."""
    try:  # typer 0.2x vendors click as typer._click
        from typer._click import exceptions as cx
    except ImportError:  # pragma: no cover - older typer on top of click
        from click import exceptions as cx

    import typer

    try:
        rv = app(args=argv, prog_name="msd", standalone_mode=False)
    except cx.NoArgsIsHelpError as exc:  # `msd config`: typer has printed the group's help
        return exc.exit_code
    except cx.ClickException as exc:
        code, line = usage_error_line(exc, argv)
        sys.stderr.write(line + "\n")
        return code
    except typer.Abort:
        sys.stderr.write("msd: aborted\n")
        return 1
    code = rv if isinstance(rv, int) and not isinstance(rv, bool) else 0
    if code == 130:  # interrupted: in a command (errors_to_exit) or while typer parsed (it exits 130 silently)
        sys.stderr.write("msd: interrupted\n")
    return code


def examples(*rows: tuple[str, str]) -> str:
    """A help page's epilog: `command  what it does` lines, aligned, kept as lines by typer."""
    width = max(len(cmd) for cmd, _ in rows) + 2
    return "\b\nExamples:\n" + "".join(f"  {cmd.ljust(width)}{what}\n" for cmd, what in rows)
