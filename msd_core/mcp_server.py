"""`msd mcp`: an MCP server over stdio exposing the memory queries, config get and resolve.

Each tool runs the same code path as the matching `msd_run` command (in-process, through
the dispatcher), so the server and the CLI can never disagree. Needs the optional `mcp`
dependency group (`pip install 'msd-core[mcp]'`).
"""

from __future__ import annotations

import contextlib
import io
import json

from msd_core.errors import OperationFailed

SERVER_NAME = "msd-core"


def run_runtime(argv: list[str]) -> dict:
    """Run one `msd_run` command in-process; return its JSON result or {"error", "exit_code"}."""
    from msd_core.run.dispatch import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    text = out.getvalue().strip()
    if code != 0:
        return {"error": err.getvalue().strip() or f"exit code {code}", "exit_code": code}
    try:
        value = json.loads(text) if text else {}
    except json.JSONDecodeError:
        return {"output": text}
    return value if isinstance(value, dict) else {"value": value}


def _server_class():
    try:
        from mcp.server.mcpserver import MCPServer  # mcp >= 2

        return MCPServer
    except ImportError:
        pass
    try:
        from mcp.server.fastmcp import FastMCP  # mcp 1.x

        return FastMCP
    except ImportError:
        raise OperationFailed("the MCP server needs the mcp package", hint="pip install 'msd-core[mcp]'") from None


def build_server(default_cwd: str | None = None):
    server = _server_class()(SERVER_NAME)

    def with_cwd(args: list[str], cwd: str | None) -> list[str]:
        where = cwd or default_cwd
        return args + (["--cwd", where] if where else [])

    @server.tool()
    def memory_search(text: str, limit: int = 10, cwd: str | None = None) -> dict:
        """Full-text search over the project's SUMMARY/CONTEXT/RESEARCH/VERIFICATION files (bm25-ranked)."""
        return run_runtime(with_cwd(["memory", "search", text, "--limit", str(limit)], cwd))

    @server.tool()
    def memory_what_uses(symbol: str, type: str = "any", limit: int = 10, cwd: str | None = None) -> dict:
        """Which phases declare or use SYMBOL (a model, file, api or library); whole-word matches."""
        return run_runtime(with_cwd(["memory", "what-uses", symbol, "--type", type, "--limit", str(limit)], cwd))

    @server.tool()
    def memory_pattern_for(domain: str, limit: int = 10, cwd: str | None = None) -> dict:
        """Patterns and conventions the project recorded for DOMAIN (e.g. 'auth', 'error handling')."""
        return run_runtime(with_cwd(["memory", "pattern-for", domain, "--limit", str(limit)], cwd))

    @server.tool()
    def memory_decisions_affecting(subsystem: str, limit: int = 20, cwd: str | None = None) -> dict:
        """Decisions recorded for SUBSYSTEM."""
        return run_runtime(with_cwd(["memory", "decisions-affecting", subsystem, "--limit", str(limit)], cwd))

    @server.tool()
    def config_get(key: str, cwd: str | None = None) -> dict:
        """The effective value of a config key (project .planning/config.json, user defaults, schema default)."""
        return run_runtime(with_cwd(["config", "get", key], cwd))

    @server.tool()
    def resolve(stem: str, root: str | None = None, cwd: str | None = None) -> dict:
        """The verified detail parts of a shipped workflow, honouring workflow.compact_content."""
        args = ["resolve", stem] + (["--root", root] if root else [])
        return run_runtime(with_cwd(args, cwd))

    return server


def serve(default_cwd: str | None = None) -> None:
    build_server(default_cwd).run()
