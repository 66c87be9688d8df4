"""Editing Claude Code's own JSON files (settings.json, settings.local.json, ~/.claude.json, .mcp.json).

Another program owns these files and may write them while msd does: every edit holds the lock
Claude Code takes on them (`host_lock`), re-reads the file under it, applies one change and
writes atomically (`edit_json`); `precheck` says beforehand whether an edit would write and
raises what it would raise. A symlink, a special file or an oversized file is refused and
left untouched. Used by the installer (the permission, the PATH hook) and by `msd mcp install`.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import stat
import time
from pathlib import Path

from msd_core.errors import OperationFailed
from msd_core.files.bounded import BoundedInputError, loads_json

MAX_BYTES = 64 * 1024 * 1024
RETRIES = 5
HOST_LOCK_STALE = 10.0  # seconds: Claude Code's staleMs for its settings lock
HOST_LOCK_WAIT = 5.0  # shorter than the stale age: a held (refreshed) lock gives exit 4




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


def read_file(path: Path) -> bytes | None:
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


def parse(path: Path, data: bytes | None) -> dict:
    if data is None or not data.strip():
        return {}
    try:
        obj = loads_json(data, str(path), bom=True, max_bytes=MAX_BYTES)  # too deep: one line, exit 2
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise OperationFailed(f"{path} does not parse as JSON{where}; left untouched",
                              hint="fix the file (or move it away) and run the command again") from None
    if not isinstance(obj, dict):
        raise OperationFailed(f"{path} is not a JSON object; left untouched")
    return obj


def style(data: bytes | None) -> tuple[int | str, bool]:
    """(indent, ends with a newline) of an existing file; Claude Code's own style for a new one."""
    if not data:
        return 2, True
    from msd_core.files.jsonedit import indent_of

    text = data.decode("utf-8", "replace")
    return indent_of(text), text.endswith("\n")


def apply_change(path: Path, change, obj: dict):
    try:
        return change(obj)
    except OperationFailed as exc:
        raise OperationFailed(f"{path}: {exc.message}", hint=exc.hint) from None


def precheck(path: Path, change) -> bool:
    """Whether `edit_json(path, change)` would write; raises the error it would raise.
    Writes nothing and takes no lock (a bad second file stops a two-file change before the
    first file is touched; a change with nothing to do touches nothing at all)."""
    return apply_change(path, change, copy.deepcopy(parse(path, read_file(path)))) is not None


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
            data = read_file(path)
            obj = parse(path, data)
            note = apply_change(path, change, obj)
            if note is None:
                return "unchanged"
            indent, newline = style(data)
            new = (json.dumps(obj, indent=indent, ensure_ascii=False) + ("\n" if newline else "")).encode("utf-8")
            if read_file(path) != data:
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


def peek(path: Path) -> dict:
    """The JSON object in `path`, or {"_error": why} when it cannot be read (status never raises)."""
    try:
        return parse(path, read_file(path))
    except (OperationFailed, BoundedInputError) as exc:  # too deep or too large: reported like a damaged file
        return {"_error": exc.message}
