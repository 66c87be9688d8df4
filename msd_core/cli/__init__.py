"""`msd`: the people-facing command (typer + rich). Thin adapters over msd_core's logic.

typer reads every command line (app.py); each module registers its commands on the app.
  app.py          the app: the subcommand modules in help order, `--version`, Ctrl-C as one line
  helpstyle.py    how help shows options and arguments, usage errors as one line, examples
  common.py       the error boundary, the JSON printer, the console, registering a one-verb group
  terminal.py     the one console: every segment's text cleaned before rich styles it
  install.py      install, update, uninstall, status
  install_view.py the human view of an install's result and of where msd_run is
  targets.py      the config folder a scope names, and the warning when both scopes hold an install
  config.py       config get|set|unset|list
  init.py         init new-project: the settings wizard
  check.py        check content
  bench.py        bench tokens
  chain.py        chain: a flow run step by step, one fresh agent per step
  mcp.py          mcp: the MCP server, and registering it with Claude Code
  plugin.py       plugin build
  usage.py        usage: what the project's work cost, from the host's transcripts
  guard.py        guard allow: one write the guards refused, allowed by a person
  review.py       security accept: recorded security findings accepted as risks
"""
