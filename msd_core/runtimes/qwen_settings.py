"""msd's guard hook in Qwen Code's settings.json (`<config>/settings.json`: project `.qwen/`, user
`~/.qwen/`): one group appended to `hooks.PreToolUse` (hook_settings.py, which installs and uninstalls it),

    {"matcher": "^(run_shell_command|read_file|write_file|edit)$",
     "hooks": [{"type": "command", "command": "<msd_run> hook qwen-pre-tool-use --root R", "timeout": 30}]}

(msd_core/hooks/qwen.py maps the call onto msd's guard). Read in the real Qwen Code 0.24.4 (its bundled
docs/features/hooks.md; tests/runtimes/test_client_guards_cli.py): hooks live in settings files only,
a project's load only in a folder Qwen trusts, the user's always; `timeout` is in seconds.
"""

from __future__ import annotations

from msd_core.runtimes.hook_settings import HookGroup

SETTINGS = HookGroup(runtime="qwen", client="Qwen Code", path=("hooks", "PreToolUse"), event="qwen-pre-tool-use",
                     matcher="^(run_shell_command|read_file|write_file|edit)$", timeout=30)  # seconds; the guard answers in milliseconds
