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

Order: `msd install` registers the server before its transaction writes the rows (a run killed
in between leaves a server no hook calls, which the next install keeps and uninstall removes;
never a row calling a server that is not there) and takes it out again if the transaction
fails; `msd uninstall` takes it out before its transaction and puts it back if that fails.
The file is edited under Claude Code's own lock with only the entry's bytes changing
(claude_json.edit_json), and what msd made around it is kept in files/edit_record.py under
RECORD, so uninstall gives the file back byte for byte. Where the entry cannot be written (a
server of that name that is not msd's, a file that does not parse, a symlink), the install
keeps command rows and says why in one warning.

A local install keeps command rows: a project's servers (`.mcp.json`) wait for the user's
approval, and until then every guard would be off.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core.lean.guard_names import GUARD_SERVER as SERVER
from msd_core.lean.guard_names import GUARD_TOOL as TOOL
from msd_core.install.lean_start import LEAN_FLAGS, LEAN_MARK, interpreter, lean_start

PERMISSION = f"mcp__{SERVER}"
RECORD = "guard-server"
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


def transport(target, root: str) -> tuple[str, str | None]:
    """("mcp", None) when the server can be registered for `target`, else ("command", why or None)."""
    from msd_core.errors import MsdError
    from msd_core.runtimes.claude_json import precheck

    if not applies(target):
        return "command", None
    path = servers_file(target)
    try:
        precheck(path, _change(root))
    except MsdError as exc:
        return "command", f"{exc.message}; msd's guards start a process per guarded call instead of the {SERVER} server"
    return "mcp", None


def register(target, root: str) -> str:
    """Write (or update) the entry; returns the note ("added", "updated", "unchanged"). What msd
    will make around it is recorded first (files/edit_record.py says why)."""
    from msd_core.errors import MsdError
    from msd_core.files import edit_record
    from msd_core.runtimes.claude_json import edit_json, peek

    path = servers_file(target)
    if registered(target) == entry(root):
        return "unchanged"
    existed = os.path.lexists(path)
    had = edit_record.recall(path, RECORD)
    edit_record.remember(path, RECORD, not existed, [] if existed and isinstance(peek(path).get("mcpServers"), dict) else ["mcpServers"])
    try:
        return edit_json(path, _change(root), new_mode=0o600)
    except MsdError:
        if not had and registered(target) is None:
            edit_record.forget(path, RECORD)  # nothing was written: no record of it either
        raise


def unregister(target) -> str:
    """Take msd's entry out (and what msd made around it); returns the note ("removed", "absent")."""
    from msd_core.files import edit_record
    from msd_core.mcp.setup import remove_server
    from msd_core.runtimes.claude_json import edit_json

    path = servers_file(target)
    if not applies(target):
        return "absent"
    if not os.path.lexists(path):
        edit_record.forget(path, RECORD)  # a run killed between the record and the edit
        return "absent"
    made = edit_record.recall(path, RECORD)
    created = made.get("created") if made else ("mcpServers",)
    note = edit_json(path, remove_server(created, name=SERVER, ours=is_ours), delete_when_empty=bool(made.get("created_file")))
    edit_record.forget(path, RECORD)
    return "removed" if note not in ("unchanged", None) else "absent"


def registered(target) -> dict | None:
    """msd's entry as ~/.claude.json holds it now (None: not there, or not msd's); never writes."""
    from msd_core.runtimes.claude_json import peek

    servers = peek(servers_file(target)).get("mcpServers")
    value = servers.get(SERVER) if isinstance(servers, dict) else None
    return value if is_ours(value) else None


__all__ = ["SERVER", "TOOL", "PERMISSION", "applies", "entry", "is_ours", "transport", "register", "unregister", "registered"]
