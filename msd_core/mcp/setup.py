"""Registering msd's MCP server with Claude Code: `msd mcp install|uninstall --scope user|project`
(with `--client copilot|kimi|gemini|codex|opencode`: that client's file instead, msd_core/mcp/clients.py;
the same edit, record and uninstall, and no permission file; Codex's TOML: msd_core/mcp/toml_table.py).

Where Claude Code 2.1.332 keeps it (read from what `claude mcp add` writes):

- user scope:    `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json` / `<config-dir>/.claude.json`
                 for another global config folder), top-level `mcpServers.msd`; the permission
                 `mcp__msd` in that config folder's `settings.json`.
- project scope: `<project>/.mcp.json`, `mcpServers.msd`; the permission in
                 `<project>/.claude/settings.json`. Claude Code applies a project's settings
                 only once the folder is trusted (run `claude` there once and accept).

The entry is what `claude mcp add` writes: {"type": "stdio", "command", "args", "env": {}}.
Without the `mcp__msd` permission every tool call is refused in headless mode (`claude -p`).

Editing a user's JSON file: only the bytes of msd's entry change (msd_core/files/jsonedit.py:
formatting, CRLF, BOM, number spellings, escapes, duplicate keys stay), the file is replaced
atomically (temp file + os.replace, mode kept) while holding the lock Claude Code takes on its
settings files (`<file>.lock`, see claude_json.host_lock); when nothing needs to change,
nothing is touched. If the file changed on disk while msd worked, the edit starts over from the
new content. What msd made around its entry (`mcpServers`, `permissions.allow`, the file
itself, whether the file was blank) is recorded (msd_core/files/edit_record.py), so uninstall
takes out exactly that and gives the file back byte for byte (an empty file stays empty), or
removes the file msd created once nothing else is in it. A permission msd's record does not say
msd added (the user wrote `mcp__msd` themselves) stays.
A file that does not parse, is not a JSON object, is a symlink or not a regular file is left
untouched with a one-line error. Only an entry msd-core wrote is ever changed or removed.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from msd_core import paths
from msd_core.errors import MsdError, OperationFailed, UsageError
from msd_core.runtimes.claude_json import edit_json, peek, precheck, read_file

SERVER_NAME = "msd"
PERMISSION = f"mcp__{SERVER_NAME}"
SCOPES = ("user", "project")


# ------------------------------------------------------------------ where


def host_files(scope: str, config_dir: str | None = None, project_dir: str | None = None) -> tuple[Path, Path]:
    """(the file holding `mcpServers`, the settings.json holding the permission) for a scope."""
    if scope == "user":
        config = paths.global_config_dir(config_dir)
        servers = paths.home() / ".claude.json" if config == paths.default_global_config_dir() else config / ".claude.json"
        return servers, config / "settings.json"
    if scope == "project":
        base = Path(project_dir).absolute() if project_dir else paths.local_project_dir()
        return base / ".mcp.json", base / ".claude" / "settings.json"
    raise UsageError(f"{scope!r} is not one of {', '.join(SCOPES)}", about="scope")


def client_files(client: str, scope: str, config_dir: str | None = None,
                 project_dir: str | None = None) -> tuple[Path, Path | None]:
    """(the file holding the servers, the settings.json holding the permission or None) for a
    client (msd_core/mcp/clients.py) and scope: project scope is the client's own project file, else
    the one `.mcp.json` that Claude Code, Copilot CLI and Kimi Code share."""
    from msd_core.mcp import clients

    clients.check(client)
    if client == "claude":
        return host_files(scope, config_dir, project_dir)
    if scope == "project":
        shared = host_files(scope, None, project_dir)[0]
        return clients.project_file(client, shared.parent) or shared, None
    if scope == "user":
        return clients.user_file(client, config_dir), None
    raise UsageError(f"{scope!r} is not one of {', '.join(SCOPES)}", about="scope")


def shared_file(client: str, scope: str) -> bool:
    """Whether a client other than Claude keeps this scope's entry in Claude's `.mcp.json`."""
    from msd_core.mcp import clients

    return client != "claude" and scope == "project" and client not in clients.PROJECT_FILES


def scope_of_target(target) -> tuple[str, dict]:
    """The MCP scope that belongs to an install target (global -> user, local -> its project)."""
    if target.scope == "global":
        return "user", {"config_dir": str(target.config)}
    return "project", {"project_dir": str(Path(target.config).parent)}


def server_entry(scope: str) -> dict:
    """The command Claude Code starts: `msd mcp` (absolute for user scope), else this interpreter."""
    found = shutil.which("msd")
    if found:
        command = str(Path(found).absolute()) if scope == "user" else "msd"
        return {"type": "stdio", "command": command, "args": ["mcp"], "env": {}}
    return {"type": "stdio", "command": sys.executable, "args": ["-m", "msd_core", "mcp"], "env": {}}


def is_ours(entry) -> bool:
    """An entry that starts `msd mcp` (or `<python> -m msd_core mcp`); OpenCode's puts the arguments in `command`."""
    if not isinstance(entry, dict):
        return False
    command, args = entry.get("command"), entry.get("args")
    if isinstance(command, list) and command and args is None:
        command, args = command[0], command[1:]
    if not isinstance(command, str) or not isinstance(args, list) or "mcp" not in args:
        return False
    return Path(command).name in ("msd", "msd.exe") or args[:2] == ["-m", "msd_core"]


