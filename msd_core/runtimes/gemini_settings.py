"""msd's guard hook in Gemini CLI's settings.json (`<config>/settings.json`: project `.gemini/`, user
`~/.gemini/`): one group appended to `hooks.BeforeTool` (hook_settings.py, which installs and uninstalls it),

    {"matcher": "^(run_shell_command|read_file|write_file|replace)$",
     "hooks": [{"type": "command", "command": "<msd_run> hook gemini-pre-tool-use --root R", "timeout": 30000}]}

(msd_core/hooks/gemini.py maps the call onto msd's guard). Read in the real Gemini CLI 0.61.0 (its bundled
docs/hooks/reference.md and hookRunner/hookRegistry code; tests/runtimes/test_client_guards_cli.py):
hooks live in settings files (project, user, system) and extensions; a project's run only in a folder
Gemini trusts (else "Blocked execution of project hook in untrusted folder"), the user's always;
`timeout` is in milliseconds (default 60000); a hook that fails or times out is a warning and the
tool runs.
"""

from __future__ import annotations

from msd_core.runtimes.hook_settings import HookGroup

SETTINGS = HookGroup(runtime="gemini", client="Gemini CLI", path=("hooks", "BeforeTool"), event="gemini-pre-tool-use",
                     matcher="^(run_shell_command|read_file|write_file|replace)$", timeout=30000)  # ms; the guard answers in milliseconds
