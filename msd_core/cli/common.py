"""Shared plumbing for `msd` subcommands: one error boundary, one JSON printer, one console, one group shape."""

from __future__ import annotations

import functools
import json
import os
import sys
from typing import Any, Callable

import typer

from msd_core.cli.terminal import write
from msd_core.errors import EXIT_FAILED, MsdError
from msd_core.files import fresh
from msd_core.result import OperationResult, json_text


def console(stderr: bool = False):
    from msd_core.cli.terminal import console as clean_console

    return clean_console(stderr)


def print_json(obj: Any) -> None:
    sys.stdout.write(json_text(obj))


def print_envelope(command: str, data: dict) -> None:
    """A successful command's --json: the same versioned envelope `render` prints (its keys at the top)."""
    print_json(OperationResult(command, data=dict(data)).envelope())


def group(app: typer.Typer, name: str, help: str) -> typer.Typer:
    """A command group `msd <name> ...` added to the app; without a verb it shows its help."""
    sub = typer.Typer(help=help, no_args_is_help=True)
    app.add_typer(sub, name=name)
    return sub


def report(command: str, data: dict, as_json: bool, line: str) -> None:
    """A command's result: the versioned JSON envelope with --json, else its one line."""
    if as_json:
        print_envelope(command, data)
    else:
        console().print(line, soft_wrap=True)


def render(result: OperationResult, as_json: bool, human: Callable[[OperationResult], None] | None = None) -> None:
    """One renderer: the versioned JSON envelope, or the command's human view."""
    if as_json:
        print_json(result.envelope())
    else:
        if human is not None:
            human(result)
        err = console(stderr=True)
        for w in result.warnings:
            err.print(f"[yellow]warning:[/yellow] {w}", soft_wrap=True)
        for e in result.errors:
            err.print(f"[red]error:[/red] {e}", soft_wrap=True)
    if result.exit_code:
        raise typer.Exit(result.exit_code)


def fail(exc: MsdError, as_json: bool = False) -> None:
    if as_json:
        sys.stderr.write(json.dumps(exc.to_json(), ensure_ascii=False) + "\n")
    else:
        write(f"msd: error: {exc.one_line()}\n", err=True)
    raise typer.Exit(exc.exit_code)


def errors_to_exit(fn: Callable) -> Callable:
    """Decorator: map MsdError to its exit code with one clear line; never a traceback. A command
    that ends non-zero takes back the private folders it made (msd_core.files.fresh)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        fresh.start()
        ok = False
        try:
            out = _mapped(fn, args, kwargs)
            ok = True
            return out
        except (typer.Exit, SystemExit) as exc:
            ok = not (exc.exit_code if isinstance(exc, typer.Exit) else exc.code)
            raise
        finally:
            if not ok:
                fresh.undo()

    return wrapper


def flags_of(fn: Callable) -> dict[str, str]:
    """{parameter name: its long flag} of a typer command: how an error about an input
    (MsdError.about, .remedy) names the flag that gave it."""
    import inspect

    out = {}
    for name, param in inspect.signature(fn).parameters.items():
        decls = getattr(param.default, "param_decls", None) or ()
        long = [d for d in decls if isinstance(d, str) and d.startswith("--")]
        if long:
            out[name] = long[0].split("/")[0]
    return out


def _mapped(fn: Callable, args, kwargs):
    as_json = bool(kwargs.get("json_output") or kwargs.get("as_json") or kwargs.get("json_errors"))
    try:
        return fn(*args, **kwargs)
    except MsdError as exc:
        fail(exc.name_flags(flags_of(fn)), as_json)
    except (typer.Exit, typer.Abort, SystemExit):
        raise
    except KeyboardInterrupt:
        raise typer.Exit(130)  # run_typer says "msd: interrupted" (typer turns an interrupt it meets into 130 too)
    except BrokenPipeError:
        raise typer.Exit(0)
    except OSError as exc:  # disk full, permission denied, a folder where a file should be, ...
        from msd_core.errors import from_os_error

        fail(from_os_error(exc), as_json)
    except Exception as exc:  # pragma: no cover - defensive boundary
        if os.environ.get("MSD_DEBUG"):
            raise
        write(f"msd: internal error: {type(exc).__name__}: {exc} (set MSD_DEBUG=1 for a traceback)\n", err=True)
        raise typer.Exit(EXIT_FAILED)


def stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False
