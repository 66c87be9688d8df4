"""Project memory: a SQLite FTS5 index of what phases recorded, and precise queries over it.

Stored at <project>/.planning/.msd/memory.sqlite (git-ignored). Standard library only
(sqlite3); the frontmatter is read by msd_core.planning, the same tolerant reader
history-digest uses.
"""
