"""`msd_run hook guard-server`: msd's guards as an MCP server the host starts once per session.

A global install registers this server with Claude Code (`mcpServers.msd-guard` in
~/.claude.json, msd_core/install/guard_server_setup.py) and points its PreToolUse guard rows at it
as `mcp_tool` hooks (msd_core/install/host_hooks.py): the host calls the tool `check` of this
one process for every guarded tool call instead of starting a Python process per call. The
answer is what `msd_run hook pre-tool-use` would print (pre_tool_use.py): the host's JSON deny
as the tool's text, or no content at all (the call goes ahead). Claude Code 2.1.332 reads an
mcp_tool hook's text as a hook's JSON output; a failed call (`isError`, a crash, a timeout)
lets the call go ahead, as a command hook that exits 1 does.

The protocol is MCP over stdio, one JSON-RPC message per line (no batches): `initialize`,
`ping`, `tools/list`, `tools/call`; notifications are read and dropped; any other request gets
-32601 (the host asks `server/discover` first and then initializes). A line that is not JSON
gets -32700 and the server reads on; a line longer than MAX_LINE is skipped whole with -32600.
The server ends on end of input, and at once (exit 0) on SIGINT, SIGTERM or SIGHUP (the host
stops its servers with SIGINT).

Each guarded call is judged on a thread of its own and answered within CALL_DEADLINE seconds
(below the host's 30 s hook limit): the guards read every file through msd_core.files.safe_read
(a FIFO or device is refused at once and the guards' defaults apply, every guard on), and should a
check still be held up, the call is refused with a reason to retry, never let through for want of
a verdict, and the next call is judged on a fresh thread: nothing one call meets stalls the next.

Started lean like the command guard (`python -I -S -c <start> hook guard-server --root R`): the
handshake imports neither json nor re (`dumps` below uses the json module's C string encoder;
requests are parsed by files/bounded.py's C scanner), so the host, which waits for its servers
before the first request, waits for little more than Python's own start. Once `tools/list` is
answered the server imports what a guarded call needs (WARM), while the host talks to the model.
"""

from __future__ import annotations

import os
import sys

from msd_core.lean.guard_limits import MAX_MESSAGE

PROTOCOL = "2025-06-18"
SERVER_INFO_NAME = "msd-core guards"  # what the server calls itself; the host knows it by its key (lean/guard_names.py)
MAX_LINE = MAX_MESSAGE  # bytes; a Write's whole content arrives in one line (the command hook's stdin cap too)
CALL_DEADLINE = 10.0  # seconds a guarded call may take, here and in `msd_run hook pre-tool-use`; the host gives a hook 30
INPUT_FIELDS = ("tool_name", "tool_input", "cwd", "session_id", "agent_id")
TOOL_SPEC = {
    "description": "msd-core's guard for one tool call (called by msd's PreToolUse hooks, not by the model): "
                   "answers the host's deny JSON, or nothing when the call may go ahead.",
    "inputSchema": {"type": "object", "properties": {
        "tool_name": {"type": "string"},
        "tool_input": {"type": "string", "description": "the call's input as JSON text (the hook's ${tool_input})"},
        "cwd": {"type": "string"}, "session_id": {"type": "string"}, "agent_id": {"type": "string"}},
        "required": ["tool_name", "tool_input"]},
}