# ------------------------------------------------------------------ the two edits

SERVERS = ("mcpServers",)
ALLOW = ("permissions", "allow")


def _reach(obj: dict, where: tuple[str, ...], leaf: type, made: list[str], hint: str | None = None):
    from msd_core.files.jsonedit import NotAContainer, reach

    try:
        node, created = reach(obj, where, leaf)
    except NotAContainer as exc:
        raise OperationFailed(f"{exc}; left untouched", hint=hint) from None
    made.extend(created)
    return node


def add_server(entry: dict, made: list[str] | None = None, name: str = SERVER_NAME, ours=None, hint: str | None = None,
               where: tuple[str, ...] = SERVERS):
    """The change that puts `entry` at <where>.<name> (default mcpServers; an entry there that `ours`
    does not own is refused, left untouched, with `hint`); `made` collects the containers it creates."""
    ours = ours or is_ours

    def change(obj: dict):
        servers = _reach(obj, where, dict, made if made is not None else [])
        old = servers.get(name)
        if old is not None and not ours(old):
            raise OperationFailed(f"an MCP server named {name!r} is already registered and is not msd-core's; left untouched",
                                  hint=hint or f"remove it first (claude mcp remove {name})")
        if old == entry:
            return None
        servers[name] = entry
        return "updated" if old else "added"
    return change


def remove_server(created=("mcpServers",), name: str = SERVER_NAME, ours=None, where: tuple[str, ...] = SERVERS):
    """The change that takes msd's <where>.<name> out (with the containers in `created` it empties)."""
    from msd_core.files.jsonedit import prune

    ours = ours or is_ours

    def change(obj: dict):
        servers = obj.get(where[0])
        if not isinstance(servers, dict) or not ours(servers.get(name)):
            return None
        del servers[name]
        prune(obj, where, created)
        return "removed"
    return change


def _add_permission(obj: dict, made: list[str] | None = None):
    allow = _reach(obj, ALLOW, list, made if made is not None else [], hint=f'add "{PERMISSION}" to permissions.allow by hand')
    if PERMISSION in allow:
        return None
    allow.append(PERMISSION)
    return "added"


def _remove_permission(created=("permissions", "permissions.allow")):
    from msd_core.files.jsonedit import prune

    def change(obj: dict):
        perms = obj.get("permissions")
        allow = perms.get("allow") if isinstance(perms, dict) else None
        if not isinstance(allow, list) or PERMISSION not in allow:
            return None
        allow.remove(PERMISSION)
        prune(obj, ALLOW, created)
        return "removed"
    return change


