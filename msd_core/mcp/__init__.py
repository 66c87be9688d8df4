"""msd's MCP server and its registration with the agent clients that read MCP servers.

  server.py   the stdio server: memory queries, config get and resolve (the dispatcher is handed in)
  setup.py    `msd mcp install|uninstall`: the server entry (and Claude Code's mcp__msd permission),
              edited in place, recorded, given back byte for byte
  clients.py  which client (Claude Code, Copilot CLI, Kimi Code, Gemini CLI, Codex CLI, OpenCode) and
              where each reads MCP servers
  toml_table.py  msd's [mcp_servers.msd] table in Codex's config.toml: appended, recorded, cut out
  remedy.py   how to add the optional `mcp` package, said for the way msd-core was installed
"""
