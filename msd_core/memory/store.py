"""Where the memory database lives and how a query gets a fresh index.

The database lives in `.planning/.msd/`, which ignores itself (msd_core.files.private_dir):
the project's own .gitignore is never edited."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from msd_core import paths
from msd_core.files.atomic import lock_timeout_from_env, locked
from msd_core.memory.db import failure, open_db
from msd_core.memory.indexer import IndexReport, index_project

DB_NAME = "memory.sqlite"


def db_path(project: Path) -> Path:
    return paths.project_state_dir(project) / DB_NAME


def refresh(project: Path, full_check: bool = True) -> tuple[sqlite3.Connection, IndexReport]:
    """Open the index, re-index stale files under the project lock, return (conn, report).
    full_check: run the full integrity check on open (msd_core.memory.db.open_db)."""
    from msd_core.planning.project import private_dir

    state = private_dir(project)
    path = db_path(project)
    with locked(state / "memory.lock", lock_timeout_from_env(), what="the memory index", anchor=project):
        conn, rebuilt = open_db(path, full_check)
        try:
            report = index_project(conn, project)
        except sqlite3.Error as exc:
            conn.close()
            raise failure(exc, path) from None
        report.rebuilt = rebuilt
    return conn, report