# ------------------------------------------------------------------ commands


def install(scope: str, config_dir: str | None = None, project_dir: str | None = None, client: str = "claude") -> dict:
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        from msd_core.mcp.remedy import mcp_hint

        raise OperationFailed("the MCP server needs the mcp package", hint=mcp_hint())
    from msd_core.files import edit_record
    from msd_core.mcp import clients

    servers, settings = client_files(client, scope, config_dir, project_dir)
    shared = shared_file(client, scope)
    entry = server_entry(scope)
    if client != "claude":
        entry = clients.entry_for(client, entry, shared)
    hint = clients.remove_hint(client, servers, shared)
    mode = 0o600 if scope == "user" else None
    notes = {}
    if client in clients.TOML:
        from msd_core.mcp import toml_table

        notes["server"] = toml_table.add(servers, SERVER_NAME, entry, is_ours, hint or "", new_mode=mode)
    else:
        where, jsonc = clients.servers_at(client), client in clients.JSONC
        precheck(servers, add_server(entry, hint=hint, where=where), jsonc)
        edits = [("server", servers, lambda made: add_server(entry, made, hint=hint, where=where))]
        if settings is not None:
            precheck(settings, _add_permission)
            edits.append(("permission", settings, lambda made: lambda obj: _add_permission(obj, made)))
        for key, path, edit in edits:
            made: list[str] = []
            data = read_file(path)
            notes[key] = edit_json(path, edit(made), new_mode=mode if key == "server" else None, jsonc=jsonc)
            if notes[key] != "unchanged":
                blank = data.decode("latin-1") if data is not None and not data.strip() else None
                edit_record.remember(path, f"mcp-{key}", data is None, made, blank=blank)
    out = {"scope": scope, "client": client,
           "server": {"path": str(servers), "name": SERVER_NAME, "entry": entry, "action": notes["server"]},
           "permission": _permission_out(client, settings, notes.get("permission"))}
    if (scope == "project" or client in clients.TRUST_BOTH) and (client == "claude" or client in clients.TRUST):
        out["note"] = clients.TRUST.get(client, clients.CLAUDE_TRUST)
    return out


def _permission_out(client: str, settings: Path | None, action: str | None) -> dict:
    if settings is None:
        from msd_core.mcp.clients import ASKS, LABELS

        return {"path": None, "action": ASKS.get(client, f"none needed ({LABELS[client]} asks before a tool runs)")}
    return {"path": str(settings), "rule": PERMISSION, "action": action}


def uninstall(scope: str, config_dir: str | None = None, project_dir: str | None = None, dry_run: bool = False,
              client: str = "claude") -> dict:
    from msd_core.mcp import clients

    servers, settings = client_files(client, scope, config_dir, project_dir)
    if dry_run:
        state = status_of(scope, config_dir, project_dir, client=client)
        return {"scope": scope, "client": client, "dry_run": True,
                "server": {"path": str(servers), "action": "would remove" if state["registered"] else "absent"},
                "permission": _permission_out(client, settings, "would remove" if state["permission"] else "absent")}
    if client in clients.TOML:
        from msd_core.mcp import toml_table

        hint = clients.remove_hint(client, servers, False) or ""
        action = "absent" if not os.path.lexists(servers) else toml_table.remove(servers, SERVER_NAME, is_ours, hint)
        return {"scope": scope, "client": client, "server": {"path": str(servers), "action": action},
                "permission": _permission_out(client, None, None)}
    from msd_core.files import edit_record

    notes = {"server": "absent", "permission": "absent"}
    problems = []
    where, jsonc = clients.servers_at(client), client in clients.JSONC
    for key, path, change in (("server", servers, lambda created: remove_server(created, where=where)),
                              ("permission", settings, _remove_permission)):
        if path is None or not os.path.lexists(path):
            continue
        made = edit_record.recall(path, f"mcp-{key}")
        if key == "permission" and not made:
            # msd's record does not say msd added it: the user's own rule (or one msd found there), kept
            notes[key] = "kept" if status_of(scope, config_dir, project_dir, client=client)["permission"] else "absent"
            continue
        # a server entry with no record (registered by an older msd): the containers left empty go, as they always did
        created = made.get("created") if made else where
        blank = made.get("blank")
        try:  # each file on its own: a broken one never keeps the other from being cleaned
            notes[key] = edit_json(path, change(created), delete_when_empty=bool(made.get("created_file")),
                                   empty_bytes=blank.encode("latin-1") if isinstance(blank, str) else None, jsonc=jsonc)
            edit_record.forget(path, f"mcp-{key}")
        except MsdError as exc:
            problems.append(exc.message)
    if problems:
        raise OperationFailed("; ".join(problems), hint="fix or remove the entry by hand")
    return {"scope": scope, "client": client, "server": {"path": str(servers), "action": notes["server"]},
            "permission": _permission_out(client, settings, notes["permission"])}


