"""Which agent client `msd mcp install --client` registers msd's MCP server with, and where that
client reads it. Facts read from the real CLIs (pinned in tests/runtimes/clis.py) and seen in a
headless run against a stand-in model (tests/runtimes/test_mcp_clients_cli.py,
tests/runtimes/test_mcp_own_file_clients_cli.py):

- claude:   msd_core/mcp/setup.py host_files (`~/.claude.json` / `.mcp.json`, plus the
            `mcp__msd` permission in settings.json).
- copilot:  Copilot CLI 1.0.102 (`copilot mcp --help`): user `~/.copilot/mcp-config.json`
            (`$COPILOT_HOME/mcp-config.json`), workspace `.mcp.json` or `.github/mcp.json`. The
            user entry is what `copilot mcp add msd -- <msd> mcp` writes: {"type": "local",
            "command", "args", "tools": ["*"]}; it names the tools `msd-<tool>`.
- kimi:     Kimi Code 2.1.0 (its bundled resolveMcpJsonPaths): user `$KIMI_CODE_HOME/mcp.json`
            (default `~/.kimi-code/mcp.json`), project `<git top>/.mcp.json` and
            `<cwd>/.kimi-code/mcp.json`; a stdio entry is {"command", "args"}; it names the tools
            `mcp__msd__<tool>`.
- gemini:   Gemini CLI 0.61.0 (what `gemini mcp add [-s user] msd <msd> mcp` writes): `mcpServers.msd`
            = {"command", "args"} in `settings.json`, user `~/.gemini/` (`$GEMINI_CLI_HOME/.gemini/`),
            project `<project>/.gemini/`; the file may hold comments (JSONC). Tools `mcp_msd_<tool>`. In a
            folder it does not trust every server is "Disabled" (`gemini mcp list`; its bundled
            getServerStatus), the user's too: GEMINI_CLI_TRUST_WORKSPACE=true or its trust prompt.
- codex:    Codex CLI 0.171.0 (what `codex mcp add msd -- <msd> mcp` writes): a `[mcp_servers.msd]`
            table {command, args} in `config.toml`, user `~/.codex/` (`$CODEX_HOME`), project
            `<project>/.codex/config.toml`, which `codex mcp list` reads only in a project trusted in the
            user's config.toml (`[projects."<path>"] trust_level = "trusted"`). Its request offers the tools
            in a namespace `mcp__msd`. Under approval "never" (`codex exec`) an MCP call is refused ("MCP
            tool call requires approval, but approval policy is never") unless the server's
            `default_tools_approval_mode` is "approve" (one of auto, prompt, writes, approve): msd's
            table says so, as Claude Code gets the mcp__msd permission. Codex sends its first request
            without waiting for a server that is not `required` (a slow start misses that turn).
- opencode: OpenCode 1.18.33 (its `mcp add`): `mcp.msd` = {"type": "local", "command": [<msd>, "mcp"]} in
            the first of `opencode.json`, `opencode.jsonc` that exists in its config folder
            (`~/.config/opencode/`, `$OPENCODE_CONFIG_DIR`), else `opencode.json`; for a project the
            first of those two and `.opencode/opencode.json[c]` at the project's top. JSONC.
            Tools `msd_<tool>`, run without asking (`opencode run`), no trust step.

Project scope of Copilot CLI and Kimi Code is the one `.mcp.json` (Claude Code and Qwen Code read it
too), so it holds Claude's entry; Gemini CLI, Codex and OpenCode do not read `.mcp.json` (`<cli> mcp
list` in a trusted folder holding only one lists none), so their project scope is their own file.
Copilot CLI and Kimi Code start a project's servers only in a folder the user trusted: `copilot
--trust-folder` (or its prompt), and in Kimi "Trust this folder" in an interactive `kimi` there; until
then `kimi -p` prints "this folder is not trusted; skipped 1 project-level MCP server". No client but
Claude Code has a permission file msd must write: each asks before a tool runs, or runs it in its
headless mode (`copilot --allow-all-tools`, `kimi -p`, `gemini --approval-mode yolo`, `opencode run`);
Codex's approval lives in msd's own table (above).
"""

from __future__ import annotations

from pathlib import Path

CLIENTS = ("claude", "copilot", "kimi", "gemini", "codex", "opencode")
LABELS = {"claude": "Claude Code", "copilot": "Copilot CLI", "kimi": "Kimi Code", "gemini": "Gemini CLI",
          "codex": "Codex CLI", "opencode": "OpenCode"}
