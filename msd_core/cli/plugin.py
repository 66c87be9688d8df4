"""`msd plugin build OUT`: a thin adapter over msd_core.plugin.build."""

from __future__ import annotations

from typing import Optional

import typer

from msd_core.cli.common import console, errors_to_exit, group, render
from msd_core.result import OperationResult


def _human(result: OperationResult) -> None:
    out = console()
    d = result.data
    out.print(f"Built the msd-core {d['version']} plugin ({d['files']} files) in {d['out']}", soft_wrap=True, highlight=False)
    out.print("In Claude Code:", soft_wrap=True)
    for line in d["next"]:
        out.print(f"  {line}", soft_wrap=True, highlight=False)
    out.print(f"Or for one session: {d['session_only']}", soft_wrap=True, highlight=False)


def register(app: typer.Typer) -> None:
    plugin = group(app, "plugin", "Package the content as a Claude Code plugin.")

    @plugin.command("build")
    @errors_to_exit
    def build_cmd(
        out: str = typer.Argument(..., metavar="OUT", help="Folder to write the marketplace and plugin to (new, empty, or an earlier build)."),
        json_output: bool = typer.Option(False, "--json", help="Print a versioned JSON result."),
        content_dir: Optional[str] = typer.Option(None, "--content-dir", hidden=True),
    ) -> None:
        """Write a Claude Code plugin and a local marketplace: /plugin marketplace add OUT."""
        from msd_core.install.source import resolve_source
        from msd_core.plugin.build import build_plugin

        render(build_plugin(out, source=resolve_source(content_dir)), json_output, _human)

