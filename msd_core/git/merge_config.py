"""msd's merge drivers in one repository: what is added to its config and attributes, and removed.

Two blocks, one in each of two files:

  <git dir>/config   [merge "msd-state"], [merge "msd-roadmap"], [merge "msd-requirements"],
                     [merge "msd-claims"], [merge "msd-todos"]: each a `name` and a `driver`
                     command, after one comment line naming msd. The repository's own config
                     (the common git directory, so every linked worktree shares it): git never
                     copies a config, so every clone registers its own commands.
  .gitattributes     at the work tree's top: `**/.planning/STATE.md merge=msd-state` and the
                     others, between two comment lines. A tracked file: committed, it reaches
                     every teammate's clone, which then merges the planning files the same way
                     once it registers the commands; a clone that has not (msd not installed)
                     finds no command for `merge=msd-...` and git uses its built-in line merge
                     (normal conflict markers).

The driver command runs `<msd_run> merge-driver <kind> %O %A %B %P %L` (msd_core.merging.driver)
and falls back to `git merge-file` (git's own line merge, normal conflict markers) when that
msd_run cannot run (moved, uninstalled) or stops without writing a result, so a merge never
leaves a broken file.

`register` (`plan`, then `write`) appends each block, or replaces msd's own block when it
differs (a moved msd_run), and returns the record of what else it did (whether it added a line
end to a file that had none, whether it created `.gitattributes`, whether msd's attributes
block was already there: `shared`, a teammate committed it; no path of this machine, so a
local install's manifest stays portable); `unregister` removes msd's blocks (the comment line
and the `[merge "msd-..."]` sections under it; the lines between the two comments) and what
the record names, so both files are byte-identical to what they were before. An attributes
block this registration did not add (`shared`) is the team's and is left in place. The config
is written with git's own lock protocol (`config.lock`, then a rename) and read again under
that lock, so a concurrent `git config` never loses a write. A `.gitattributes` that is not a
regular file (a link, a folder) is never written: `Refused`.

Standard library only.
"""

from __future__ import annotations

import os
import shlex
import time
from pathlib import Path

DRIVERS = (
    ("msd-state", "state", "STATE.md", "msd-core: STATE.md (lines merged, derived lines re-derived)"),
    ("msd-roadmap", "roadmap", "ROADMAP.md", "msd-core: ROADMAP.md merged by phase"),
    ("msd-requirements", "requirements", "REQUIREMENTS.md", "msd-core: REQUIREMENTS.md merged by requirement"),
    ("msd-claims", "claims", "claims.json", "msd-core: claims.json merged by claim"),
    ("msd-todos", "todos", "TODOS.md", "msd-core: TODOS.md merged by todo"),
)
CONFIG_HEAD = "# msd-core: merge drivers for .planning/ files (msd uninstall removes this block)"
ATTR_HEAD = "# msd-core: merge drivers for .planning/ files (msd uninstall removes these lines)"
ATTR_END = "# msd-core: end"
LOCK_WAIT = 5.0


class Refused(Exception):
    """`.gitattributes` is not a regular file msd may edit (the message says why)."""


class Repo:
    """A work tree and its repository's files: top, common git dir, config, .gitattributes."""

    __slots__ = ("top", "common")

    def __init__(self, top: Path, common: Path):
        self.top, self.common = Path(top), Path(common)

    @property
    def config(self) -> Path:
        return self.common / "config"

    @property
    def attributes(self) -> Path:
        return self.top / ".gitattributes"


