"""SessionStart: msd_run on the host's PATH, and after compact/resume/clear the workflow's place.

1. `$CLAUDE_ENV_FILE` (set by Claude Code for SessionStart hooks only; the host sources it before
   each Bash command, a skill's `!` line and a subagent's Bash call): one line
   `export PATH='<msd_run's folder>':"$PATH"` is appended, so a claude started by an IDE or a
   desktop launcher whose PATH lacks msd_run still runs msd's skills (what the older shell hook
   did; tests/host/test_runner_hook_host.py).
2. `source` compact, resume or clear, and an msd workflow in progress: the position (position.py)
   goes to the agent as the hook's `additionalContext` (the host puts it in the first request
   after the compaction: tests/host/test_compaction_host.py). A new session (`startup`) or no workflow in progress:
   nothing is printed, so the hook costs the conversation nothing.
"""

from __future__ import annotations

import json
import os

RESUME_SOURCES = ("compact", "resume", "clear")


def _sh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def put_on_path(runner: str) -> None:
    env_file = os.environ.get("CLAUDE_ENV_FILE")
    folder = os.path.dirname(runner)
    if not env_file or not folder or not os.access(runner, os.X_OK):
        return
    try:
        with open(env_file, "a", encoding="utf-8") as fh:
            fh.write(f'export PATH={_sh_quote(folder)}:"$PATH"\n')
    except OSError:
        pass


def handle(payload: dict, ctx) -> str | None:
    from msd_core.hooks.payload import project_root, this_runner
    from msd_core.hooks.position import describe, position

    if os.name != "nt":
        put_on_path(this_runner())
    if payload.get("source") not in RESUME_SOURCES:
        return None
    root = project_root(payload)
    pos = position(root, ctx.install_root) if root is not None else None
    if pos is None:
        return None
    return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": describe(pos)}},
                      ensure_ascii=False)