USER_FILES = {"copilot": ("mcp-config.json",), "kimi": ("mcp.json",), "gemini": ("settings.json",),
              "codex": ("config.toml",), "opencode": ("opencode.json", "opencode.jsonc")}  # in the client's global folder
# in the project ({local}: the client's own project folder, msd_core.paths.RUNTIME_DIRS); else the shared .mcp.json
PROJECT_FILES = {"gemini": ("{local}/settings.json",), "codex": ("{local}/config.toml",),
                 "opencode": ("opencode.json", "opencode.jsonc", "{local}/opencode.json", "{local}/opencode.jsonc")}
SERVERS = {"opencode": ("mcp",)}  # where the servers are in the JSON object (else mcpServers)
TRUST_BOTH = ("gemini",)  # a client whose folder trust gates the user's servers too
TOML = ("codex",)  # a client whose file is TOML (msd_core/mcp/toml_table.py)
JSONC = ("gemini", "opencode")  # a client whose JSON file may hold comments and trailing commas
REMOVE_HINT = {"copilot": "remove it first (copilot mcp remove msd)", "kimi": "remove mcpServers.msd from {path} first",
               "gemini": "remove mcpServers.msd from {path} first", "codex": "remove [mcp_servers.msd] from {path} first",
               "opencode": "remove mcp.msd from {path} first"}
ASKS = {"codex": "none needed (msd's table approves its tools: default_tools_approval_mode = \"approve\")",
        "opencode": "none needed (OpenCode runs an MCP server's tools unless its `permission` says otherwise)"}
CLAUDE_TRUST = "Claude Code applies .claude/settings.json once you trust this folder (start `claude` here once)"
TRUST = {"copilot": "Copilot CLI starts a project's MCP servers only in a folder you trust (copilot --trust-folder, or accept its prompt)",
         "kimi": "Kimi Code starts a project's MCP servers only once you choose \"Trust this folder\" in `kimi` here",
         "gemini": "Gemini CLI starts MCP servers (user's and project's) only in a folder you trust (its prompt, "
                   "or GEMINI_CLI_TRUST_WORKSPACE=true for a headless run)",
         "codex": "Codex reads a project's .codex/config.toml only in a trusted project (accept its prompt, or "
                  "[projects.\"<path>\"] trust_level = \"trusted\" in ~/.codex/config.toml)"}


def check(client: str) -> None:
    from msd_core.errors import UsageError

    if client not in CLIENTS:
        raise UsageError(f"{client!r} is not one of {', '.join(CLIENTS)}", about="client")


def _first(folder: Path, names: tuple[str, ...]) -> Path:
    """The first of `names` under `folder` that exists (a symlink counts: it is refused later), else the first."""
    import os

    return next((folder / n for n in names if os.path.lexists(folder / n)), folder / names[0])


def user_file(client: str, config_dir: str | None = None) -> Path:
    """The user-scope file of a client other than Claude: its global folder (`--config-dir`, else its
    variable, else its default; msd_core.paths.runtime_global_dir) / its file name."""
    from msd_core import paths

    return _first(paths.runtime_global_dir(client, config_dir), USER_FILES[client])


def project_file(client: str, project: Path) -> Path | None:
    """The project-scope file of a client with its own (None: the shared `.mcp.json`)."""
    if client not in PROJECT_FILES:
        return None
    from msd_core.paths import RUNTIME_DIRS

    return _first(project, tuple(name.format(local=RUNTIME_DIRS[client][0]) for name in PROJECT_FILES[client]))


def servers_at(client: str) -> tuple[str, ...]:
    return SERVERS.get(client, ("mcpServers",))


def entry_for(client: str, claude_entry: dict, shared: bool) -> dict:
    """The entry of a client (other than Claude) for the command Claude's entry starts; `shared`: the
    project's `.mcp.json`, which holds Claude's entry as it is."""
    command, args = claude_entry["command"], list(claude_entry["args"])
    if shared:
        return claude_entry
    if client == "copilot":
        return {"type": "local", "command": command, "args": args, "tools": ["*"]}
    if client == "opencode":
        return {"type": "local", "command": [command, *args]}
    if client == "codex":  # its tools answer, never change: approved like Claude's mcp__msd permission
        return {"command": command, "args": args, "default_tools_approval_mode": "approve"}
    return {"command": command, "args": args}


def remove_hint(client: str, path: Path, shared: bool) -> str | None:
    """How to clear a foreign `msd` entry (None: Claude's own command, `claude mcp remove`)."""
    return None if shared or client not in REMOVE_HINT else REMOVE_HINT[client].format(path=path)
