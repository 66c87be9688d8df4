"""Registering msd's MCP server with Claude Code: `msd mcp install|uninstall --scope user|project`.

Where Claude Code 2.1.332 keeps it (read from what `claude mcp add` writes):

- user scope:    `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json` / `<config-dir>/.claude.json`
                 for another global config folder), top-level `mcpServers.msd`; the permission
                 `mcp__msd` in that config folder's `settings.json`.
- project scope: `<project>/.mcp.json`, `mcpServers.msd`; the permission in
                 `<project>/.claude/settings.json`. Claude Code applies a project's settings
                 only once the folder is trusted (run `claude` there once and accept).

The entry is what `claude mcp add` writes: {"type": "stdio", "command", "args", "env": {}}.
Without the `mcp__msd` permission every tool call is refused in headless mode (`claude -p`).

Editing a user's JSON file: the file is read, changed in memory (every other key kept, in
its order; the file's indent and final newline kept) and replaced atomically (temp file +
os.replace, mode kept) while holding the lock Claude Code takes on its settings files
(`<file>.lock`, see host_lock); when nothing needs to change, nothing is touched. If the
file changed on disk while msd worked, the edit starts over from the new content. A
file that does not parse, is not a JSON object, is a symlink or not a regular file is left
untouched with a one-line error. Only an entry msd-core wrote is ever changed or removed.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shutil
import stat
import sys
import time
from pathlib import Path

from msd_core import paths
from msd_core.errors import MsdError, OperationFailed, UsageError

SERVER_NAME = "msd"
PERMISSION = f"mcp__{SERVER_NAME}"
SCOPES = ("user", "project")
MAX_BYTES = 64 * 1024 * 1024
RETRIES = 5
HOST_LOCK_STALE = 10.0  # seconds: Claude Code's staleMs for its settings lock
HOST_LOCK_WAIT = 5.0  # shorter than the stale age: a held (refreshed) lock gives exit 4


# ------------------------------------------------------------------ where


def host_files(scope: str, config_dir: str | None = None, project_dir: str | None = None) -> tuple[Path, Path]:
    """(the file holding `mcpServers`, the settings.json holding the permission) for a scope."""
    if scope == "user":
        config = paths.global_config_dir(config_dir)
        servers = paths.home() / ".claude.json" if config == paths.default_global_config_dir() else config / ".claude.json"
        return servers, config / "settings.json"
    if scope == "project":
        base = Path(project_dir).absolute() if project_dir else Path.cwd()
        return base / ".mcp.json", base / ".claude" / "settings.json"
    raise UsageError(f"--scope {scope!r} is not one of {', '.join(SCOPES)}")


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
    if not isinstance(entry, dict):
        return False
    command, args = entry.get("command"), entry.get("args")
    if not isinstance(command, str) or not isinstance(args, list) or "mcp" not in args:
        return False
    return Path(command).name in ("msd", "msd.exe") or args[:2] == ["-m", "msd_core"]


# ------------------------------------------------------------------ safe JSON edits


@contextlib.contextmanager
def host_lock(path: Path, wait: float = HOST_LOCK_WAIT):
    """The lock Claude Code itself takes on its settings files (proper-lockfile): the folder
    `<file>.lock`, created atomically, treated as stale after HOST_LOCK_STALE seconds without
    an update. Held only while msd writes; LockTimeout (exit 4) when the host keeps it."""
    from msd_core.errors import LockTimeout

    lock = path.with_name(path.name + ".lock")
    deadline = time.monotonic() + wait
    while True:
        try:
            os.mkdir(lock)
            break
        except FileExistsError:
            try:
                st = os.lstat(lock)
            except FileNotFoundError:
                continue
            if not stat.S_ISDIR(st.st_mode):
                raise OperationFailed(f"{lock} is not a lock folder; nothing written", hint="remove it and run the command again")
            if time.time() - st.st_mtime > HOST_LOCK_STALE:
                with contextlib.suppress(OSError):
                    os.rmdir(lock)  # stale by the host's own rule (an empty folder)
            if time.monotonic() > deadline:
                raise LockTimeout(f"{lock} is held (Claude Code is writing {path.name}); nothing written",
                                  hint="run the command again in a moment") from None
            time.sleep(0.05)
        except OSError as exc:
            raise OperationFailed(f"cannot lock {path} (creating {lock.name}): {exc.strerror}") from None
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(lock)


def _read(path: Path) -> bytes | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise OperationFailed(f"{path} is a symlink; msd does not write through it (left untouched)")
    if not stat.S_ISREG(st.st_mode):
        raise OperationFailed(f"{path} is not a regular file (left untouched)")
    if st.st_size > MAX_BYTES:
        raise OperationFailed(f"{path} is larger than {MAX_BYTES} bytes (left untouched)")
    try:
        with open(path, "rb") as fh:
            return fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise OperationFailed(f"cannot read {path}: {exc.strerror} (left untouched)") from None


def _parse(path: Path, data: bytes | None) -> dict:
    if data is None or not data.strip():
        return {}
    try:
        obj = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise OperationFailed(f"{path} does not parse as JSON{where}; left untouched",
                              hint="fix the file (or move it away) and run the command again") from None
    if not isinstance(obj, dict):
        raise OperationFailed(f"{path} is not a JSON object; left untouched")
    return obj


def _style(data: bytes | None) -> tuple[int | str, bool]:
    """(indent, ends with a newline) of an existing file; Claude Code's own style for a new one."""
    if not data:
        return 2, True
    from msd_core.files.jsonedit import indent_of

    text = data.decode("utf-8", "replace")
    return indent_of(text), text.endswith("\n")


