"""Opening the memory database: schema, version check, rebuild of a corrupt or old file."""

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


class RebuiltNotice(str):
    """Why the database was rebuilt (empty string when it was not)."""


def _create(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=30)
    conn.executescript(SCHEMA)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.commit()
    return conn


def _remove(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def open_db(path: Path) -> tuple[sqlite3.Connection, str]:
    """Open (creating or rebuilding as needed). Returns (connection, reason it was rebuilt or '')."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        conn = _create(path)
    else:
        reason = ""
        try:
            conn = sqlite3.connect(str(path), timeout=30)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                reason = f"schema version {version} is not {SCHEMA_VERSION}"
            else:
                conn.execute("SELECT count(*) FROM files").fetchone()
                conn.execute("SELECT count(*) FROM sections").fetchone()
                check = conn.execute("PRAGMA quick_check").fetchone()[0]
                if check != "ok":
                    reason = f"integrity check failed ({check})"
        except sqlite3.DatabaseError as exc:
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
