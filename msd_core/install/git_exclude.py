"""Keeping a local install's per-machine settings file out of git, and giving the exclude file back.

A local install writes `<project>/.claude/settings.local.json` (it names this machine's msd_run).
When git does not ignore it, install adds one line to the clone's own `info/exclude` (never
committed; the project's .gitignore is never edited) and records exactly the bytes it added;
uninstall takes out exactly those bytes, so `info/exclude` is byte for byte what it was (and a
file install created for it alone is removed). Anything the user changed around that line stays.

The record names the exclude file relative to the project root (`.git/info/exclude`, POSIX):
the manifest is committed, and an absolute path made every other clone's install rewrite it.
An older record's absolute path is still read (`exclude_path`).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def _git(path: Path, *args: str) -> subprocess.CompletedProcess | None:
    # not msd_core.git.runner.git: its GIT_LITERAL_PATHSPECS makes `git check-ignore` refuse
    # every path ("pathspec magic not supported by this command: 'literal'")
    try:
        return subprocess.run(["git", *args], cwd=str(path.parent), capture_output=True, text=True, timeout=10,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None


def ignored_by_git(path: Path) -> bool | None:
    """True/False inside a git work tree; None when git is absent or this is no work tree."""
    proc = _git(path, "check-ignore", "-q", "--", path.name)
    return {0: True, 1: False}.get(proc.returncode) if proc else None


def project_root(path: Path) -> Path:
    """The project whose local install holds the hook file `path` (`<project>/.claude/<file>`)."""
    return Path(path).parent.parent


def exclude_path(record: dict, root: Path) -> Path:
    """The exclude file a record names: relative to the project root, or (an older record) absolute."""
    named = Path(record["path"])
    return named if named.is_absolute() else Path(root) / named


def portable(record: dict, path: Path) -> dict:
    """An older record's absolute exclude path inside the project, named relative to it again."""
    named = record.get("path")
    if not isinstance(named, str) or not os.path.isabs(named):
        return record
    rel = os.path.relpath(named, project_root(path))
    return record if rel.startswith("..") else {**record, "path": rel.replace(os.sep, "/")}


def plan(path: Path) -> tuple[dict | None, str | None]:
    """What keeping `path` out of git in this clone takes: (the record of the bytes to add to
    `info/exclude`, its path relative to the project root; or None when git ignores it already
    or this is no work tree; a one-line warning, or None). Nothing is written."""
    from msd_core.git.exclude import appended, exclude_file, exclude_line

    if ignored_by_git(path) is not False:
        return None, None
    found = exclude_file(path.parent)
    line = exclude_line(found[1], path.parent, path.name) if found else None
    if line is None:
        return None, _problem(path)
    target = found[0]
    try:
        existed = target.exists()
        old = _read(target) if existed else b""
    except OSError:
        return None, _problem(path)
    added = appended(old, f"{line}\n".encode("utf-8"))
    named = os.path.relpath(target, project_root(path)).replace(os.sep, "/")
    return {"path": named, "added": added.decode("utf-8"), "created_file": not existed}, None


def _read(target: Path) -> bytes:
    """git's `info/exclude`: a file of the user's repository, read through the never-blocking reader."""
    from msd_core.files.safe_read import MAX_DOC_BYTES, read_regular

    return read_regular(target, MAX_DOC_BYTES)


def _problem(path: Path) -> str:
    return f"{path} names this machine's msd_run folder and git does not ignore it: add `{path.name}` to a .gitignore"


def apply(record: dict, path: Path) -> str | None:
    """Append the planned bytes (re-read: the end of the file decides the leading newline again);
    None when git now ignores `path`, else a one-line warning."""
    from msd_core.files.atomic import atomic_write_bytes
    from msd_core.git.exclude import appended

    target = exclude_path(record, project_root(path))
    try:
        old = _read(target) if target.exists() else b""
        added = appended(old, record["added"].encode("utf-8").lstrip(b"\n"))
        atomic_write_bytes(target, old + added)
    except OSError:
        return _problem(path)
    return None if ignored_by_git(path) else _problem(path)


def give_back(record, path: Path) -> str | None:
    """Take out exactly what `apply` added to the exclude file of the project whose hook file is
    `path` (its last occurrence); None when done or nothing to do, else a one-line warning. A file
    install created and that holds nothing else is removed."""
    from msd_core.files.atomic import atomic_write_bytes

    if not isinstance(record, dict) or not isinstance(record.get("path"), str) or not isinstance(record.get("added"), str):
        return None
    target, added = exclude_path(record, project_root(path)), record["added"].encode("utf-8")
    try:
        data = _read(target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot read {target} ({exc.strerror}): remove the line {record['added'].strip()} by hand"
    at = data.rfind(added)
    if at < 0:
        line = added.lstrip(b"\n")
        at = data.rfind(line)  # the user added a newline before it meanwhile, or the line itself moved
        if at < 0 or (at and data[at - 1:at] != b"\n"):
            return None
        added = line
    new = data[:at] + data[at + len(added):]
    try:
        if not new and record.get("created_file"):
            os.unlink(target)
        else:
            atomic_write_bytes(target, new)
    except OSError as exc:
        return f"cannot write {target} ({exc.strerror}): remove the line {record['added'].strip()} by hand"
    return None
