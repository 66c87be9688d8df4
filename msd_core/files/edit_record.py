"""What msd added to a file another program owns, outside any install's manifest.

`msd mcp install` adds an entry to ~/.claude.json, .mcp.json and a settings.json that no
manifest covers; to give each file back byte for byte on uninstall, msd must know which of the
containers around its entry it made (a `"permissions": {}` the user had stays) and whether it
made the file itself. That is kept here, in `paths.host_edits_path()`, keyed by the file's
absolute path and the entry's name, written atomically under a lock beside it:

    {"version": 1, "files": {"/home/u/.claude.json": {"mcp-server": {"created_file": false, "created": ["mcpServers"]}}}}

A record that cannot be read counts as empty (uninstall then removes just the entry). The record
is written before the edit it describes (install/guard_server_setup.py): a run killed between
the two leaves a record of an edit not made, which uninstall reads as nothing to take out; the
reverse (an edit with no record) would leave the user a file msd made. A record with no entry
left is removed, with its lock and the folders made for it.
"""

from __future__ import annotations

import json
from pathlib import Path

from msd_core import paths
from msd_core.files.bounded import loads_json

VERSION = 1
MAX_BYTES = 1 << 20


def _read(where: Path) -> dict:
    from msd_core.files.safe_read import read_regular

    try:
        doc = loads_json(read_regular(where, MAX_BYTES), str(where))
    except (OSError, ValueError):  # missing, damaged, too deep (files.bounded)
        return {"version": VERSION, "files": {}}
    if not isinstance(doc, dict) or not isinstance(doc.get("files"), dict):
        return {"version": VERSION, "files": {}}
    return doc


def _key(path: Path) -> str:
    return str(Path(path).absolute())


def recall(path: Path, entry: str) -> dict:
    """{"created_file": bool, "created": [dotted names]} for msd's `entry` in `path` ({} when none)."""
    rec = _read(paths.host_edits_path())["files"].get(_key(path), {}).get(entry)
    return rec if isinstance(rec, dict) else {}


def _missing_dirs(folder: Path) -> list[str]:
    """`folder` and those of its parents that do not exist yet, deepest first."""
    out = []
    while not folder.exists() and folder != folder.parent:
        out.append(str(folder))
        folder = folder.parent
    return out


def _update(path: Path, entry: str, value: dict | None) -> None:
    """Change one entry under the record's lock. A record left with no entry is removed with its
    lock file and the folders msd made for it (kept in the record as "made_dirs"), so an install
    and its uninstall leave the user's home as they found it."""
    import contextlib
    import os

    from msd_core.files.atomic import atomic_write_bytes, lock_timeout_from_env, locked

    where = paths.host_edits_path()
    made = _missing_dirs(where.parent)
    where.parent.mkdir(parents=True, exist_ok=True)
    lock = where.with_name(where.name + ".lock")
    with locked(lock, lock_timeout_from_env(), what=str(where)):
        doc = _read(where)
        entries = doc["files"].setdefault(_key(path), {})
        if value is None:
            entries.pop(entry, None)
        else:
            entries[entry] = value
        if not entries:
            del doc["files"][_key(path)]
        dirs = list(dict.fromkeys([*(doc.get("made_dirs") if isinstance(doc.get("made_dirs"), list) else []), *made]))
        if not doc["files"]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(where)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(lock)  # held by us until the with ends; the next writer makes a new one
            for d in sorted(dirs, key=len, reverse=True):
                with contextlib.suppress(OSError):
                    os.rmdir(d)  # only an empty one goes
            return
        if dirs:
            doc["made_dirs"] = dirs
        atomic_write_bytes(where, (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8"))


def remember(path: Path, entry: str, created_file: bool, created: list[str]) -> None:
    """Record (merged with what an earlier install recorded) what msd made for `entry` in `path`."""
    old = recall(path, entry)
    names = list(dict.fromkeys([*(old.get("created") or []), *created]))
    _update(path, entry, {"created_file": bool(old.get("created_file")) or created_file, "created": names})


def forget(path: Path, entry: str) -> None:
    if recall(path, entry):
        _update(path, entry, None)
