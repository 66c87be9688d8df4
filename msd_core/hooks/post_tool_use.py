"""PostToolUse (Agent calls, and msd's `msd_run step-done` / `msd_run commit` Bash calls: the ends of
a workflow's steps; no ordinary Bash call starts it): a budget crossed is told to the agent and the
user, once.

- context share: the session's latest request (its transcript's last `assistant` usage) against
  the model's window, at or past `usage.context_warn_percent`: once per session;
- phase tokens: the phase in progress (the running flow's `phase`) has used at least
  `usage.phase_token_budget` tokens in the host's transcripts (msd_core.usage): once per phase.

The answer is the host's JSON: `systemMessage` (shown to the user) and the event's
`additionalContext` (given to the agent). With neither key set (the default) or nothing
crossed, nothing is printed: the hook costs the conversation nothing.
"""

from __future__ import annotations

import json


def handle(payload: dict, ctx) -> str | None:
    from msd_core.hooks import budget
    from msd_core.hooks.payload import project_root

    root = project_root(payload)
    if root is None:
        return None
    tokens_budget, warn_percent, configured = budget.settings(root)
    if not tokens_budget and not warn_percent:
        return None
    told = []
    if warn_percent and not payload.get("agent_id"):
        latest = budget.latest_context(payload.get("transcript_path"))
        if latest is not None:
            from msd_core.usage import cache, report

            size, _source = report.window_of(latest[1], cache.load(root).get("windows", {}), configured)
            share = 100 * latest[0] / size
            if share >= warn_percent and budget.first_time(root, f"context:{payload.get('session_id')}"):
                told.append(f"this session's context is at {share:.0f}% of the model's window ({latest[0]:,} of {size:,} tokens; "
                            f"warning level {warn_percent}%): finish the current step, then pause (/msd-pause-work) or compact")
    if tokens_budget:
        from msd_core.hooks.position import position

        pos = position(root, ctx.install_root)
        phase = pos.get("phase") if pos else None
        if phase:
            used = budget.phase_tokens(root, str(phase))
            if used >= tokens_budget and budget.first_time(root, f"budget:{phase}"):
                told.append(f"phase {phase} has used {used:,} tokens, past its budget of {tokens_budget:,} "
                            f"(usage.phase_token_budget; `msd usage` shows where they went)")
    if not told:
        return None
    text = "msd: " + "; ".join(told) + "."
    return json.dumps({"systemMessage": text,
                       "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}}, ensure_ascii=False)
