"""Registering msd's guard server (msd_core/hooks/guard_server.py) with Claude Code for a global install.

A global install's PreToolUse guard rows are `mcp_tool` hooks calling the tool `check` of the
MCP server `msd-guard` (host_hooks.py): one Python process per session answers every guarded
call, where a command hook starts one per call. The server is registered where Claude Code
2.1.332 keeps a user's MCP servers, `mcpServers.msd-guard` in ~/.claude.json (or
`<config>/.claude.json` for another config folder: msd_core/mcp/setup.py host_files), as

    {"type": "stdio", "command": <msd's python>, "args": ["-I", "-S", "-c", <lean start>,
     "hook", "guard-server", "--root", <msd-core folder>], "env": {}}

and its tool is kept out of the model's list by `mcp__msd-guard` in settings.json's
permissions.deny (host_hooks.py adds it with the rows; the host still calls a denied tool for a
hook: tests/host/test_guards_host.py).

Order: `msd install` plans the entry before its transaction (what msd will make around it, the
file itself or `mcpServers`, goes into the manifest's hooks record as RECORD) and writes it as one
step of that transaction (files/txn.py `Outside`: under Claude Code's own lock, with the file's
byte-exact before-image kept), right before the manifest; `msd uninstall` takes it out, by that
record, in its own transaction. A run killed at any instant is rolled back by the next run's
recovery, the entry with the rest: the rows, the manifest and the entry always agree. Only the
entry's bytes change (claude_json.edited_bytes), so uninstall gives the file back byte for byte,
removes the file msd created once nothing else is in it, and gives a file that was empty (or only
blank) back exactly as it was (RECORD's "blank"). Where the entry cannot be written (a server of
that name that is not msd's, a file that does not parse, a symlink), the install keeps command
rows and says why in one warning.

A local install keeps command rows: a project's servers (`.mcp.json`) wait for the user's
approval, and until then every guard would be off.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.errors import MsdError
from msd_core.files.txn import Outside
from msd_core.install.lean_start import LEAN_FLAGS, LEAN_MARK, interpreter, lean_start
from msd_core.lean.guard_names import GUARD_SERVER as SERVER
from msd_core.lean.guard_names import GUARD_TOOL as TOOL

PERMISSION = f"mcp__{SERVER}"
RECORD = "guard_server"  # key in the manifest's hooks record: {"created_file": bool, "created": [...], "blank"?: str}
EVENT = "guard-server"


def applies(target) -> bool:
    return target.runtime == "claude" and target.scope == "global"


def servers_file(target) -> Path:
    from msd_core.mcp.setup import host_files

    return host_files("user", config_dir=str(target.config))[0]


def entry(root: str) -> dict:
    return {"type": "stdio", "command": str(interpreter()),
            "args": [*LEAN_FLAGS, lean_start(), "hook", EVENT, "--root", root], "env": {}}


def is_ours(value) -> bool:
    if not isinstance(value, dict) or not isinstance(value.get("command"), str):
        return False
    args = value.get("args")
    return (isinstance(args, list) and args[:3] == LEAN_FLAGS and len(args) > 5 and isinstance(args[3], str)
            and LEAN_MARK in args[3] and args[4:6] == ["hook", EVENT])


def _change(root: str, made: list[str] | None = None):
    from msd_core.mcp.setup import add_server

    return add_server(entry(root), made, name=SERVER, ours=is_ours)


def plan(target, root: str, previous: dict | None) -> tuple[str, str | None, dict | None]:
    """(transport, warning or None, the record for the manifest) for `target`: "mcp" when the entry
    can be written (the record says what msd will make around it, merged with an earlier
    install's), else "command" with why. Nothing here writes."""
    from msd_core.runtimes.claude_json import precheck, read_file

    if not applies(target):
        return "command", None, None
    path = servers_file(target)
    made: list[str] = []  # the containers the entry's edit makes (precheck applies it to a copy)
    try:
        data = read_file(path)
        precheck(path, _change(root, made))
    except MsdError as exc:
        return "command", f"{exc.message}; msd's guards start a process per guarded call instead of the {SERVER} server", None
    before = previous if isinstance(previous, dict) else {}
    rec = {"created_file": bool(before.get("created_file")) or data is None,
           "created": list(dict.fromkeys([*(before.get("created") or []), *made]))}
    blank = before.get("blank")
    if isinstance(blank, str) and not blank.strip():
        rec["blank"] = blank
    elif data is not None and not data.strip() and not rec["created_file"]:
        try:
            rec["blank"] = data.decode("ascii")  # 0 bytes or only white space: given back exactly so
        except UnicodeDecodeError:
            pass
    return "mcp", None, rec


def add_step(target, root: str):
    """The transaction step (files/txn.py Outside) that writes (or updates) the entry; None when it
    is there already as this install would write it."""
    from msd_core.runtimes.claude_json import edited_bytes

    if registered(target) == entry(root):
        return None
    path = servers_file(target)
    return Outside(path, lambda data: edited_bytes(path, data, _change(root))[0], mode=0o600)


def remove_step(target, record: dict | None):
    """The transaction step that takes msd's entry out with what `record` says msd made around it:
    the file msd created goes once nothing else is in it, a file that was blank gets its bytes back.
    None when msd's entry is not there. OperationFailed (before anything is written) when the
    file cannot be edited."""
    from msd_core.files.txn import REMOVE, Outside
    from msd_core.mcp.setup import remove_server
    from msd_core.runtimes.claude_json import edited_bytes, precheck

    if not applies(target) or registered(target) is None:
        return None
    rec = record if isinstance(record, dict) else {}
    created = rec.get("created") if isinstance(rec.get("created"), list) else ["mcpServers"]
    path = servers_file(target)
    change = remove_server(created, name=SERVER, ours=is_ours)
    precheck(path, change)
    blank = rec.get("blank")

    def edit(data: bytes | None):
        new, _note, after = edited_bytes(path, data, change)
        if new is None or after:
            return new
        if rec.get("created_file"):
            return REMOVE
        return blank.encode("ascii") if isinstance(blank, str) and not blank.strip() else new
    return Outside(path, edit)


def leftovers(target) -> None:
    """What a writer of the file killed outside any transaction left (a stale lock, a dead temp)."""
    from msd_core.runtimes.claude_json import drop_leftovers

    if applies(target):
        drop_leftovers(servers_file(target))


def registered(target) -> dict | None:
    """msd's entry as ~/.claude.json holds it now (None: not there, or not msd's); never writes."""
    from msd_core.runtimes.claude_json import peek

    servers = peek(servers_file(target)).get("mcpServers")
    value = servers.get(SERVER) if isinstance(servers, dict) else None
    return value if is_ours(value) else None


__all__ = ["SERVER", "TOOL", "PERMISSION", "RECORD", "add_step", "applies", "entry", "is_ours", "leftovers", "plan", "registered",
           "remove_step"]
