"""Editing Claude Code's own JSON files (settings.json, settings.local.json, ~/.claude.json, .mcp.json).

Another program owns these files and may write them while msd does: every edit holds the lock
Claude Code takes on them (`host_lock`), re-reads the file under it, applies one change and
writes atomically (`edit_json`); `precheck` says beforehand whether an edit would write and
raises what it would raise. The change is made to the bytes of what msd owns only
(msd_core/files/jsonedit.py): every other byte of the file stays as it was. A symlink, a
special file or an oversized file is refused and left untouched. Used by `msd mcp install`
and the installer's hook and permission entries.

Claude Code 2.1.332, seen with strace (`claude mcp add --scope user`, a `claude -p` run): every
save of ~/.claude.json makes the folder `~/.claude.json.lock` (mkdir), sets its mtime, reads the
file again, writes `~/.claude.json.tmp.<pid>.<hex>` and renames it over the file, then removes
the folder; a lock folder older than 10 s is taken over, a fresh one is waited for (about 13 s)
and then the save fails. So msd holds that same folder for the few milliseconds of its own
read-edit-rename, re-reading under it: neither writer loses the other's update
(tests/host/test_claude_json_lock_host.py runs both at once).
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import stat
from pathlib import Path

from msd_core.errors import OperationFailed
from msd_core.files.bounded import BoundedInputError, loads_json

MAX_BYTES = 64 * 1024 * 1024
RETRIES = 5
HOST_LOCK_STALE = 10.0  # seconds: Claude Code's staleMs for its settings lock
HOST_LOCK_WAIT = 12.0  # past the stale age: a lock left by a killed writer is taken over; a refreshed one gives exit 4


@contextlib.contextmanager
def host_lock(path: Path, wait: float | None = None):
    """The lock Claude Code itself takes on its settings files (msd_core/files/dirlock.py), held
    only while msd writes; LockTimeout (exit 4) when the host keeps it fresh for longer than
    `wait` (default HOST_LOCK_WAIT, or $MSD_LOCK_TIMEOUT)."""
    from msd_core.files.atomic import lock_timeout_from_env
    from msd_core.files.dirlock import dir_lock

    wait = lock_timeout_from_env(HOST_LOCK_WAIT) if wait is None else wait
    with dir_lock(path, wait, HOST_LOCK_STALE):
        yield


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
    from msd_core.files.safe_read import FileTooLarge, read_regular

    try:  # a FIFO swapped in after the stat above is refused, never waited on
        return read_regular(path, MAX_BYTES, follow_symlinks=False)
    except FileTooLarge:
        raise OperationFailed(f"{path} is larger than {MAX_BYTES} bytes (left untouched)") from None
    except OSError as exc:
        raise OperationFailed(f"cannot read {path}: {exc.strerror} (left untouched)") from None


def parse(path: Path, data: bytes | None, jsonc: bool = False) -> dict:
    """The JSON object in `data` ({} when absent or blank); `jsonc`: comments and trailing commas
    allowed (a file its program reads as JSONC: Gemini CLI's settings.json, OpenCode's opencode.json)."""
    if data is None or not data.strip():
        return {}
    try:
        if jsonc:
            from msd_core.files.jsonedit import blank_jsonc

            text = (data[3:] if data[:3] == b"\xef\xbb\xbf" else data).decode("utf-8")
            obj = loads_json(blank_jsonc(text), str(path), max_bytes=MAX_BYTES)
        else:
            obj = loads_json(data, str(path), bom=True, max_bytes=MAX_BYTES)  # too deep: one line, exit 2
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = f" at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise OperationFailed(f"{path} does not parse as JSON{where}; left untouched",
                              hint="fix the file (or move it away) and run the command again") from None
    if not isinstance(obj, dict):
        raise OperationFailed(f"{path} is not a JSON object; left untouched")
    return obj


def apply_change(path: Path, change, obj: dict):
    try:
        return change(obj)
    except OperationFailed as exc:
        raise OperationFailed(f"{path}: {exc.message}", hint=exc.hint) from None


def precheck(path: Path, change, jsonc: bool = False) -> bool:
    """Whether `edit_json(path, change)` would write; raises the error it would raise.
    Writes nothing and takes no lock (a bad second file stops a two-file change before the
    first file is touched; a change with nothing to do touches nothing at all)."""
    return apply_change(path, change, copy.deepcopy(parse(path, read_file(path), jsonc))) is not None


def edited_bytes(path: Path, data: bytes | None, change, jsonc: bool = False) -> tuple[bytes | None, str | None, dict]:
    """(the new bytes or None: nothing to do, the change's note, the object it leaves) for a
    file holding `data`: only the bytes of what `change` alters are edited. OperationFailed
    (left untouched) when the file does not parse or cannot be edited in place."""
    from msd_core.files.jsonedit import EditError, edit_bytes

    before = parse(path, data, jsonc)
    after = copy.deepcopy(before)
    note = apply_change(path, change, after)
    if note is None:
        return None, None, after
    try:
        return edit_bytes(data, before, after), note, after
    except EditError as exc:
        raise OperationFailed(f"{path} cannot be edited in place ({exc}); left untouched",
                              hint="make the change by hand") from None


def edit_json(path: Path, change, *, new_mode: int | None = None, delete_when_empty: bool = False,
              empty_bytes: bytes | None = None, jsonc: bool = False) -> str:
    """Apply `change(obj) -> note or None` (None: nothing to do) to the JSON object in `path`.

    Returns the note ("unchanged" when nothing changed). `delete_when_empty`: msd created the
    file, so it goes when the change leaves it an empty object; `empty_bytes`: what the file held
    before msd's entry when that was blank (0 bytes, white space), written back when the change
    leaves it an empty object. Never leaves a half-written or corrupt file: the old file stays
    until the new one is complete."""
    from msd_core.files.atomic import atomic_write_bytes

    if not precheck(path, change, jsonc):
        return "unchanged"
    from msd_core.paths import require_parent

    require_parent(path.parent, "the settings folder", "create the folder above it first, or choose another --config-dir")
    path.parent.mkdir(exist_ok=True)
    with host_lock(path):
        for _ in range(RETRIES):
            data = read_file(path)
            new, note, after = edited_bytes(path, data, change, jsonc)
            if new is None:
                return "unchanged"
            if read_file(path) != data:
                continue  # written meanwhile without the lock: start over from the new content
            if delete_when_empty and not after:
                path.unlink()
                return note
            if empty_bytes is not None and not after and not empty_bytes.strip():
                new = empty_bytes
            try:
                atomic_write_bytes(path, new, mode=None if data is not None else new_mode)
            except OSError as exc:
                raise OperationFailed(f"cannot write {path}: {exc.strerror}") from None
            return note
    raise OperationFailed(f"{path} kept changing while msd edited it; nothing written", hint="run the command again")


def _drop_if_stale(lock: Path) -> None:
    from msd_core.files.dirlock import drop_if_stale

    drop_if_stale(lock, HOST_LOCK_STALE)


def drop_leftovers(path: Path) -> None:
    """What a killed writer of `path` left beside it: the host's lock folder once it is stale by the
    host's own rule (untouched for HOST_LOCK_STALE seconds; the next writer would take it over
    anyway) and msd's temp files whose writer is gone. For a run that finds nothing to write but
    must leave no residue; a write clears them itself."""
    from msd_core.files.atomic import sweep_temps

    _drop_if_stale(path.with_name(path.name + ".lock"))
    try:
        fd = os.open(path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        sweep_temps(fd, path.name)
    finally:
        os.close(fd)


def peek(path: Path, jsonc: bool = False) -> dict:
    """The JSON object in `path`, or {"_error": why} when it cannot be read (status never raises)."""
    try:
        return parse(path, read_file(path), jsonc)
    except (OperationFailed, BoundedInputError) as exc:  # too deep or too large: reported like a damaged file
        return {"_error": exc.message}