def _servers_of(client: str, path: Path) -> tuple[object, str | None]:
    """(the entry named msd in the client's file, why the file cannot be read or None); never raises."""
    from msd_core.mcp import clients

    if client in clients.TOML:
        from msd_core.mcp import toml_table

        table = toml_table.peek(path)
        return toml_table.server(table, SERVER_NAME), table.get("_error")
    obj = peek(path, client in clients.JSONC)
    found = obj.get(clients.servers_at(client)[0])
    return (found.get(SERVER_NAME) if isinstance(found, dict) else None), obj.get("_error")


def status_of(scope: str, config_dir: str | None = None, project_dir: str | None = None, client: str = "claude") -> dict:
    """Whether msd's server is registered (and allowed) in one scope; never writes."""
    servers, settings = client_files(client, scope, config_dir, project_dir)
    entry, error = _servers_of(client, servers)
    p_obj = peek(settings) if settings is not None else {}
    perms = p_obj.get("permissions")
    allow = perms.get("allow") if isinstance(perms, dict) else None
    out = {"scope": scope, "path": str(servers), "registered": is_ours(entry),
           "permission": isinstance(allow, list) and PERMISSION in allow}
    if client != "claude":
        out["client"] = client
    if entry is not None and not is_ours(entry):
        out["other"] = f"another server named {SERVER_NAME!r} is registered"
    for why in (error, p_obj.get("_error")):
        if why:
            out["error"] = why
    return out


def status(project_dir: str | None = None, config_dir: str | None = None) -> list[dict]:
    """Claude Code's two scopes always; every other client's scope only where its file names an `msd`
    server or cannot be read (a client with none says nothing). A client sharing Claude's `.mcp.json`
    is reported by Claude's project line. `config_dir` is Claude's: the others' are their defaults."""
    from msd_core.mcp import clients

    out = [status_of("user", config_dir=config_dir), status_of("project", project_dir=project_dir)]
    for client in clients.CLIENTS[1:]:
        for scope in SCOPES:
            if shared_file(client, scope):
                continue
            found = status_of(scope, project_dir=project_dir, client=client)
            if found["registered"] or found.get("other") or found.get("error"):
                out.append(found)
    return out


def unregister_for_target(target, dry_run: bool = False, client: str = "claude") -> dict:
    """`msd uninstall`'s one call: remove the registration that belongs to the target's scope (for
    `client`, whose global folder is the target's).

    Errors become a warning in the result (uninstall of the files goes on)."""
    scope, where = scope_of_target(target)
    try:
        return uninstall(scope, dry_run=dry_run, client=client, **where)
    except MsdError as exc:  # a foreign or locked file: uninstall of msd's files goes on
        return {"scope": scope, "warning": exc.message}
