"""Reading a JSON-object file that a person may have edited: one clear refusal per problem.

Standard library only (config and flow state read it on msd_run's hot path).
"""

from __future__ import annotations

import json
from pathlib import Path

from msd_core.errors import UsageError


def decode_utf8_sig(raw: bytes) -> str:
    """`raw.decode("utf-8-sig")` (a leading BOM dropped; an error's position counts from after
    it, as that codec's does) without importing the codec module on msd_run's hot path."""
    return raw[3:].decode("utf-8") if raw[:3] == b"\xef\xbb\xbf" else raw.decode("utf-8")


def read_json_object(path: Path, what: str, max_bytes: int, hint: str) -> tuple[dict | None, bytes | None]:
    """(parsed object, raw bytes); (None, None) when the file does not exist.

    UsageError (exit 2) for a folder, a FIFO, socket or device (refused before any blocking
    read, see msd_core.files.safe_read), an unreadable, oversized, non-UTF-8, empty or non-object
    file, and for JSON that does not parse (naming line and column). The file
    is never rewritten here; `hint` says what the person can do.
    """
    from msd_core.files.safe_read import FileTooLarge, NotRegularFile, read_regular

    try:
        raw = read_regular(path, max_bytes)
    except FileNotFoundError:
        return None, None
    except FileTooLarge:
        raise UsageError(f"{what} {path} is larger than {max_bytes} bytes; refusing to parse it") from None
    except NotRegularFile as exc:
        raise UsageError(f"{what} {path} is {exc.strerror}", hint=hint) from None
    except OSError as exc:
        from msd_core.errors import os_cause

        raise UsageError(f"cannot read {what} {path}: {os_cause(exc)}") from None
    try:
        text = decode_utf8_sig(raw)
    except UnicodeDecodeError as exc:
        raise UsageError(f"{what} {path} is not UTF-8 (byte {exc.start})", hint=hint) from None
    if not text.strip():
        raise UsageError(f"{what} {path} is empty; it must hold a JSON object", hint="write {} into it or delete it")
    from msd_core.files.bounded import loads_json

    try:
        data = loads_json(text, f"{what} {path}", max_bytes=max_bytes)  # too deep, too long a number: exit 2
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{what} {path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", hint=hint
        ) from None
    if not isinstance(data, dict):
        raise UsageError(f"{what} {path} must hold a JSON object, found {type(data).__name__}")
    return data, raw
