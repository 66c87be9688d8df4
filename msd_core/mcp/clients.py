"""Which agent client `msd mcp install --client` registers msd's MCP server with, and where that
client reads it. Facts read from the real CLIs (pinned in tests/runtimes/clis.py) and seen in a
headless run against a stand-in model (tests/runtimes/test_mcp_clients_cli.py):

- claude:  msd_core/mcp/setup.py host_files (`~/.claude.json` / `.mcp.json`, plus the
           `mcp__msd` permission in settings.json).
- copilot: Copilot CLI 1.0.102 (`copilot mcp --help`): user `~/.copilot/mcp-config.json`
           (`$COPILOT_HOME/mcp-config.json`), workspace `.mcp.json` or `.github/mcp.json`. The
           user entry is what `copilot mcp add msd -- <msd> mcp` writes: {"type": "local",
           "command", "args", "tools": ["*"]}; it names the tools `msd-<tool>`.
- kimi:    Kimi Code 2.1.0 (its bundled resolveMcpJsonPaths): user `$KIMI_CODE_HOME/mcp.json`
           (default `~/.kimi-code/mcp.json`), project `<git top>/.mcp.json` and
           `<cwd>/.kimi-code/mcp.json`; a stdio entry is {"command", "args"}; it names the tools
           `mcp__msd__<tool>`.

Project scope is the one `.mcp.json` for every client (Claude Code, Qwen Code, Copilot CLI and
Kimi Code all read it), so it holds Claude's entry. Copilot CLI and Kimi Code start a project's
servers only in a folder the user trusted: `copilot --trust-folder` (or its prompt), and in Kimi
"Trust this folder" in an interactive `kimi` there; until then `kimi -p` prints "this folder is not
trusted; skipped 1 project-level MCP server". Neither has a permission file msd must write: each
asks before a tool runs (headless: `copilot --allow-all-tools`; `kimi -p` approves by itself).
"""

from __future__ import annotations

from pathlib import Path

CLIENTS = ("claude", "copilot", "kimi")
LABELS = {"claude": "Claude Code", "copilot": "Copilot CLI", "kimi": "Kimi Code"}
USER_FILES = {"copilot": "mcp-config.json", "kimi": "mcp.json"}  # in the client's global folder
REMOVE_HINT = {"copilot": "remove it first (copilot mcp remove msd)", "kimi": "remove mcpServers.msd from {path} first"}
CLAUDE_TRUST = "Claude Code applies .claude/settings.json once you trust this folder (start `claude` here once)"
TRUST = {"copilot": "Copilot CLI starts a project's MCP servers only in a folder you trust (copilot --trust-folder, or accept its prompt)",
         "kimi": "Kimi Code starts a project's MCP servers only once you choose \"Trust this folder\" in `kimi` here"}


def check(client: str) -> None:
    from msd_core.errors import UsageError

    if client not in CLIENTS:
        raise UsageError(f"{client!r} is not one of {', '.join(CLIENTS)}", about="client")


def user_file(client: str, config_dir: str | None = None) -> Path:
    """The user-scope file of copilot or kimi: its global folder (`--config-dir`, else its variable,
    else its default; msd_core.paths.runtime_global_dir) / its file name."""
    from msd_core import paths

    return paths.runtime_global_dir(client, config_dir) / USER_FILES[client]


def user_entry(client: str, claude_entry: dict) -> dict:
    """The user-scope entry of copilot or kimi, for the command Claude's entry starts."""
    if client == "copilot":
        return {"type": "local", "command": claude_entry["command"], "args": list(claude_entry["args"]), "tools": ["*"]}
    return {"command": claude_entry["command"], "args": list(claude_entry["args"])}
