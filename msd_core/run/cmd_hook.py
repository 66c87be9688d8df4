"""`msd_run hook <event> [--root DIR]`: what msd does when Claude Code calls one of its hooks.

Events: session-start, pre-compact, pre-tool-use, post-tool-use (msd_core/hooks/events.py), and `probe`
(prints `ok`: `msd status` checks the host can start msd's hooks). The host's JSON arrives on
stdin; the answer (if any) is printed on stdout; the exit code is always 0.

`guard-server` is not one call but the session's MCP server of the guards
(msd_core/hooks/guard_server.py): it answers on stdout until stdin ends.
"""

from __future__ import annotations


def configure(parser) -> None:
    parser.add_argument("event", help="the hook event: session-start, pre-compact, pre-tool-use, post-tool-use, probe, "
                        "or guard-server (the guards' MCP server, until stdin ends)")
    parser.add_argument("--root", metavar="DIR", help="the installed msd-core folder (the install names it)")


def answer(event: str, root: str | None) -> int:
    """Run the hook and print its answer (msd_core.run.entry calls this directly for the common form)."""
    import sys

    if event == "guard-server":
        from msd_core.hooks.guard_server import main as serve

        return serve(root)
    from msd_core.hooks.events import run as run_hook

    out, code = run_hook(event, root)
    if out:
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return code


def run(args):
    return answer(args.event, args.root)
