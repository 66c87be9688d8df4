"""Apply a set of file changes to a config folder all-or-nothing, and recover after a crash.

<config>/.msd-core.txn/
  new/<n>         staged bytes of every file to put (same filesystem as the targets)
  old/<n>         hard links (or copies) of every file replaced or deleted
  journal.json    written after staging, before the first change; state prepared|committed
  wrote/<n>       what an edit of a file outside the folder wrote (see below)

Protocol: stage everything -> write the journal -> for each op: keep the old file in old/,
move the staged file into place (or delete) -> mark the journal committed -> drop the folder.
A process killed at any moment leaves either no journal (nothing touched yet: the staging
folder is discarded) or a journal: `recover()` rolls a prepared one back (old files return,
created files and folders go) and finishes a committed one. Every installer entry point calls
`recover()` under the install lock before it reads anything.

An edit of a file outside the folder that another program owns and writes (Claude Code's
~/.claude.json: `Outside`) is one more step of the same transaction, made right before the last
put (the manifest). Its new bytes depend on what the file holds at that instant, so the step holds
the host's own lock on it (files/dirlock.py), reads it, keeps its byte-exact before-image in
old/<n> (mode kept) and what it writes in wrote/<n>, records both hashes and the lock folder's
identity in the journal, and only then replaces the file. Rolling back gives the before-image
back when the file still holds what msd wrote; when the host wrote it since, only msd's edit is
taken out of what the host wrote (jsonedit.revert), so nothing the host saved is lost. A lock
folder a killed run left is taken over at once when the journal names it as its own, else
waited for by the host's rule (gone, or stale after 10 s).
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

__all__ = ["TXN_DIRNAME", "REMOVE", "Changes", "Outside", "apply", "dirs_to_create", "pending", "recover", "txn_dir"]

JOURNAL_VERSION = 1
SLOW_ENV = "MSD_TEST_SLOW_INSTALL"  # milliseconds to sleep per file step (crash tests)


REMOVE = b"\0msd:remove"  # what an Outside edit returns to delete the file


class Outside:
    """An edit of one file outside the folder, made under the host's lock on it: `edit(bytes or None)`
    returns the new bytes, None (nothing to change) or REMOVE; `mode`: a new file's permissions."""

    __slots__ = ("path", "edit", "mode")

    def __init__(self, path: Path, edit: Callable[[bytes | None], bytes | None], mode: int | None = None):
        self.path = Path(path).absolute()
        self.edit = edit
        self.mode = mode

    def __repr__(self) -> str:
        return f"Outside({str(self.path)!r})"


class Changes:
    """What a transaction does: puts (relpath -> bytes), deletes, then empty-folder removals;
    `outside`: edits of files outside the folder (Outside), made right before the `last` put.

    Hand-written rather than a dataclass: `dataclasses` pulls in inspect, ast, dis and
    tokenize, and `msd_run phase insert/remove` applies its edits through this module."""

    __slots__ = ("puts", "deletes", "rmdirs", "last", "outside")

    def __init__(self, puts: dict[str, bytes] | None = None, deletes: list[str] | None = None,
                 rmdirs: list[str] | None = None, last: str | None = None, outside: list[Outside] | None = None):
        self.puts = {} if puts is None else puts
        self.deletes = [] if deletes is None else deletes
        self.rmdirs = [] if rmdirs is None else rmdirs
        self.last = last  # relpath put after every other op (the manifest)
        self.outside = [] if outside is None else outside

    def __eq__(self, other) -> bool:
        if not isinstance(other, Changes):
            return NotImplemented
        return ((self.puts, self.deletes, self.rmdirs, self.last, [o.path for o in self.outside])
                == (other.puts, other.deletes, other.rmdirs, other.last, [o.path for o in other.outside]))

    __hash__ = None  # mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        return (f"Changes(puts={sorted(self.puts)!r}, deletes={self.deletes!r}, rmdirs={self.rmdirs!r}, last={self.last!r}, "
                f"outside={self.outside!r})")

    def empty(self) -> bool:
        return not (self.puts or self.deletes or self.rmdirs or self.outside)

    def count(self) -> int:
        return len(self.puts) + len(self.deletes) + len(self.rmdirs) + len(self.outside)


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
        (tdir / "wrote").mkdir()
        ops: list[dict] = []
        for i, rel in enumerate(order):
            current = config / rel
            _stage(tdir / "new" / str(i), changes.puts[rel])
            ops.append({"op": "put", "rel": rel, "n": i})
            tick(1)
            if delay:
                time.sleep(delay)
        at = len(ops) - 1 if changes.last is not None and changes.last in changes.puts else len(ops)
        edits = {}
        for k, out in enumerate(changes.outside):
            n = len(order) + len(changes.deletes) + k
            edits[n] = out
            ops.insert(at + k, {"op": "edit", "path": str(out.path), "n": n})
        base = len(order)
        for j, rel in enumerate(changes.deletes):
            ops.append({"op": "del", "rel": rel, "n": base + j})
        for rel in changes.rmdirs:
            ops.append({"op": "rmdir", "rel": rel})
        for op in ops:
            if op["op"] in ("put", "del"):
                op["had_old"] = os.path.lexists(tree.path(op["rel"]))
        journal = {"journal_version": JOURNAL_VERSION, "state": "prepared", "created_dirs": created, "ops": ops}
        current = tdir / "journal.json"
        _write_journal(tdir, journal)
        for op in ops:
            if op["op"] == "edit":
                current = Path(op["path"])
                _edit_outside(tdir, journal, op, edits[op["n"]])
                tick(1)
                if delay:
                    time.sleep(delay)
                continue
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
        _recover(config, "install", alive=True)
        from msd_core.files.oserrors import env_error

        raise env_error(exc, current, after="nothing was changed") from None
    except BaseException:
        _recover(config, "install", alive=True)
        raise
    shutil.rmtree(tdir, ignore_errors=True)
    return created


