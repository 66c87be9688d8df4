"""`msd mcp`: serve the memory queries, config get and resolve over MCP (stdio);
`msd mcp install|uninstall --scope user|project [--client claude|copilot|kimi|gemini|codex|opencode]`: register it
with Claude Code or another client (msd_core.mcp.setup, msd_core.mcp.clients)."""

from __future__ import annotations

from typing import Optional

import typer

from msd_core.cli.common import errors_to_exit, print_envelope, stdin_is_tty
from msd_core.cli.terminal import write
from msd_core.errors import UsageError


def _scope_option():
    return typer.Option("user", "--scope", metavar="user|project", help="user: ~/.claude.json (every project); project: ./.mcp.json (shared with the repository)")


def _config_dir_option():
    return typer.Option(None, "--config-dir", metavar="DIR",
                        help="user scope: the client's global folder (default $CLAUDE_CONFIG_DIR or ~/.claude; "
                             "$COPILOT_HOME or ~/.copilot; $KIMI_CODE_HOME or ~/.kimi-code; ~/.gemini; $CODEX_HOME or ~/.codex; "
                             "$OPENCODE_CONFIG_DIR or ~/.config/opencode)")


def _client_option():
    return typer.Option("claude", "--client", metavar="claude|copilot|kimi|gemini|codex|opencode",
                        help="the agent client to register with (project scope: .mcp.json for claude, copilot and kimi; "
                             ".gemini/settings.json, .codex/config.toml, opencode.json for the others)")


def _cwd_option():
    return typer.Option(None, "--cwd", metavar="DIR", help="project scope: the project folder (default: the current directory)")


def _json_option():
    return typer.Option(False, "--json", help="print the result as JSON")


def _apply(action: str, scope: str, as_json: bool, **kwargs) -> None:
    """Run mcp_setup.install or .uninstall for a valid --scope and --client and print what it did."""
    from msd_core.mcp import clients
    from msd_core.mcp import setup as mcp_setup

    clients.check(kwargs.get("client", "claude"))
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
    if perm.get("path") is None:
        write(f"permission: {perm['action']}\n")
    else:
        write(f"permission {perm.get('rule', 'mcp__msd')}: {perm['path']}: {perm['action']}\n")
    if out.get("note"):
        sys.stdout.write(f"note: {out['note']}\n")


def register(app: typer.Typer) -> None:
    group = typer.Typer(invoke_without_command=True, no_args_is_help=False,
                        help="Run the MCP server over stdio, or register it with Claude Code, Copilot CLI, Kimi Code, Gemini CLI, "
                             "Codex CLI or OpenCode "
                             "(install/uninstall).")

    @group.callback()
    @errors_to_exit
    def mcp(
        ctx: typer.Context,
        cwd: Optional[str] = typer.Option(None, "--cwd", metavar="DIR", help="Project directory the tools use when a call gives none."),
    ) -> None:
        """Run an MCP server over stdio (tools: memory search/what-uses/pattern-for/decisions-affecting, config get, resolve).

        Register it with Claude Code:  msd mcp install --scope user
        (other clients:                msd mcp install --scope user --client copilot|kimi|gemini|codex|opencode)
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
        client: str = _client_option(),
        json_output: bool = _json_option(),
    ) -> None:
        """Register `msd mcp` with Claude Code and allow its tools (mcp__msd) in settings.json; or with
        another client (--client). Its tools only read: Copilot CLI, Kimi Code and Gemini CLI ask before
        one runs; msd's Codex entry approves them (Codex cannot ask in `codex exec`); OpenCode runs MCP
        tools without asking."""
        _apply("install", scope, json_output, config_dir=config_dir, project_dir=cwd, client=client)

    @group.command("uninstall")
    @errors_to_exit
    def uninstall_cmd(
        scope: str = _scope_option(),
        config_dir: Optional[str] = _config_dir_option(),
        cwd: Optional[str] = _cwd_option(),
        dry_run: bool = typer.Option(False, "--dry-run", help="say what would be removed; change nothing"),
        client: str = _client_option(),
        json_output: bool = _json_option(),
    ) -> None:
        """Remove msd's server entry and the mcp__msd permission (nothing else)."""
        _apply("uninstall", scope, json_output, config_dir=config_dir, project_dir=cwd, dry_run=dry_run, client=client)

    app.add_typer(group, name="mcp")