def locate(cwd: Path | str) -> Repo | None:
    """The repository of the work tree holding `cwd`; None outside one (or in a bare repository)."""
    from msd_core.git.runner import git

    try:
        proc = git(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"], cwd, check=False)
    except Exception:  # git missing: no repository to register in
        return None
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or len(lines) != 2:
        return None
    return Repo(Path(lines[0]), Path(lines[1]))


def driver_command(runner: list[str], kind: str) -> str:
    """The shell line git runs (module doc). `runner`: the argv that starts msd_run."""
    run = " ".join(shlex.quote(x) for x in runner)
    return (f"{run} merge-driver {kind} %O %A %B %P %L; s=$?; [ $s -eq 0 ] && exit 0; "
            f"[ $s -eq 1 ] && grep -q '^<\\{{%L\\}}' %A && exit 1; "
            "exec git merge-file -L ours -L base -L theirs --marker-size=%L %A %O %B")


def _quoted(value: str) -> str:
    """A git config value in double quotes (so `;`, `#` and spaces are kept)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def config_block(runner: list[str], newline: str = "\n") -> str:
    lines = [CONFIG_HEAD]
    for name, kind, _file, title in DRIVERS:
        lines += [f'[merge "{name}"]', f"\tname = {title}", f"\tdriver = {_quoted(driver_command(runner, kind))}"]
    return newline.join(lines) + newline


def attributes_block(newline: str = "\n") -> str:
    lines = [ATTR_HEAD] + [f"**/.planning/{file} merge={name}" for name, _k, file, _t in DRIVERS] + [ATTR_END]
    return newline.join(lines) + newline


def _read(path: Path) -> bytes | None:
    from msd_core.files.safe_read import read_regular

    try:
        return read_regular(path, 4 << 20, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _read_attributes(repo: Repo) -> str | None:
    """The work tree's .gitattributes as text (None: absent); Refused when it is a link, not a
    regular file, unreadable, or not UTF-8 (msd would have to rewrite bytes it cannot read)."""
    path = repo.attributes
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise Refused(f"{path} is not a regular file")
    try:
        raw = _read(path)
        return raw.decode("utf-8") if raw is not None else None
    except (OSError, UnicodeDecodeError) as exc:
        raise Refused(f"{path} cannot be read as text ({getattr(exc, 'strerror', None) or exc})") from None


def _edit_config(path: Path, edit) -> bool:
    """git's lock protocol: create `<config>.lock` exclusively, read the config under it, write
    `edit(text)` to the lock file and rename it over the config (nothing when it returns the text
    unchanged). Returns whether it wrote. A writer holding the lock longer than LOCK_WAIT is a
    LockTimeout (exit 4)."""
    lock = path.with_name(path.name + ".lock")
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
            break
        except FileExistsError:
            if time.monotonic() >= deadline:
                from msd_core.errors import LockTimeout

                raise LockTimeout(f"{lock} exists: another git command is writing the repository's config",
                                  hint="retry when it has finished (delete the file if no git is running)") from None
            time.sleep(0.05)
    try:
        raw = _read(path)
        text = raw.decode("utf-8") if raw is not None else None
        new = edit(text)
        if new == text:
            os.close(fd)
            os.unlink(lock)
            return False
        with os.fdopen(fd, "wb") as fh:
            fh.write(new.encode("utf-8"))
        try:
            os.chmod(lock, os.stat(path).st_mode & 0o7777)
        except OSError:
            pass
        os.replace(lock, path)
        return True
    except BaseException:
        try:
            os.unlink(lock)
        except OSError:
            pass
        raise


def _split_block(text: str, head: str, end: str | None) -> tuple[str, str, str] | None:
    """(before, msd's block, after) of a file's text; None when it holds no block of msd's."""
    at = text.find(head)
    if at < 0 or (at > 0 and text[at - 1] != "\n"):
        return None
    lines = text[at:].splitlines(keepends=True)
    n = 1
    if end is None:  # the config block: its sections, up to the next line that is no part of them
        while n < len(lines) and lines[n].startswith(("\t", '[merge "msd-')):
            n += 1
    else:
        while n < len(lines) and lines[n].rstrip("\r\n") != end:
            n += 1
        n = min(n + 1, len(lines))
    block = "".join(lines[:n])
    return text[:at], block, text[at + len(block):]


def _add(text: str | None, block: str, head: str, end: str | None) -> tuple[str, dict]:
    """`text` with msd's block appended or replaced; (new text, what was done)."""
    if text is None:
        return block, {"created_file": True}
    found = _split_block(text, head, end)
    if found is not None:
        before, _old, after = found
        return before + block + after, {"replaced": True}
    newline = "\r\n" if "\r\n" in text else "\n"
    added = bool(text) and not text.endswith("\n")
    return text + (newline if added else "") + block, {"added_line_end": added}


class Registration:
    """What `register` writes: the record, msd's two blocks, and whether each file changes."""

    __slots__ = ("record", "config_block", "attributes_block", "changes")

    def __init__(self, record: dict, config_block: str, attributes_block: str, changes: tuple[bool, bool]):
        self.record, self.config_block, self.attributes_block, self.changes = record, config_block, attributes_block, changes

    @property
    def changed(self) -> bool:
        return any(self.changes)


def plan(repo: Repo, runner: list[str]) -> Registration:
    """msd's blocks added to (or refreshed in) `repo`'s files; nothing is written."""
    record: dict = {"git_dir": str(repo.common), "top": str(repo.top)}
    raw = _read(repo.config)
    text = raw.decode("utf-8") if raw is not None else None
    block = config_block(runner, "\r\n" if text and "\r\n" in text else "\n")
    new, how = _add(text, block, CONFIG_HEAD, None)
    record["config"] = how
    config_changes = new != text
    text = _read_attributes(repo)
    attrs = attributes_block("\r\n" if text and "\r\n" in text else "\n")
    new, how = _add(text, attrs, ATTR_HEAD, ATTR_END)
    record["attributes"] = {**how, "shared": True} if how.get("replaced") else how
    return Registration(record, block, attrs, (config_changes, new != text))


def write(repo: Repo, reg: Registration) -> None:
    """Write the planned blocks, each applied to the file as it is at the moment of writing."""
    from msd_core.files.atomic import atomic_write_bytes

    if reg.changes[0]:
        _edit_config(repo.config, lambda text: _add(text, reg.config_block, CONFIG_HEAD, None)[0])
    if reg.changes[1]:
        text = _read_attributes(repo)
        atomic_write_bytes(repo.attributes, _add(text, reg.attributes_block, ATTR_HEAD, ATTR_END)[0].encode("utf-8"),
                           anchor=repo.top)


def register(repo: Repo, runner: list[str]) -> dict:
    """Add (or refresh) msd's blocks in `repo`; returns the record `unregister` needs."""
    reg = plan(repo, runner)
    write(repo, reg)
    return reg.record


def merge_records(old: dict | None, new: dict) -> dict:
    """A refresh of msd's own block keeps the record of the registration that first wrote it
    (what msd created then); a block written afresh has its own."""
    if not isinstance(old, dict):
        return {k: ({f: v for f, v in part.items() if f != "replaced"} if isinstance(part, dict) else part)
                for k, part in new.items()}
    out = {"git_dir": new["git_dir"], "top": new["top"]}
    for part in ("config", "attributes"):
        first = old.get(part) if isinstance(old.get(part), dict) else {}
        out[part] = dict(first) if new[part].get("replaced") else dict(new[part])
    return out


def _remove(text: str | None, part: dict, head: str, end: str | None) -> tuple[str | None, str]:
    """`text` without msd's block (and the line end msd added before it); (new text, action)."""
    found = _split_block(text, head, end) if text is not None else None
    if found is None:
        return text, "absent"
    before, _block, after = found
    if isinstance(part, dict) and part.get("added_line_end") and not after:
        before = before[:-2] if before.endswith("\r\n") else before[:-1] if before.endswith("\n") else before
    return before + after, "removed"


def unregister(repo: Repo, record: dict) -> dict:
    """Remove exactly the recorded blocks (module doc); {"config", "attributes", "warnings"}."""
    out: dict = {"warnings": []}
    actions = []

    def edit(text):
        new, action = _remove(text, record.get("config") or {}, CONFIG_HEAD, None)
        actions.append(action)
        return new

    _edit_config(repo.config, edit) if repo.config.exists() else actions.append("absent")
    out["config"] = actions[-1]
    part = record.get("attributes") or {}
    if part.get("shared"):
        out["attributes"] = "kept"
        if status(repo)["attributes"]:
            out["warnings"].append(f"{repo.attributes}: msd's merge-driver lines kept (they were there before this "
                                   "install: the team's file); without the commands git merges those files line by line")
        return out
    try:
        text = _read_attributes(repo)
    except Refused as exc:
        out["warnings"].append(f"msd's merge-driver lines not removed: {exc}")
        out["attributes"] = "failed"
        return out
    new, action = _remove(text, part, ATTR_HEAD, ATTR_END)
    if action == "removed":
        if not new and part.get("created_file"):
            os.unlink(repo.attributes)
        else:
            from msd_core.files.atomic import atomic_write_bytes

            atomic_write_bytes(repo.attributes, new.encode("utf-8"), anchor=repo.top)
    out["attributes"] = action
    return out


def status(repo: Repo) -> dict:
    """{"registered": both blocks present, "config": bool, "attributes": bool}."""
    config = (_read(repo.config) or b"").decode("utf-8", errors="replace")
    attrs = (_read(repo.attributes) or b"").decode("utf-8", errors="replace")
    has_config, has_attrs = CONFIG_HEAD in config, ATTR_HEAD in attrs
    return {"registered": has_config and has_attrs, "config": has_config, "attributes": has_attrs,
            "git_dir": str(repo.common)}
