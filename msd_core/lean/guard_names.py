"""The names Claude Code knows msd's guard server by, for the server itself (hooks/guard_server.py,
whose handshake imports nothing heavier than this) and the install that registers it and writes
the rows calling it (install/guard_server_setup.py, install/host_hooks.py)."""

GUARD_SERVER = "msd-guard"  # mcpServers.<name> in ~/.claude.json; its tools are mcp__msd-guard__<tool>
GUARD_TOOL = "check"  # its one tool, which the guard rows (mcp_tool hooks) call