def dumps(value) -> str:
    """JSON text of dicts, lists, strings, numbers, booleans and None (no json import)."""
    from _json import encode_basestring_ascii as text

    if isinstance(value, str):
        return text(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{text(str(k))}:{dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    raise TypeError(f"cannot encode {type(value).__name__}")


def _error(msg_id, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def _initialize(params: dict) -> dict:
    from msd_core import __version__

    asked = params.get("protocolVersion") if isinstance(params, dict) else None
    return {"protocolVersion": asked if isinstance(asked, str) and asked else PROTOCOL,
            "capabilities": {"tools": {}}, "serverInfo": {"name": SERVER_INFO_NAME, "version": __version__}}


def payload_of(arguments) -> dict:
    """The hook payload pre_tool_use.handle reads, from the tool's arguments (the host fills each
    `${field}` with "" when the call has no such field; `tool_input` arrives as JSON text)."""
    from msd_core.files.bounded import loads_json

    args = arguments if isinstance(arguments, dict) else {}
    payload: dict = {"hook_event_name": "PreToolUse"}
    for field in INPUT_FIELDS:
        value = args.get(field)
        if field == "tool_input" and isinstance(value, str):
            value = loads_json(value, "tool_input") if value else None
        if value not in (None, ""):
            payload[field] = value
    return payload


def check(arguments, install_root: str | None) -> str | None:
    """One guarded call's verdict: the deny JSON, or None (go ahead)."""
    from msd_core.hooks import pre_tool_use
    from msd_core.hooks.events import Context
    from msd_core.hooks.payload import absolute_root

    payload = payload_of(arguments)
    return pre_tool_use.handle(payload, Context(absolute_root(install_root, payload)))


def _call(params, install_root: str | None) -> dict:
    from msd_core.lean.guard_names import GUARD_TOOL

    params = params if isinstance(params, dict) else {}
    if params.get("name") != GUARD_TOOL:
        return {"content": [{"type": "text", "text": f"unknown tool {str(params.get('name'))[:60]!r} (this server has {GUARD_TOOL!r})"}],
                "isError": True}
    done, verdict, failure = within(CALL_DEADLINE, check, params.get("arguments"), install_root)
    if not done:
        from msd_core.hooks.pre_tool_use import held_up

        verdict = held_up(CALL_DEADLINE)
    elif failure is not None:  # a broken guard is "no verdict", never a crash of the session's server
        if os.environ.get("MSD_DEBUG"):
            raise failure
        return {"content": [{"type": "text", "text": f"msd guard: {type(failure).__name__}: {str(failure)[:200]}"}],
                "isError": True}
    return {"content": [{"type": "text", "text": verdict}] if verdict else []}


def within(seconds: float, func, *args):
    """(finished, result, exception) of `func(*args)` run on a thread of its own, waited for at most
    `seconds`. A call still running then is left to finish alone (a daemon thread: it holds nothing
    the next call needs) and reported as (False, None, None). `_thread`, not `threading`: the lean
    start imports nothing for it."""
    import _thread

    finished = _thread.allocate_lock()
    finished.acquire()
    box: list = [None, None]

    def run():
        try:
            box[0] = func(*args)
        except Exception as exc:  # noqa: BLE001 - handed to the caller
            box[1] = exc
        finally:
            finished.release()

    _thread.start_new_thread(run, ())
    if not finished.acquire(timeout=seconds):
        return False, None, None
    return True, box[0], box[1]


def answer(message, install_root: str | None) -> dict | None:
    """The response to one parsed message (None: a notification, nothing to send)."""
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        if isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message):
            return None  # a response to a request of ours: we send none
        return _error(message.get("id") if isinstance(message, dict) else None, -32600, "not a JSON-RPC request")
    if "id" not in message:
        return None
    method, msg_id, params = message["method"], message["id"], message.get("params") or {}
    if method == "initialize":
        result = _initialize(params)
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        from msd_core.lean.guard_names import GUARD_TOOL

        result = {"tools": [{"name": GUARD_TOOL, **TOOL_SPEC}]}
    elif method == "tools/call":
        result = _call(params, install_root)
    else:
        return _error(msg_id, -32601, f"method not found: {method[:60]}")
    return {"jsonrpc": "2.0", "id": msg_id, "result": result}


def _parse(line: bytes):
    from msd_core.files.bounded import loads_json

    try:
        return loads_json(line, "message"), None
    except (ValueError, UnicodeDecodeError) as exc:
        return None, _error(None, -32700, f"parse error: {str(exc)[:120]}")


def _leave_on_signals() -> None:
    import _signal  # the C module: `signal` would import enum

    def leave(_signum, _frame):
        os._exit(0)

    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        if hasattr(_signal, name):
            _signal.signal(getattr(_signal, name), leave)


WARM = ("msd_core.hooks.pre_tool_use", "msd_core.hooks.guard_settings", "msd_core.hooks.planning_guard", "msd_core.hooks.shrink",
        "msd_core.hooks.proposed", "msd_core.hooks.secret_files")


def warm() -> None:
    """Import what the first guarded call needs, once the handshake is answered: the host then
    talks to the model, so the imports happen while it waits instead of on the first Write."""
    for name in WARM:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - the call that needs it reports it
            return


def serve(install_root: str | None, stdin=None, stdout=None, warm_up=warm) -> int:
    """Answer messages from `stdin` (bytes, one per line) on `stdout` until end of input."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout.buffer
    while True:
        line = stdin.readline(MAX_LINE + 1)
        if not line:
            return 0
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # the rest of the oversized line
                line = stdin.readline(MAX_LINE + 1)
            reply = _error(None, -32600, f"message longer than {MAX_LINE} bytes; skipped")
        elif not line.strip():
            continue
        else:
            message, reply = _parse(line)
            if reply is None:
                if isinstance(message, list):
                    reply = _error(None, -32600, "batches are not supported")
                else:
                    reply = answer(message, install_root)
        if reply is not None:
            stdout.write(dumps(reply).encode("ascii") + b"\n")
            stdout.flush()
            if warm_up is not None and reply.get("result", {}).get("tools") is not None:  # tools/list answered
                warm_up()
                warm_up = None


def main(install_root: str | None) -> int:
    _leave_on_signals()
    try:
        return serve(install_root)
    except BrokenPipeError:
        return 0
