"""What msd added to a file another program owns, outside any install's manifest.

`msd mcp install` adds an entry to ~/.claude.json, .mcp.json and a settings.json that no
manifest covers; to give each file back byte for byte on uninstall, msd must know which of the
containers around its entry it made (a `"permissions": {}` the user had stays) and whether it
made the file itself. That is kept here, in `paths.host_edits_path()`, keyed by the file's
absolute path and the entry's name, written atomically under a lock beside it:

    {"version": 1, "files": {"/home/u/.claude.json": {"mcp-server": {"created_file": false, "created": ["mcpServers"]}}}}

("blank": "" when the file was empty before msd's entry: uninstall gives those bytes back; "block": the
text msd appended to a file it never re-serialises, Codex's config.toml, cut out again on uninstall.)

A record that cannot be read counts as empty (uninstall then removes just the entry).
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


def _update(path: Path, entry: str, value: dict | None) -> None:
    from msd_core.files.atomic import atomic_write_bytes, lock_timeout_from_env, locked

    where = paths.host_edits_path()
    where.parent.mkdir(parents=True, exist_ok=True)
    with locked(where.with_name(where.name + ".lock"), lock_timeout_from_env(), what=str(where)):
        doc = _read(where)
        entries = doc["files"].setdefault(_key(path), {})
        if value is None:
            entries.pop(entry, None)
        else:
            entries[entry] = value
        if not entries:
            del doc["files"][_key(path)]
        atomic_write_bytes(where, (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8"))


def remember(path: Path, entry: str, created_file: bool, created: list[str], blank: str | None = None,
             block: str | None = None) -> None:
    """Record (merged with what an earlier install recorded) what msd made for `entry` in `path`;
    `blank`: the file was blank before (0 bytes or white space: these), to be given back so; `block`:
    the text msd appended (it replaces an earlier one)."""
    old = recall(path, entry)
    names = list(dict.fromkeys([*(old.get("created") or []), *created]))
    value = {"created_file": bool(old.get("created_file")) or created_file, "created": names}
    was = old.get("blank") if isinstance(old.get("blank"), str) else blank
    if isinstance(was, str) and not was.strip() and not value["created_file"]:
        value["blank"] = was
    if block is not None:
        value["block"] = block
    _update(path, entry, value)


def forget(path: Path, entry: str) -> None:
    if recall(path, entry):
        _update(path, entry, None)
