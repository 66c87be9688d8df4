"""Add a pattern to a project's .gitignore once, keeping every other byte."""

from __future__ import annotations

from pathlib import Path

from msd_core.fsutil import atomic_write_bytes


def ensure_ignored(project_root: Path, pattern: str) -> bool:
    """Append `pattern` to <project>/.gitignore unless a line already equals it. True if added."""
    path = Path(project_root) / ".gitignore"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    lines = [ln.strip() for ln in data.decode("utf-8", errors="replace").splitlines()]
    if pattern in lines:
        return False
    if data and not data.endswith(b"\n"):
        data += newline
    atomic_write_bytes(path, data + pattern.encode("utf-8") + newline)
    return True
