"""`msd mcp`: serve the memory queries, config get and resolve over MCP (stdio);
`msd mcp install|uninstall --scope user|project`: register it with Claude Code (msd_core.mcp.setup)."""

from __future__ import annotations

from typing import Optional

import typer

from msd_core.cli.common import errors_to_exit, print_envelope, stdin_is_tty
from msd_core.cli.terminal import write
from msd_core.errors import UsageError


def _scope_option():
    return typer.Option("user", "--scope", metavar="user|project", help="user: ~/.claude.json (every project); project: ./.mcp.json (shared with the repository)")


def _config_dir_option():
    return typer.Option(None, "--config-dir", metavar="DIR", help="user scope: the global Claude config folder (default $CLAUDE_CONFIG_DIR or ~/.claude)")


def _cwd_option():
    return typer.Option(None, "--cwd", metavar="DIR", help="project scope: the project folder (default: the current directory)")


def _json_option():
    return typer.Option(False, "--json", help="print the result as JSON")


def _apply(action: str, scope: str, as_json: bool, **kwargs) -> None:
    """Run mcp_setup.install or .uninstall for a valid --scope and print what it did."""
    from msd_core.mcp import setup as mcp_setup

    if scope not in mcp_setup.SCOPES:
        raise UsageError(f"--scope {scope!r} is not one of user, project")
    _print(f"mcp {action}", getattr(mcp_setup, action)(scope, **kwargs), as_json)


def _print(command: str, out: dict, as_json: bool) -> None:
    if as_json:
        print_envelope(command, out)
        return
    import sys

    server, perm = out["server"], out["permission"]
    write(f"MCP server {out['scope']} scope: {server['path']}: {server['action']}\n")
    write(f"permission {perm.get('rule', 'mcp__msd')}: {perm['path']}: {perm['action']}\n")
    if out.get("note"):
        sys.stdout.write(f"note: {out['note']}\n")


def register(app: typer.Typer) -> None:
    group = typer.Typer(invoke_without_command=True, no_args_is_help=False,
                        help="Run the MCP server over stdio, or register it with Claude Code (install/uninstall).")

    @group.callback()
    @errors_to_exit
    def mcp(
        ctx: typer.Context,
        cwd: Optional[str] = typer.Option(None, "--cwd", metavar="DIR", help="Project directory the tools use when a call gives none."),
    ) -> None:
        """Run an MCP server over stdio (tools: memory search/what-uses/pattern-for/decisions-affecting, config get, resolve).

        Register it with Claude Code:  msd mcp install --scope user
        """
        if ctx.invoked_subcommand is not None:
            return
        from msd_core.mcp.server import serve
        from msd_core.run.dispatch import call

        if stdin_is_tty():  # a person typed `msd mcp`: say why nothing seems to happen
            import sys

            sys.stderr.write("msd mcp: serving MCP on stdin/stdout for Claude Code; Ctrl-C stops it. "
                             "To register it instead: msd mcp install\n")
        serve(call, cwd)

    @group.command("install")
    @errors_to_exit
    def install_cmd(
        scope: str = _scope_option(),
        config_dir: Optional[str] = _config_dir_option(),
        cwd: Optional[str] = _cwd_option(),
        json_output: bool = _json_option(),
    ) -> None:
        """Register `msd mcp` with Claude Code and allow its tools (mcp__msd) in settings.json."""
        _apply("install", scope, json_output, config_dir=config_dir, project_dir=cwd)

    @group.command("uninstall")
    @errors_to_exit
    def uninstall_cmd(
        scope: str = _scope_option(),
        config_dir: Optional[str] = _config_dir_option(),
        cwd: Optional[str] = _cwd_option(),
        dry_run: bool = typer.Option(False, "--dry-run", help="say what would be removed; change nothing"),
        json_output: bool = _json_option(),
    ) -> None:
        """Remove msd's server entry and the mcp__msd permission (nothing else)."""
        _apply("uninstall", scope, json_output, config_dir=config_dir, project_dir=cwd, dry_run=dry_run)

    app.add_typer(group, name="mcp")
