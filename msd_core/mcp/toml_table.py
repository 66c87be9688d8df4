"""msd's `[mcp_servers.msd]` table in Codex CLI's config.toml (msd_core/mcp/clients.py): appended,
recorded, cut out again.

The file holds the user's providers, profiles and project trust: msd never re-serialises it. It
appends its table's text after the user's last byte (a blank line, a mark, the table as
`codex mcp add` writes it) and records that text (msd_core/files/edit_record.py); uninstall cuts
exactly that text out, which gives the file back byte for byte, or deletes the file msd created once
nothing else is in it. Read through the one bounded reader (msd_core.files.bounded.loads_toml): a
file that does not parse, is nested too deep, is a symlink or not a regular file, or where the
appended table would not parse (an inline `mcp_servers = {...}`), is left untouched with a
one-line error; an `msd` server msd did not write is refused, naming how to clear it.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.errors import OperationFailed

TABLE = "mcp_servers"
MARK = "# msd's MCP server (msd mcp install --client codex); msd mcp uninstall takes it out\n"
RECORD = "mcp-server"


def parse(path: Path, data: bytes | None) -> dict:
    """The file's TOML table ({} when absent or blank); OperationFailed (left untouched) when it
    cannot be read as TOML within the bounds."""
    from msd_core.files import tomlread
    from msd_core.files.bounded import loads_toml

    if data is None or not data.strip():
        return {}
    try:
        return loads_toml(data.decode("utf-8"), str(path))
    except (UnicodeDecodeError, ValueError, tomlread.TOMLDecodeError) as exc:
        raise OperationFailed(f"{path} does not parse as TOML ({str(exc).replace(str(path), 'the file')[:120]}); left untouched",
                              hint="fix the file (or move it away) and run the command again") from None


def peek(path: Path) -> dict:
    """The file's table, or {"_error": why} (status never raises)."""
    from msd_core.runtimes.claude_json import read_file

    try:
        return parse(path, read_file(path))
    except OperationFailed as exc:
        return {"_error": exc.message}


def server(table: dict, name: str):
    servers = table.get(TABLE)
    return servers.get(name) if isinstance(servers, dict) else None


def _block(data: bytes | None, name: str, entry: dict) -> bytes:
    import tomli_w

    lead = b"" if not data else (b"\n" if data.endswith(b"\n") else b"\n\n")
    return lead + MARK.encode("utf-8") + tomli_w.dumps({TABLE: {name: entry}}).encode("utf-8")


def _write(path: Path, data: bytes | None, new: bytes, new_mode: int | None) -> None:
    from msd_core.files.atomic import atomic_write_bytes
    from msd_core.paths import require_parent
    from msd_core.runtimes.claude_json import read_file

    require_parent(path.parent, "the settings folder", "create the folder above it first, or choose another --config-dir")
    path.parent.mkdir(exist_ok=True)
    if read_file(path) != data:
        raise OperationFailed(f"{path} changed while msd edited it; nothing written", hint="run the command again")
    try:
        atomic_write_bytes(path, new, mode=None if data is not None else new_mode)
    except OSError as exc:
        raise OperationFailed(f"cannot write {path}: {exc.strerror}") from None


def add(path: Path, name: str, entry: dict, ours, hint: str, *, new_mode: int | None = None, dry: bool = False) -> str:
    """Append msd's table for `entry` ("added", "updated", "unchanged"); `dry`: say it, write nothing."""
    from msd_core.files import edit_record
    from msd_core.runtimes.claude_json import read_file

    data = read_file(path)
    table = parse(path, data)
    if TABLE in table and not isinstance(table[TABLE], dict):
        raise OperationFailed(f"{path}: `{TABLE}` is not a table; left untouched", hint=hint)
    old = server(table, name)
    if old is not None and not ours(old):
        raise OperationFailed(f"{path}: an MCP server named {name!r} is already registered and is not msd-core's; left untouched",
                              hint=hint)
    if old == entry:
        return "unchanged"
    base = data
    if old is not None:  # an earlier install's table: replaced where msd finds the text it wrote
        earlier = edit_record.recall(path, RECORD).get("block")
        text = earlier.encode("utf-8") if isinstance(earlier, str) and earlier else None
        if text is None or data is None or text not in data:
            raise OperationFailed(f"{path} holds an msd server table msd did not write as it is; left untouched", hint=hint)
        cut = data.rfind(text)
        base = data[:cut] + data[cut + len(text):]
    block = _block(base, name, entry)
    new = (base or b"") + block
    try:
        after = parse(path, new)
    except OperationFailed:
        after = {}
    if server(after, name) != entry:
        raise OperationFailed(f"{path}: msd's [{TABLE}.{name}] table would not parse there (an inline `{TABLE}`?); left untouched",
                              hint=hint)
    if not dry:
        _write(path, data, new, new_mode)
        edit_record.remember(path, RECORD, data is None, [], block=block.decode("utf-8"))
    return "updated" if old is not None else "added"


def remove(path: Path, name: str, ours, hint: str, *, dry: bool = False) -> str:
    """Cut msd's recorded table out ("removed", "absent"); OperationFailed when the file no longer
    holds it as msd wrote it."""
    import os

    from msd_core.files import edit_record
    from msd_core.runtimes.claude_json import read_file

    data = read_file(path)
    if not ours(server(parse(path, data), name)):
        return "absent"
    made = edit_record.recall(path, RECORD)
    block = made.get("block")
    text = block.encode("utf-8") if isinstance(block, str) and block else None
    if text is None or data is None or text not in data:
        raise OperationFailed(f"{path} no longer holds msd's [{TABLE}.{name}] table as msd wrote it; left untouched", hint=hint)
    if dry:
        return "would remove"
    cut = data.rfind(text)
    new = data[:cut] + data[cut + len(text):]
    if made.get("created_file") and not new.strip():
        os.unlink(path)
    else:
        _write(path, data, new, None)
    edit_record.forget(path, RECORD)
    return "removed"
