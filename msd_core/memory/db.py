"""Opening the memory database: schema, version check, rebuild of a corrupt or old file.

A query opens with a cheap check (schema version and tables, O(1)); `memory index` and a
query that meets a corruption error open with the full `PRAGMA quick_check` as well, so
damage the cheap check cannot see is still found and rebuilt (msd_core.run.cmd_memory).

The file lives in the private folder and is never followed through a symlink; a lock held
by another process waits MSD_LOCK_TIMEOUT seconds, then is exit 4 (never a rebuild).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

SCHEMA_VERSION = 2  # 2: phases of archived milestones are labelled `v1.1/01`

SCHEMA = """
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT UNIQUE NOT NULL,       -- relative to the project root, '/'-separated
    kind TEXT NOT NULL,              -- summary | context | research | verification
    phase TEXT, plan TEXT, subsystem TEXT,
    sha256 TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    skipped TEXT                     -- why the frontmatter was not read, if it was not
);
CREATE TABLE facts (
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    field TEXT NOT NULL,             -- provides | affects | requires | patterns | decisions | tech_stack | key_files | subsystem | tags
    value TEXT NOT NULL
);
CREATE INDEX facts_file ON facts(file_id);
CREATE INDEX facts_field ON facts(field);
CREATE VIRTUAL TABLE sections USING fts5(
    body, heading, path UNINDEXED, file_id UNINDEXED, tokenize = 'unicode61'
);
CREATE VIRTUAL TABLE facts_fts USING fts5(
    value, field UNINDEXED, file_id UNINDEXED, tokenize = 'unicode61'
);
"""


def failure(exc: Exception, path: Path) -> Exception:
    """The MsdError for an SQLite error: locked or busy is exit 4 (another process holds the
    database past the lock timeout), disk full / read-only / unopenable is exit 1, one line."""
    from msd_core.errors import LockTimeout, OperationFailed

    text = str(exc)
    low = text.lower()
    if "locked" in low or "busy" in low:
        return LockTimeout(f"the memory database {path} is locked by another process",
                           hint="retry when it finishes (MSD_LOCK_TIMEOUT sets the wait)")
    if "disk is full" in low or "disk full" in low:
        return OperationFailed(f"cannot write the memory database {path}: disk full")
    if "readonly" in low or "read-only" in low:
        return OperationFailed(f"cannot write the memory database {path}: read-only (permission denied)")
    if "unable to open" in low:
        return OperationFailed(f"cannot open the memory database {path}: permission denied or not a file")
    return OperationFailed(f"memory database {path}: {text}")


def corrupt(exc: sqlite3.DatabaseError) -> bool:
    """Whether an error says the file itself is damaged (rebuilding is then safe and right)."""
    low = str(exc).lower()
    return "not a database" in low or "malformed" in low or "corrupt" in low


def _connect(path: Path) -> sqlite3.Connection:
    from msd_core.files.atomic import lock_timeout_from_env

    return sqlite3.connect(str(path), timeout=lock_timeout_from_env())


def _create(path: Path) -> sqlite3.Connection:
    conn = _connect(path)
    conn.executescript(SCHEMA)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.commit()
    return conn


def _remove(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def _check_plain(path: Path) -> bool:
    """Whether the database file exists; refuses a symlink, FIFO, folder... (never followed)."""
    import stat

    from msd_core.errors import OperationFailed
    from msd_core.files.safe_read import kind

    for p in (path, Path(f"{path}-journal"), Path(f"{path}-wal")):
        try:
            mode = os.lstat(p).st_mode
        except FileNotFoundError:
            if p == path:
                return False
            continue
        if not stat.S_ISREG(mode):
            raise OperationFailed(f"memory database file {p} is {kind(mode)}; msd does not follow or open it",
                                  hint="remove it; `msd_run memory index` rebuilds the database")
    return True


def open_db(path: Path, full_check: bool = True) -> tuple[sqlite3.Connection, str]:
    """Open (creating or rebuilding as needed). Returns (connection, reason it was rebuilt or '').

    full_check runs `PRAGMA quick_check` (reads every page); without it only the header,
    schema version and tables are checked, which is what a query needs per call.

    Called under the memory lock. Only a damaged file or an old schema is rebuilt; a
    database another process holds locked is LockTimeout (exit 4), never deleted.
    """
    path = Path(path)
    try:
        return _open(path, full_check)
    except sqlite3.Error as exc:
        raise failure(exc, path) from None


def _open(path: Path, full_check: bool) -> tuple[sqlite3.Connection, str]:
    if not _check_plain(path):
        conn = _create(path)
    else:
        reason = ""
        conn = None
        try:
            conn = _connect(path)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                reason = f"schema version {version} is not {SCHEMA_VERSION}"
            else:
                conn.execute("SELECT count(*) FROM files").fetchone()
                conn.execute("SELECT rowid FROM sections LIMIT 1").fetchall()
                conn.execute("SELECT rowid FROM facts_fts LIMIT 1").fetchall()
                if full_check:
                    check = conn.execute("PRAGMA quick_check").fetchone()[0]
                    if check != "ok":
                        reason = f"integrity check failed ({check})"
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and not corrupt(exc) and "no such table" not in str(exc):
                if conn is not None:
                    conn.close()
                raise
            reason = f"unreadable database ({exc})"
        if reason:
            with contextlib.suppress(Exception):
                conn.close()
            _remove(path)
            conn = _create(path)
            conn.execute("PRAGMA foreign_keys = ON")
            return conn, reason
    conn.execute("PRAGMA foreign_keys = ON")
    return conn, ""