def _apply(path: Path, change, obj: dict):
    try:
        return change(obj)
    except OperationFailed as exc:
        raise OperationFailed(f"{path}: {exc.message}", hint=exc.hint) from None


def precheck(path: Path, change) -> bool:
    """Whether `edit_json(path, change)` would write; raises the error it would raise.
    Writes nothing and takes no lock (a bad second file stops a two-file change before the
    first file is touched; a change with nothing to do touches nothing at all)."""
    return _apply(path, change, copy.deepcopy(_parse(path, _read(path)))) is not None


def edit_json(path: Path, change, *, new_mode: int | None = None, delete_if_empty: bool = False) -> str:
    """Apply `change(obj) -> note or None` (None: nothing to do) to the JSON object in `path`.

    Returns the note ("unchanged" when nothing changed). Never leaves a half-written or
    corrupt file: the old file stays until the new one is complete."""
    from msd_core.files.atomic import atomic_write_bytes

    if not precheck(path, change):
        return "unchanged"
    path.parent.mkdir(parents=True, exist_ok=True)
    with host_lock(path):
        for _ in range(RETRIES):
            data = _read(path)
            obj = _parse(path, data)
            note = _apply(path, change, obj)
            if note is None:
                return "unchanged"
            indent, newline = _style(data)
            new = (json.dumps(obj, indent=indent, ensure_ascii=False) + ("\n" if newline else "")).encode("utf-8")
            if _read(path) != data:
                continue  # written meanwhile without the lock: start over from the new content
            if delete_if_empty and not obj:
                path.unlink()
                return note
            try:
                atomic_write_bytes(path, new, mode=None if data is not None else new_mode)
            except OSError as exc:
                raise OperationFailed(f"cannot write {path}: {exc.strerror}") from None
            return note
    raise OperationFailed(f"{path} kept changing while msd edited it; nothing written", hint="run the command again")


# ------------------------------------------------------------------ the two edits


def _add_server(entry: dict):
    def change(obj: dict):
        servers = obj.get("mcpServers")
        if servers is None:
            servers = obj["mcpServers"] = {}
        if not isinstance(servers, dict):
            raise OperationFailed("'mcpServers' is not an object; left untouched")
        old = servers.get(SERVER_NAME)
        if old is not None and not is_ours(old):
            raise OperationFailed(f"an MCP server named {SERVER_NAME!r} is already registered and is not msd-core's; left untouched",
                                  hint=f"remove it first (claude mcp remove {SERVER_NAME})")
        if old == entry:
            return None
        servers[SERVER_NAME] = entry
        return "updated" if old else "added"
    return change


def _remove_server(obj: dict):
    servers = obj.get("mcpServers")
    if not isinstance(servers, dict) or not is_ours(servers.get(SERVER_NAME)):
        return None
    del servers[SERVER_NAME]
    if not servers:
        del obj["mcpServers"]
    return "removed"


def _add_permission(obj: dict):
    perms = obj.get("permissions")
    if perms is None:
        perms = obj["permissions"] = {}
    if not isinstance(perms, dict):
        raise OperationFailed("'permissions' is not an object; left untouched", hint=f'add "{PERMISSION}" to permissions.allow by hand')
    allow = perms.get("allow")
    if allow is None:
        allow = perms["allow"] = []
    if not isinstance(allow, list):
        raise OperationFailed("'permissions.allow' is not a list; left untouched", hint=f'add "{PERMISSION}" by hand')
    if PERMISSION in allow:
        return None
    allow.append(PERMISSION)
    return "added"


