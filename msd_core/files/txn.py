"""Apply a set of file changes to a config folder all-or-nothing, and recover after a crash.

<config>/.msd-core.txn/
  new/<n>         staged bytes of every file to put (same filesystem as the targets)
  old/<n>         hard links (or copies) of every file replaced or deleted
  journal.json    written after staging, before the first change; state prepared|committed

Protocol: stage everything -> write the journal -> for each op: keep the old file in old/,
move the staged file into place (or delete) -> mark the journal committed -> drop the folder.
A process killed at any moment leaves either no journal (nothing touched yet: the staging
folder is discarded) or a journal: `recover()` rolls a prepared one back (old files return,
created files and folders go) and finishes a committed one. Every installer entry point calls
`recover()` under the install lock before it reads anything.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import time
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from msd_core.files.bounded import loads_json
from msd_core.files.safe_tree import SafeTree
from msd_core.paths import TXN_DIRNAME

__all__ = ["TXN_DIRNAME", "Changes", "apply", "dirs_to_create", "pending", "recover", "txn_dir"]

JOURNAL_VERSION = 1
SLOW_ENV = "MSD_TEST_SLOW_INSTALL"  # milliseconds to sleep per file step (crash tests)


class Changes:
    """What a transaction does: puts (relpath -> bytes), deletes, then empty-folder removals.

    Hand-written rather than a dataclass: `dataclasses` pulls in inspect, ast, dis and
    tokenize, and `msd_run phase insert/remove` applies its edits through this module."""

    __slots__ = ("puts", "deletes", "rmdirs", "last")

    def __init__(self, puts: dict[str, bytes] | None = None, deletes: list[str] | None = None,
                 rmdirs: list[str] | None = None, last: str | None = None):
        self.puts = {} if puts is None else puts
        self.deletes = [] if deletes is None else deletes
        self.rmdirs = [] if rmdirs is None else rmdirs
        self.last = last  # relpath put after every other op (the manifest)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Changes):
            return NotImplemented
        return (self.puts, self.deletes, self.rmdirs, self.last) == (other.puts, other.deletes, other.rmdirs, other.last)

    __hash__ = None  # mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        return f"Changes(puts={sorted(self.puts)!r}, deletes={self.deletes!r}, rmdirs={self.rmdirs!r}, last={self.last!r})"

    def empty(self) -> bool:
        return not (self.puts or self.deletes or self.rmdirs)

    def count(self) -> int:
        return len(self.puts) + len(self.deletes) + len(self.rmdirs)


def txn_dir(config: Path) -> Path:
    return Path(config) / TXN_DIRNAME


def dirs_to_create(config: Path, relpaths) -> list[str]:
    """Folders (relative to config) that putting `relpaths` would create, shallowest first."""
    out: set[str] = set()
    for rel in relpaths:
        parts = PurePosixPath(rel).parts[:-1]
        for i in range(1, len(parts) + 1):
            sub = "/".join(parts[:i])
            if sub in out:
                continue
            if not os.path.lexists(Path(config, *parts[:i])):
                out.add(sub)
    return sorted(out, key=lambda d: (d.count("/"), d))


def _slow() -> float:
    raw = os.environ.get(SLOW_ENV)
    try:
        return max(0.0, float(raw) / 1000.0) if raw else 0.0
    except ValueError:
        return 0.0


def _write_journal(tdir: Path, journal: dict) -> None:
    """Atomic (temp file + rename) but not fsynced: the protocol guards against a killed
    process, whose writes the kernel keeps; fsyncing would not make a power cut safe unless
    every staged file were fsynced too, which would triple the install time."""
    tmp = tdir / "journal.json.tmp"
    with open(tmp, "wb") as fh:
        fh.write(json.dumps(journal, indent=1).encode("utf-8"))
    os.replace(tmp, tdir / "journal.json")


def _keep_old(src: Path, dest: Path) -> None:
    try:
        os.link(src, dest)
    except OSError:
        shutil.copy2(src, dest)


def _stage(path: Path, data: bytes) -> None:
    """Write one staged file (the write primitive a full disk or a size limit fails)."""
    with open(path, "wb") as fh:
        fh.write(data)


def apply(config: Path, changes: Changes, progress: Callable[[int], None] | None = None) -> list[str]:
    """Apply `changes` atomically (see module doc). Returns the folders it created.

    Any OSError (disk full, file too large, permission denied, a folder where a file goes)
    rolls everything back and raises OperationFailed naming the installed path and the cause."""
    config = Path(config)
    tdir = txn_dir(config)
    delay = _slow()
    tick = progress or (lambda n: None)
    if tdir.exists():
        recover(config)
    order = [r for r in sorted(changes.puts) if r != changes.last]
    if changes.last is not None and changes.last in changes.puts:
        order.append(changes.last)
    created = dirs_to_create(config, order)
    tree = SafeTree(config)
    made: set[str] = set()
    current: str | Path = config
    try:
        (tdir / "new").mkdir(parents=True)
        (tdir / "old").mkdir()
        ops: list[dict] = []
        for i, rel in enumerate(order):
            current = config / rel
            _stage(tdir / "new" / str(i), changes.puts[rel])
            ops.append({"op": "put", "rel": rel, "n": i})
            tick(1)
            if delay:
                time.sleep(delay)
        base = len(ops)
        for j, rel in enumerate(changes.deletes):
            ops.append({"op": "del", "rel": rel, "n": base + j})
        for rel in changes.rmdirs:
            ops.append({"op": "rmdir", "rel": rel})
        for op in ops:
            if op["op"] != "rmdir":
                op["had_old"] = os.path.lexists(tree.path(op["rel"]))
        journal = {"journal_version": JOURNAL_VERSION, "state": "prepared", "created_dirs": created, "ops": ops}
        current = tdir / "journal.json"
        _write_journal(tdir, journal)
        for op in ops:
            target = tree.path(op["rel"])
            current = target
            if op["op"] == "rmdir":
                with contextlib.suppress(OSError):
                    os.rmdir(target)
                tick(1)
                continue
            if op["had_old"]:
                _keep_old(target, tdir / "old" / str(op["n"]))
                if op["op"] == "put":  # a replaced file keeps its permissions (settings.json may be 0600)
                    with contextlib.suppress(OSError):
                        os.chmod(tdir / "new" / str(op["n"]), stat.S_IMODE(os.lstat(target).st_mode))
            if op["op"] == "put":
                parent = os.path.dirname(target)
                if parent not in made:
                    if not os.path.isdir(parent):
                        os.makedirs(parent, exist_ok=True)
                    made.add(parent)
                os.replace(tdir / "new" / str(op["n"]), target)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(target)
                tick(1)
            if delay:
                time.sleep(delay)
        journal["state"] = "committed"
        current = tdir / "journal.json"
        _write_journal(tdir, journal)
    except OSError as exc:
        recover(config)
        from msd_core.files.oserrors import env_error

        raise env_error(exc, current, after="nothing was changed") from None
    except BaseException:
        recover(config)
        raise
    shutil.rmtree(tdir, ignore_errors=True)
    return created


def pending(config: Path) -> bool:
    return txn_dir(config).exists()


def recover(config: Path, what: str = "install") -> str | None:
    """Finish or roll back an interrupted transaction. Returns what was done, or None."""
    config = Path(config)
    tdir = txn_dir(config)
    if not tdir.exists():
        return None
    try:
        journal = loads_json((tdir / "journal.json").read_bytes(), "the transaction journal")
    except (OSError, ValueError):
        journal = None  # never got to the journal: nothing outside the staging folder changed
    if journal is None:
        shutil.rmtree(tdir, ignore_errors=True)
        return "discarded an unfinished staging folder"
    if journal.get("state") == "committed":
        shutil.rmtree(tdir, ignore_errors=True)
        return f"finished an interrupted {what}"
    tree = SafeTree(config)
    for op in reversed(journal.get("ops", [])):
        target = tree.path(op["rel"])
        if op["op"] == "rmdir":
            target.mkdir(parents=True, exist_ok=True)
            continue
        old = tdir / "old" / str(op["n"])
        if old.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(old, target)
        elif not op.get("had_old") and op["op"] == "put":
            with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                os.unlink(target)
    for rel in sorted(journal.get("created_dirs", []), key=lambda d: -d.count("/")):
        with contextlib.suppress(OSError):
            os.rmdir(SafeTree(config).path(rel))
    shutil.rmtree(tdir, ignore_errors=True)
    return f"rolled back an interrupted {what}"
