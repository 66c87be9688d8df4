"""`msd mcp`: serve the memory queries, config get and resolve over MCP (stdio)."""

from __future__ import annotations

from typing import Optional

import typer

from msd_core.cli.common import errors_to_exit


def register(app: typer.Typer) -> None:
    @app.command("mcp")
    @errors_to_exit
    def mcp(
        cwd: Optional[str] = typer.Option(None, "--cwd", help="Project directory the tools use when a call gives none."),
    ) -> None:
        """Run an MCP server over stdio (tools: memory search/what-uses/pattern-for/decisions-affecting, config get, resolve).

        Register it with Claude Code:  claude mcp add msd -- msd mcp
        """
        from msd_core.mcp_server import serve

        serve(cwd)
