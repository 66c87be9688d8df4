"""msd's guard hook in Codex CLI's hooks.json (`<config>/hooks.json`: project `.codex/`, user
`~/.codex/`): one group appended to `hooks.PreToolUse` (hook_settings.py, which installs and uninstalls it),

    {"matcher": "^(Bash|apply_patch)$", "hooks": [{"type": "command", "command": "<msd_run> hook pre-tool-use --root R", "timeout": 30}]}

Seen in the real Codex CLI 0.171.0 (tests/runtimes/test_client_guards_cli.py, test_client_write_guard_cli.py):
its hooks are Claude Code's, so msd's own `pre-tool-use` answers them unchanged: the payload has
`tool_name` "Bash" and `tool_input.command` for its `exec_command` shell tool, `tool_name`
"apply_patch" and the patch in `tool_input.command` for its freeform `apply_patch` (offered to a
model whose catalog entry says `apply_patch_tool_type`; a patch the model runs through the shell as
`apply_patch <<'EOF'`, which Codex applies itself, arrives as "Bash"), and Claude Code's
`hookSpecificOutput.permissionDecision` "deny" refuses the call ("Command blocked by PreToolUse hook:
<reason>" is the tool's output). Codex runs a hook only once the user has reviewed and trusted it
(its `/hooks` panel), or for one run with `--dangerously-bypass-hook-trust`: until then the hook is
skipped without a word in a headless `codex exec`; a project's `.codex/hooks.json` loads only in a
project trusted in config.toml as well. msd never writes either trust itself.
"""

from __future__ import annotations

from msd_core.runtimes.hook_settings import HookGroup

SETTINGS = HookGroup(runtime="codex", client="Codex CLI", path=("hooks", "PreToolUse"), event="pre-tool-use",
                     matcher="^(Bash|apply_patch)$", timeout=30, file="hooks.json")  # seconds; the guard answers in milliseconds
