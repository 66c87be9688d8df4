"""Add a pattern to a project's .gitignore once, keeping every other byte (and its line endings)."""

from __future__ import annotations

from pathlib import Path

from msd_core.fsutil import atomic_write_bytes

MAX_GITIGNORE_BYTES = 4 << 20


def ensure_ignored(project_root: Path, pattern: str) -> str:
    """Append `pattern` to <project>/.gitignore unless a line already equals it.

    Returns "added", "present" or "skipped: <why>" (a symlinked, unreadable or unwritable
    .gitignore is left alone: ignoring a file is never worth failing the command for).
    """
    path = Path(project_root) / ".gitignore"
    if path.is_symlink():
        return "skipped: .gitignore is a symlink"
    from msd_core.safe_read import read_regular

    try:
        raw = read_regular(path, MAX_GITIGNORE_BYTES, follow_symlinks=False)
    except FileNotFoundError:
        raw = b""
    except OSError as exc:
        return f"skipped: .gitignore unreadable ({exc.strerror or exc})"
    text = raw.decode("utf-8", errors="replace")
    if any(line.strip() == pattern for line in text.splitlines()):
        return "present"
    nl = "\r\n" if "\r\n" in text else "\n"
    sep = "" if not text or text.endswith("\n") else nl
    try:
        atomic_write_bytes(path, raw + (sep + pattern + nl).encode("utf-8"), anchor=Path(project_root))
    except OSError as exc:
        return f"skipped: .gitignore not writable ({exc.strerror or exc})"
    return "added"
