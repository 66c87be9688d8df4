"""`msd config get|set|unset|list`: the same config core as `msd_run config`, for people.

Lookup and writes are msd_core.config.store's (project .planning/config.json > user
defaults > schema default); this module only parses options and renders.
"""

from __future__ import annotations

from typing import Optional

import typer

from msd_core.cli.common import console, errors_to_exit, render
from msd_core.cli.terminal import echo
from msd_core.config import store
from msd_core.errors import MsdError
from msd_core.result import OperationResult


def _raw(value) -> str:
    from msd_core.run.cmd_config import raw_text

    return raw_text(value)


def _folder(cwd: Optional[str]) -> Optional[str]:
    """--cwd as given when it is an existing folder; exit 2 otherwise (msd_run config's check)."""
    if cwd is None:
        return None
    from msd_core.run.argtypes import existing_folder

    return existing_folder(cwd, "--cwd")


def _names_msd(fn):
    """The shared config core's hints name `msd_run config ...`; from `msd config` they name
    `msd config ...`, the command the person is typing."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except MsdError as exc:
            if exc.hint:
                exc.hint = exc.hint.replace("`msd_run config ", "`msd config ")
            raise

    return wrapper


def register(app: typer.Typer) -> None:
    """Add `msd config ...` to the `msd` app."""
    from msd_core.cli.helpstyle import examples

    config_app = typer.Typer(
        help="Read and change the project's .planning/config.json (project > user defaults > schema default).",
        epilog=examples(
            ("msd config list", "every key, its value and where it comes from"),
            ("msd config get workflow.research", "one key's effective value"),
            ("msd config set mode yolo", "change one key (other keys and their order kept)"),
            ("msd config set mode yolo --create", "also make .planning/config.json when there is no project"),
            ("msd config set model_profile budget --personal", "your own value, not committed (personal keys only)"),
            ("msd config unset mode", "back to the default"),
        ),
        no_args_is_help=True,
    )
    cwd_opt = typer.Option(None, "--cwd", metavar="DIR", help="Project folder (default: the current folder; found by walking up).")
    personal_opt = typer.Option(False, "--personal", help="Your own value of a personal key (mode, model_profile, ...), "
                                "kept in .planning/.msd/personal.json and never committed.")
    json_opt = typer.Option(False, "--json", help="Print the versioned JSON envelope.")

    @config_app.command("get")
    @errors_to_exit
    @_names_msd
    def get(
        key: str = typer.Argument(..., metavar="KEY", help="Dotted key, e.g. workflow.research."),
        default: Optional[str] = typer.Option(None, "--default", metavar="VALUE", help="Value when no file sets the key (instead of the schema default)."),
        cwd: Optional[str] = cwd_opt,
        json_output: bool = json_opt,
    ) -> None:
        """Print a key's effective value and where it comes from."""
        cwd = _folder(cwd)
        from msd_core.run.cmd_config import _parse_default

        value, source = store.get_with_source(key, cwd)
        if default is not None and source in ("default", None):
            value, source = _parse_default(default), "--default"
        elif source is None:
            raise store._unknown_key(key, store.load_layers(cwd))
        result = OperationResult("config get", data={"key": key, "value": value, "source": source})
        render(result, json_output, lambda r: echo(_raw(value)))

    @config_app.command("set")
    @errors_to_exit
    @_names_msd
    def set_(
        key: str = typer.Argument(..., metavar="KEY", help="Dotted key, e.g. workflow.compact_content."),
        value: str = typer.Argument(..., metavar="VALUE", help="New value, coerced by the key's type (true/false, numbers, enum words)."),
        create: bool = typer.Option(False, "--create", help="Create .planning/config.json here when no project is found."),
        personal: bool = personal_opt,
        cwd: Optional[str] = cwd_opt,
        json_output: bool = json_opt,
    ) -> None:
        """Set a key in the project's config.json (other keys and their order are kept), or your own value with --personal."""
        cwd = _folder(cwd)
        from msd_core.config import store

        out = store.set_value(key, value, cwd, create=create, personal=personal)
        result = OperationResult("config set", data=out)

        def human(r: OperationResult) -> None:
            verb = "set" if out["changed"] else "unchanged:"
            echo(f"{verb} {key} = {_raw(out['value'])}  ({out['path']})")

        render(result, json_output, human)

    @config_app.command("unset")
    @errors_to_exit
    @_names_msd
    def unset(
        key: str = typer.Argument(..., metavar="KEY", help="Dotted key to remove from the project's config.json."),
        cwd: Optional[str] = cwd_opt,
        personal: bool = personal_opt,
        json_output: bool = json_opt,
    ) -> None:
        """Remove a key from the project's config.json (its default applies again), or your own value with --personal."""
        cwd = _folder(cwd)
        from msd_core.config import store

        out = store.unset_value(key, cwd, personal=personal)
        result = OperationResult("config unset", data=out)
        render(result, json_output,
               lambda r: echo(f"{'removed' if out['removed'] else 'not set:'} {key}  ({out['path']})"))

    @config_app.command("list")
    @errors_to_exit
    @_names_msd
    def list_(cwd: Optional[str] = cwd_opt, json_output: bool = json_opt) -> None:
        """Every key with its effective value and source; keys msd does not know are kept and shown."""
        cwd = _folder(cwd)
        from msd_core.config import store

        layers = store.load_layers(cwd)
        entries = store.list_entries(cwd, layers)
        sources = {
            "project_config": str(layers.project_path) if layers.project is not None else None,
            "personal_config": str(store.personal_path(layers.project_root)) if layers.personal is not None else None,
            "user_defaults": str(layers.user_path) if layers.user is not None else None,
        }
        result = OperationResult("config list", data={"entries": entries, **sources})
        for e in entries:
            if e.get("problem"):
                result.warnings.append(f"{e['key']}: {e['problem']}")

        def human(r: OperationResult) -> None:
            import os

            from rich.table import Table

            if sources["project_config"]:
                echo(f"project config: {sources['project_config']}")
            elif layers.project_root is not None:
                echo(f"project {layers.project_root}: no .planning/config.json yet (defaults below)")
            else:
                echo(f"no project at or above {os.path.abspath(cwd or '.')}: user defaults and schema defaults")
            if sources["personal_config"]:
                echo(f"personal config (yours, not committed): {sources['personal_config']}")
            if sources["user_defaults"]:
                echo(f"user defaults: {sources['user_defaults']}")

            table = Table(show_header=True, header_style="bold", box=None)
            # keys and sources whole (a key cut mid-word cannot be copied); values and descriptions wrap
            table.add_column("key", no_wrap=True, min_width=max([len("key"), *(len(e["key"]) for e in entries)]))
            table.add_column("value", overflow="fold", min_width=min(16, max([5, *(len(_raw(e["value"])) for e in entries)])))
            table.add_column("source", no_wrap=True)
            table.add_column("description", overflow="fold")
            for e in entries:
                desc = e["description"] if e["known"] else "(not in schema, kept)"
                table.add_row(e["key"], _raw(e["value"]), e["source"] or "", desc)
            console().print(table)

        render(result, json_output, human)

    @config_app.command("migrate")
    @errors_to_exit
    def migrate(
        check: bool = typer.Option(False, "--check", help="Report only; write nothing."),
        cwd: Optional[str] = cwd_opt,
        json_output: bool = json_opt,
    ) -> None:
        """Move an old `depth` to `granularity`; list keys msd no longer reads (they stay in the file)."""
        cwd = _folder(cwd)
        from msd_core.config.migrate import migrate as run_migrate

        out = run_migrate(cwd, check=check)
        result = OperationResult("config migrate", data=out)

        def human(r: OperationResult) -> None:
            for m in out["moved"]:
                echo(f"{'would move' if check else 'moved'} {m['from']} -> {m['to']} = {m['value']}")
            for k in out["removed_keys_present"]:
                echo(f"kept, no longer read: {k['key']} ({k['why']})")
            if not out["moved"] and not out["removed_keys_present"]:
                echo(f"nothing to migrate ({out['path']})")

        render(result, json_output, human)

    app.add_typer(config_app, name="config")