def _read_outside(path: Path) -> bytes | None:
    """The bytes of a file outside the folder: None when absent; a symlink or anything but a
    regular file is refused (OperationFailed, nothing written)."""
    from msd_core.errors import OperationFailed

    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        what = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        raise OperationFailed(f"{path} is {what}; msd does not write through it (left untouched)")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def _sha(data: bytes | None) -> str | None:
    from msd_core.files.atomic import sha256_bytes

    return None if data is None else sha256_bytes(data)


def _edit_outside(tdir: Path, journal: dict, op: dict, out: Outside) -> None:
    """One Outside step (module doc): under the host's lock, before-image and written bytes kept
    and recorded in the journal before the file is replaced."""
    from msd_core.files.atomic import lock_timeout_from_env
    from msd_core.files.dirlock import WAIT, dir_lock, identity

    path = out.path
    with dir_lock(path, lock_timeout_from_env(WAIT)) as lock:
        op["lock"] = identity(lock)
        _write_journal(tdir, journal)  # the lock is known as this run's before anything else happens
        data = _read_outside(path)
        new = out.edit(data)
        if new is None or new == data:
            return
        n = str(op["n"])
        mode = stat.S_IMODE(os.lstat(path).st_mode) if data is not None else (out.mode if out.mode is not None else 0o644)
        if data is not None:
            _stage(tdir / "old" / n, data)
            os.chmod(tdir / "old" / n, mode)
        removing = new is REMOVE
        if not removing:
            _stage(tdir / "new" / n, new)
            os.chmod(tdir / "new" / n, mode)
            _stage(tdir / "wrote" / n, new)  # a copy, not a link: a writer editing the file in place must not edit it
        op.update({"had_old": data is not None, "before": _sha(data), "wrote": None if removing else _sha(new), "done": True})
        _write_journal(tdir, journal)
        if removing:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            return
        try:
            os.replace(tdir / "new" / n, path)
        except OSError as exc:
            import errno

            if exc.errno != errno.EXDEV:
                raise
            from msd_core.files.atomic import atomic_write_bytes

            atomic_write_bytes(path, new, mode=mode)  # another file system: its own temp file beside it


def pending(config: Path) -> bool:
    return txn_dir(config).exists()


def recover(config: Path, what: str = "install") -> str | None:
    """Finish or roll back an interrupted transaction. Returns what was done, or None."""
    return _recover(config, what, alive=False)


def _recover(config: Path, what: str, alive: bool) -> str | None:
    """`alive`: the run that made the transaction rolls it back itself (it holds no host lock now)."""
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
        if op["op"] == "edit":
            _undo_outside(tdir, op, alive)
            continue
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


def _settle_lock(lock: Path, own) -> None:
    """A lock folder a killed run may have left on a file outside: taken over at once when the
    journal names it (`own`), else waited for until its holder removes it or it is stale."""
    from msd_core.files.dirlock import STALE, drop_if_stale, drop_own

    drop_own(lock, own)
    deadline = time.monotonic() + STALE + 2.0
    while os.path.lexists(lock) and not drop_if_stale(lock) and time.monotonic() < deadline:
        time.sleep(0.05)


def _undo_outside(tdir: Path, op: dict, alive: bool) -> None:
    """Take one Outside step back out (module doc). A file that cannot be read or written now is
    left as it is: recovery never fails on another program's file."""
    from msd_core.files.atomic import atomic_write_bytes, lock_timeout_from_env
    from msd_core.files.dirlock import WAIT, dir_lock, lock_of
    from msd_core.files.jsonedit import revert_bytes

    path = Path(op["path"])
    if not path.is_absolute():
        return
    if not alive:
        _settle_lock(lock_of(path), op.get("lock"))
    if not op.get("done"):
        return  # killed before it recorded a write: the file was not replaced
    n = str(op["n"])
    old, wrote = tdir / "old" / n, tdir / "wrote" / n
    try:
        with dir_lock(path, lock_timeout_from_env(WAIT)):
            now = _read_outside(path)
            if _sha(now) == op.get("before") and (now is not None or not op.get("had_old")):
                return  # killed before the replace
            if _sha(now) == op.get("wrote"):
                if op.get("had_old"):
                    os.replace(old, path)  # the byte-exact before-image, its mode kept
                else:
                    os.unlink(path)
                return
            if now is None:
                return  # removed since by its owner: nothing of msd's is left in it
            before = old.read_bytes() if op.get("had_old") else None
            written = wrote.read_bytes() if op.get("wrote") else None
            fixed = revert_bytes(before, written, now)  # the host wrote it since: only msd's edit goes
            if fixed is not None:
                atomic_write_bytes(path, fixed, mode=stat.S_IMODE(os.lstat(path).st_mode))
    except Exception:  # noqa: BLE001 - another program's file: leave it rather than fail the recovery
        return
