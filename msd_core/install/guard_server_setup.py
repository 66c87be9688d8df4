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
file itself or `mcpServers`, goes into the manifest's hooks record as RECORD) and writes it right
after, once the manifest says so; `msd uninstall` takes it out, by that record, right before its
transaction and puts it back if that fails. So a run killed in between leaves at worst rows that
call a server not registered yet (the guards let calls through, `msd status` says so) and a
manifest that knows what msd made; the next install or uninstall finishes the job. The file is
edited under Claude Code's own lock with only the entry's bytes changing (claude_json.edit_json),
so uninstall gives it back byte for byte, or removes the file msd created once nothing else is in
it. Where the entry cannot be written (a server of that name that is not msd's, a file that does
not parse, a symlink), the install keeps command rows and says why in one warning.

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
RECORD = "guard_server"  # key in the manifest's hooks record: {"created_file": bool, "created": [...]}
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
    from msd_core.errors import MsdError
    from msd_core.runtimes.claude_json import precheck

    if not applies(target):
        return "command", None, None
    path = servers_file(target)
    existed = os.path.lexists(path)
    made: list[str] = []  # the containers the entry's edit makes (precheck applies it to a copy)
    try:
        precheck(path, _change(root, made))
    except MsdError as exc:
        return "command", f"{exc.message}; msd's guards start a process per guarded call instead of the {SERVER} server", None
    before = previous if isinstance(previous, dict) else {}
    return "mcp", None, {"created_file": bool(before.get("created_file")) or not existed,
                         "created": list(dict.fromkeys([*(before.get("created") or []), *made]))}


def register(target, root: str) -> str:
    """Write (or update) the entry; returns the note ("added", "updated", "unchanged")."""
    from msd_core.runtimes.claude_json import drop_leftovers, edit_json

    path = servers_file(target)
    note = edit_json(path, _change(root), new_mode=0o600)
    if note == "unchanged":
        drop_leftovers(path)  # what a killed run left: the host would take its lock over, and so do we
    return note


def unregister(target, record: dict | None) -> str:
    """Take msd's entry out, with what `record` says msd made around it; returns "removed" or "absent"."""
    from msd_core.mcp.setup import remove_server
    from msd_core.runtimes.claude_json import drop_leftovers, edit_json

    path = servers_file(target)
    if not applies(target):
        return "absent"
    if registered(target) is None:  # not there (or a file msd cannot read: nothing of msd's to take out)
        drop_leftovers(path)  # a run killed after its edit left its lock (and its temp file)
        return "absent"
    rec = record if isinstance(record, dict) else {}
    created = rec.get("created") if isinstance(rec.get("created"), list) else ["mcpServers"]
    note = edit_json(path, remove_server(created, name=SERVER, ours=is_ours), delete_when_empty=bool(rec.get("created_file")))
    return "removed" if note not in ("unchanged", None) else "absent"


def registered(target) -> dict | None:
    """msd's entry as ~/.claude.json holds it now (None: not there, or not msd's); never writes."""
    from msd_core.runtimes.claude_json import peek

    servers = peek(servers_file(target)).get("mcpServers")
    value = servers.get(SERVER) if isinstance(servers, dict) else None
    return value if is_ours(value) else None


__all__ = ["SERVER", "TOOL", "PERMISSION", "RECORD", "applies", "entry", "is_ours", "plan", "register", "unregister", "registered"]