def _remove_permission(obj: dict):
    perms = obj.get("permissions")
    allow = perms.get("allow") if isinstance(perms, dict) else None
    if not isinstance(allow, list) or PERMISSION not in allow:
        return None
    allow.remove(PERMISSION)
    if not allow:
        del perms["allow"]
    if not perms:
        del obj["permissions"]
    return "removed"


# ------------------------------------------------------------------ commands


def install(scope: str, config_dir: str | None = None, project_dir: str | None = None) -> dict:
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        raise OperationFailed("the MCP server needs the mcp package", hint="pip install 'msd-core[mcp]'")
    servers, settings = host_files(scope, config_dir, project_dir)
    entry = server_entry(scope)
    precheck(servers, _add_server(entry))
    precheck(settings, _add_permission)
    server_note = edit_json(servers, _add_server(entry),
                            new_mode=0o600 if scope == "user" else None)
    perm_note = edit_json(settings, _add_permission)
    out = {"scope": scope, "server": {"path": str(servers), "name": SERVER_NAME, "entry": entry, "action": server_note},
           "permission": {"path": str(settings), "rule": PERMISSION, "action": perm_note}}
    if scope == "project":
        out["note"] = "Claude Code applies .claude/settings.json once you trust this folder (start `claude` here once)"
    return out


def uninstall(scope: str, config_dir: str | None = None, project_dir: str | None = None, dry_run: bool = False) -> dict:
    servers, settings = host_files(scope, config_dir, project_dir)
    if dry_run:
        state = status_of(scope, config_dir, project_dir)
        return {"scope": scope, "dry_run": True,
                "server": {"path": str(servers), "action": "would remove" if state["registered"] else "absent"},
                "permission": {"path": str(settings), "action": "would remove" if state["permission"] else "absent"}}
    notes = {"server": "absent", "permission": "absent"}
    problems = []
    for key, path, change in (("server", servers, _remove_server), ("permission", settings, _remove_permission)):
        if not os.path.lexists(path):
            continue
        try:  # each file on its own: a broken one never keeps the other from being cleaned
            notes[key] = edit_json(path, change, delete_if_empty=key == "server" and scope == "project")
        except MsdError as exc:
            problems.append(exc.message)
    if problems:
        raise OperationFailed("; ".join(problems), hint="fix or remove the entry by hand")
    server_note, perm_note = notes["server"], notes["permission"]
    return {"scope": scope, "server": {"path": str(servers), "action": server_note},
            "permission": {"path": str(settings), "rule": PERMISSION, "action": perm_note}}


def _peek(path: Path) -> dict:
    try:
        return _parse(path, _read(path))
    except OperationFailed as exc:
        return {"_error": exc.message}


def status_of(scope: str, config_dir: str | None = None, project_dir: str | None = None) -> dict:
    """Whether msd's server is registered (and allowed) in one scope; never writes."""
    servers, settings = host_files(scope, config_dir, project_dir)
    s_obj, p_obj = _peek(servers), _peek(settings)
    entry = s_obj.get("mcpServers", {}).get(SERVER_NAME) if isinstance(s_obj.get("mcpServers"), dict) else None
    perms = p_obj.get("permissions")
    allow = perms.get("allow") if isinstance(perms, dict) else None
    out = {"scope": scope, "path": str(servers), "registered": is_ours(entry),
           "permission": isinstance(allow, list) and PERMISSION in allow}
    if entry is not None and not is_ours(entry):
        out["other"] = f"another server named {SERVER_NAME!r} is registered"
    for obj in (s_obj, p_obj):
        if "_error" in obj:
            out["error"] = obj["_error"]
    return out


def status(project_dir: str | None = None, config_dir: str | None = None) -> list[dict]:
    return [status_of("user", config_dir=config_dir), status_of("project", project_dir=project_dir)]


def unregister_for_target(target, dry_run: bool = False) -> dict:
    """`msd uninstall`'s one call: remove the registration that belongs to the target's scope.

    Errors become a warning in the result (uninstall of the files goes on)."""
    scope, where = scope_of_target(target)
    try:
        return uninstall(scope, dry_run=dry_run, **where)
    except MsdError as exc:  # a foreign or locked file: uninstall of msd's files goes on
        return {"scope": scope, "warning": exc.message}
