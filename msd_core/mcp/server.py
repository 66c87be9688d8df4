"""`msd mcp`: an MCP server over stdio exposing the memory queries, config get and resolve.

Each tool runs the same code path as the matching `msd_run` command (in-process, through
the dispatcher's `call`, which returns the command's result instead of printing it; the
`msd mcp` command hands it in, so this package never imports the runtime above it), so
the server and the CLI can never disagree, and concurrent calls (the SDK runs each sync
tool in its own thread) never see each other's answers. A failed command is raised as the
SDK's ToolError: the client gets `isError: true` and the one-line message (with the exit
code). Needs the optional `mcp` dependency group (`pipx inject msd-core mcp` for a pipx install,
`pip install 'msd-core[mcp]'` otherwise: msd_core/mcp/remedy.py).
"""

from __future__ import annotations

from msd_core.errors import OperationFailed

SERVER_NAME = "msd-core"


class RuntimeCallFailed(Exception):
    """A tool's command failed: `error` is what the CLI reports (message, exit code, hint)."""

    def __init__(self, error: dict):
        self.error = error
        text = f"{error.get('message')} (exit code {error.get('exit_code')})"
        if error.get("hint"):
            text += f"; hint: {error['hint']}"
        super().__init__(text)


def run_runtime(argv: list[str], call) -> dict:
    """Run one `msd_run` command in-process through `call(argv) -> (exit code, value)`: its
    result as a dict; RuntimeCallFailed when it fails."""
    code, value = call(argv)
    if code != 0:
        raise RuntimeCallFailed(value if isinstance(value, dict) else {"message": str(value), "exit_code": code})
    if isinstance(value, str):  # a command's printable text (e.g. `config get`'s JSON value)
        from msd_core.files.bounded import loads_json

        try:
            value = loads_json(value, "the command's output") if value.strip() else {}
        except ValueError:
            return {"output": value.strip()}
    return value if isinstance(value, dict) else {"value": value}


def _tool_error_class():
    for name in ("mcp.server.mcpserver.exceptions", "mcp.server.fastmcp.exceptions"):
        try:
            module = __import__(name, fromlist=["ToolError"])
            return module.ToolError
        except ImportError:
            continue
    return RuntimeError  # pragma: no cover - every supported SDK has one of the above


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
        from msd_core.mcp.remedy import mcp_hint

        raise OperationFailed("the MCP server needs the mcp package", hint=mcp_hint()) from None


def build_server(call, default_cwd: str | None = None):
    """The server; `call` is msd_run's in-process dispatcher (msd_core.run.dispatch.call)."""
    server = _server_class()(SERVER_NAME)

    tool_error = _tool_error_class()

    def with_cwd(args: list[str], cwd: str | None, *values: str) -> list[str]:
        """The command and its options, then `--` and every positional value: a value such
        as "--help" or "-x" is always taken as the value, never as an option."""
        where = cwd or default_cwd
        return args + (["--cwd", where] if where else []) + ["--", *values]

    def answer(args: list[str]) -> dict:
        try:
            return run_runtime(args, call)
        except RuntimeCallFailed as exc:
            raise tool_error(str(exc)) from None

    @server.tool()
    def memory_search(text: str, limit: int = 10, cwd: str | None = None) -> dict:
        """Full-text search over the project's SUMMARY/CONTEXT/RESEARCH/VERIFICATION files (bm25-ranked).

        Returns {"query", "term", "reindexed", "hits": [{"file", "phase", "plan", "field" or "section",
        "snippet", "score"}]}, best first; an error result when the project has no .planning/ folder."""
        return answer(with_cwd(["memory", "search", "--limit", str(limit)], cwd, text))

    @server.tool()
    def memory_what_uses(symbol: str, type: str = "any", limit: int = 10, cwd: str | None = None) -> dict:
        """Which phases declare or use SYMBOL (a model, file, api or library); whole-word matches.

        Returns {"query", "term", "reindexed", "hits": [{"file", "phase", "plan", "field", "snippet", "score"}]}."""
        return answer(with_cwd(["memory", "what-uses", "--type", type, "--limit", str(limit)], cwd, symbol))

    @server.tool()
    def memory_pattern_for(domain: str, limit: int = 10, cwd: str | None = None) -> dict:
        """Patterns and conventions the project recorded for DOMAIN (e.g. 'auth', 'error handling').

        Returns {"query", "term", "reindexed", "hits": [{"file", "phase", "plan", "field", "snippet", "score"}]}."""
        return answer(with_cwd(["memory", "pattern-for", "--limit", str(limit)], cwd, domain))

    @server.tool()
    def memory_decisions_affecting(subsystem: str, limit: int = 20, cwd: str | None = None) -> dict:
        """Decisions recorded for SUBSYSTEM.

        Returns {"query", "term", "reindexed", "hits": [{"file", "phase", "plan", "subsystem" or "section",
        "snippet", "score"}]}."""
        return answer(with_cwd(["memory", "decisions-affecting", "--limit", str(limit)], cwd, subsystem))

    @server.tool()
    def config_get(key: str, cwd: str | None = None) -> dict:
        """The effective value of a config key (project .planning/config.json, user defaults, schema default).

        Returns {"value": <the value>}; an unknown key is an error result naming `msd_run config list`."""
        return answer(with_cwd(["config"], cwd, "get", key))

    @server.tool()
    def resolve(stem: str, root: str | None = None, cwd: str | None = None) -> dict:
        """The verified detail parts of a shipped workflow, honouring workflow.compact_content.

        Returns {"stem", "compact", "root", "parts": [absolute paths of the verified files to read, in order]};
        an error result: exit code 3 when there is no msd-core install at ROOT, 2 when ROOT is no msd-core folder."""
        args = ["resolve"] + (["--root", root] if root else [])
        return answer(with_cwd(args, cwd, stem))

    return server


def serve(call, default_cwd: str | None = None) -> None:
    build_server(call, default_cwd).run()
