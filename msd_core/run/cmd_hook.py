"""`msd_run hook <event> [--root DIR]`: what msd does when Claude Code calls one of its hooks.

Events: session-start, pre-compact, pre-tool-use, post-tool-use (msd_core/hooks/events.py); the same guard as
pre-tool-use in another client's payload and answer: copilot-pre-tool-use (Copilot CLI), qwen-pre-tool-use
(Qwen Code), kimi-pre-tool-use (Kimi Code), gemini-pre-tool-use (Gemini CLI), opencode-pre-tool-use
(OpenCode, through msd's plugin); and `probe`
(prints `ok`: `msd status` checks the host can start msd's hooks). The host's JSON arrives on
stdin; the answer (if any) is printed on stdout; the exit code is always 0.

`guard-server` is not one call but the session's MCP server of the guards
(msd_core/hooks/guard_server.py): it answers on stdout until stdin ends.
"""

from __future__ import annotations


def configure(parser) -> None:
    from msd_core.run import options  # not at the top: `msd_run hook <event>` skips argparse (entry._hook)

    parser.add_argument("event", help="the hook event: session-start, pre-compact, pre-tool-use (copilot-pre-tool-use, "
                        "qwen-pre-tool-use, kimi-pre-tool-use, gemini-pre-tool-use, opencode-pre-tool-use: the same "
                        "guard for Copilot CLI, Qwen Code, Kimi Code, Gemini CLI and OpenCode), "
                        "post-tool-use, probe, "
                        "or guard-server (the guards' MCP server, until stdin ends)")
    options.root(parser, default="the one the install names")


def answer(event: str, root: str | None) -> int:
    """Run the hook and print its answer (msd_core.run.entry calls this directly for the common form)."""
    import sys

    if event == "guard-server":
        from msd_core.hooks.guard_server import main as serve

        return serve(root)
    from msd_core.hooks.events import run as run_hook

    armed = event in GUARD_EVENTS and _arm_deadline(event)
    try:
        out, code = run_hook(event, root)
    finally:
        if armed:
            import _signal

            _signal.alarm(0)
    if out:
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return code


GUARD_EVENTS = ("pre-tool-use", "copilot-pre-tool-use", "qwen-pre-tool-use", "kimi-pre-tool-use",
                "gemini-pre-tool-use", "opencode-pre-tool-use")  # msd's guard, per client (hooks/events.py)
OWN_ANSWERS = {"copilot-pre-tool-use": "msd_core.hooks.copilot", "gemini-pre-tool-use": "msd_core.hooks.gemini",
               "opencode-pre-tool-use": "msd_core.hooks.opencode"}
# the clients that read a refusal in their own form (the module's `answer`); Qwen and Kimi Code read Claude Code's


def _arm_deadline(event: str) -> bool:
    """The guard's answer (in `event`'s client's form) within guard_server.CALL_DEADLINE: should the check still run then (held
    up on something), the call is refused with a reason to retry and the process ends, instead of
    the host's 30 s limit letting the call through unchecked. POSIX only (SIGALRM); `_signal`, not
    `signal`, which would import enum on the hot path."""
    import _signal
    import os
    import sys

    from msd_core.hooks.guard_server import CALL_DEADLINE

    if not hasattr(_signal, "alarm"):
        return False

    def refuse(_signum, _frame):
        from msd_core.hooks.pre_tool_use import held_up

        text = held_up(CALL_DEADLINE)
        if event in OWN_ANSWERS:  # in the client's answer
            __import__(OWN_ANSWERS[event])
            text = sys.modules[OWN_ANSWERS[event]].answer(text) or text
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        os._exit(0)

    _signal.signal(_signal.SIGALRM, refuse)
    _signal.alarm(max(1, int(CALL_DEADLINE)))
    return True


def run(args):
    return answer(args.event, args.root)
