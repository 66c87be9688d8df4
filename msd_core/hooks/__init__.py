"""What msd does when Claude Code calls it: `msd_run hook <event>` and `msd_run statusline`.

The install registers each as the absolute path of msd_run with arguments (msd_core/install/
host_hooks.py). Each handler reads the JSON the host passes on stdin, answers in a few
milliseconds with the standard library only, and never fails the session: whatever goes wrong
is one line on stderr and exit 0.

  events.py         the event names and their handlers; reading the host's payload
  position.py       where the workflow is (flow, step, phase, plan, wave, last result, open question)
                    and the one command that continues it
  session_start.py  msd_run's folder on the host's PATH; after compact/resume/clear, the position
  pre_compact.py    the checkpoint written before the host compacts the conversation
  post_tool_use.py  a token budget or context share crossed: told to the agent and the user once
  pre_tool_use.py   the guards, one process per guarded call, refusing with the host's deny JSON:
    planning_guard.py  what a write (Write, Edit, MultiEdit, NotebookEdit) of a .planning/ document
                       would lose (proposed.py: the content it would leave; patch_edits.py: what an
                       apply_patch leaves in each file it touches; shrink.py: its text
                       against a reference that outlives the session; guard_memory.py: the guard's
                       records, a person's one-write allowances)
    injection.py       instructions aimed at the agent in text saved into .planning/; quarantine
    injection_rows.py  what the injection screen looks for: its patterns, look-alike letters, invisible characters
    planning_bash.py   whether a Bash command would overwrite, edit in place or delete a `.planning/` file the
                       write guard keeps (config.json, msd's records, an existing document)
    secret_files.py    files holding credentials; whether a Read or a Grep would show one
    secret_bash.py     whether a Bash command would show one (print, source, copy it away)
    shell_words.py     a Bash command read as the shell reads it, at the word level
    guard_settings.py  the project's `guards.*` settings, read without pathlib or the config store
  copilot.py        Copilot CLI's preToolUse hook: its payload (shell, read, file writes) mapped onto pre_tool_use.py, its deny answer
  qwen.py           Qwen Code's PreToolUse hook: its tool names (shell, read, file writes) mapped onto pre_tool_use.py
  kimi.py           Kimi Code's PreToolUse hook: its tool names (and Bash's own cwd, Write's append) mapped onto pre_tool_use.py
  gemini.py         Gemini CLI's BeforeTool hook: its tool names (shell, read, file writes), Gemini's deny answer
  opencode.py       OpenCode's tool calls, as msd's plugin passes them: shell, read, grep, file writes, apply_patch; Gemini's answer
  client_calls.py   another CLI's tool call as the guard reads one (what the adapters share)
  statusline.py     the one-line status the host shows under the prompt
  payload.py        the JSON the host passes on stdin, read within a cap, and what it says
  budget.py         the project's token and context budgets, and whether a session crossed one (told once)
  guard_server.py   the guards as an MCP server the host starts once per session (a global install)

Adding a hook: a handler module here, its name in events.HANDLERS, and its rows in
msd_core/install/host_hooks.HOOKS (with a matcher, and an `if` rule where the host can tell
the calls it judges by their words: a guard's rows have none, see host_hooks.BASH_ROW).
"""
