"""What a plugin build may do to its OUT folder: the record of the files a build wrote, and the plan
of a rebuild over an earlier one.

OUT/.msd-plugin-build is the record: {"package", "version", "files": {relpath: sha256}}, every
file the build wrote (the record itself aside). A rebuild

  - writes every file of the new build; a path that holds a file the earlier build did not
    record, or recorded but that was edited since, is refused (one line naming it) unless its
    bytes are already the new ones; a folder or a symlink there, or a symlink on the way, too;
  - removes a recorded file the new build no longer writes only while its bytes are the
    recorded ones, and then the folders that this leaves empty;
  - keeps every other file (notes, a `.git/`, an extra skill, an edited file) and lists it.

Records written before the `files` list (0.1.x) are read from the plugin's own manifest (the
content files it hashes), plus the build's fixed files, which a build always rewrote whole.

A folder inside an install's tree (a config folder holding msd-core/manifest.json, or one of
its folders) or inside an earlier build is refused: its owner's record would not know the files.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from msd_core.errors import UsageError
from msd_core.files.atomic import sha256_bytes
from msd_core.files.txn import TXN_DIRNAME, Changes
from msd_core.paths import MANIFEST_REL, manifest_path

MARKER = ".msd-plugin-build"
LOCK_NAME = ".msd-plugin-build.lock"  # held by a build; never removed (another build may be waiting on it)
BOOKKEEPING = (MARKER, LOCK_NAME, TXN_DIRNAME)
PLUGIN_DIR = "msd-core"
FIXED = (".claude-plugin/marketplace.json", f"{PLUGIN_DIR}/.claude-plugin/plugin.json",
         f"{PLUGIN_DIR}/bin/msd_run", f"{PLUGIN_DIR}/{MANIFEST_REL}")
MAX_RECORD = 4 * 1024 * 1024
SHOWN = 3  # paths named in a one-line refusal


def is_fresh(out: Path) -> bool:
    """Nothing in `out` but what a build that never finished leaves (its lock, its transaction)."""
    return all(name in (LOCK_NAME, TXN_DIRNAME) for name in os.listdir(out))


def record_bytes(files: dict[str, bytes], version: str) -> bytes:
    hashes = {rel: sha256_bytes(data) for rel, data in sorted(files.items()) if rel != MARKER}
    return (json.dumps({"package": "msd-core", "version": version, "files": hashes}, indent=1) + "\n").encode("utf-8")


def refuse_inside_an_install(out: Path) -> None:
    """UsageError when `out` is (inside) an install's config folder or an earlier build's tree."""
    for folder in (out, *out.parents):
        if os.path.lexists(manifest_path(folder)):
            raise UsageError(f"{out} is inside an msd install ({folder}); a plugin build there would mix with "
                             "the files that install owns", hint="choose a folder outside every config folder")
        if folder != out and os.path.lexists(folder / MARKER):
            raise UsageError(f"{out} is inside an earlier plugin build ({folder})",
                             hint=f"rebuild {folder} itself, or choose a folder outside it")


def _read_json(path: Path) -> dict | None:
    from msd_core.files.bounded import BoundedInputError, loads_json
    from msd_core.files.safe_read import read_regular

    try:
        data = loads_json(read_regular(path, MAX_RECORD, follow_symlinks=False), what=str(path))
    except (OSError, BoundedInputError):
        return None
    return data if isinstance(data, dict) else None


def previous_record(out: Path) -> dict[str, str]:
    """{relpath: sha256} of what the earlier build in `out` wrote ({} for a new folder)."""
    record = _read_json(out / MARKER)
    if record is None:
        return {}
    files = record.get("files")
    if isinstance(files, dict):
        return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)}
    manifest = _read_json(out / PLUGIN_DIR / MANIFEST_REL) or {}
    listed = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
    owned = {f"{PLUGIN_DIR}/{k}": v for k, v in listed.items() if isinstance(k, str) and isinstance(v, str)}
    for rel in FIXED:  # rewritten whole by every earlier build: its current bytes count as its own
        sha = _sha_of(out / rel)
        if sha is not None:
            owned[rel] = sha
    return owned


def _sha_of(path: Path) -> str | None:
    """The sha256 of the regular file at `path` (never followed through a link, never blocking), else None."""
    from msd_core.files.safe_read import read_regular

    try:
        return sha256_bytes(read_regular(path, follow_symlinks=False))
    except OSError:
        return None


def _scan(out: Path) -> dict[str, int]:
    """Every entry below `out` that is not a folder (files, symlinks, ...): relpath -> st_mode.
    Symlinked folders are entries, never walked; the transaction's folder is skipped."""
    found: dict[str, int] = {}
    for dirpath, dirs, names in os.walk(out):
        rel_dir = os.path.relpath(dirpath, out)
        keep = []
        for d in dirs:
            rel = d if rel_dir == "." else f"{rel_dir}/{d}"
            if rel in BOOKKEEPING:
                continue
            if os.path.islink(os.path.join(dirpath, d)):
                found[rel.replace(os.sep, "/")] = stat.S_IFLNK
            else:
                keep.append(d)
        dirs[:] = keep
        for n in names:
            rel = (n if rel_dir == "." else f"{rel_dir}/{n}").replace(os.sep, "/")
            if rel in BOOKKEEPING:
                continue
            try:
                found[rel] = os.lstat(os.path.join(dirpath, n)).st_mode
            except OSError:
                continue
    return found


def _blocked(out: Path, rel: str, entries: dict[str, int]) -> str | None:
    """Why `rel` cannot be written: a symlink or a file where a folder on the way must be, or a
    folder or symlink (or other non-file) at the path itself."""
    parts = rel.split("/")
    for i in range(1, len(parts)):
        sub = "/".join(parts[:i])
        if sub in entries:
            return f"{sub} is a symlink" if stat.S_ISLNK(entries[sub]) else f"{sub} is a file where the build needs a folder"
    if rel in entries and not stat.S_ISREG(entries[rel]):
        return f"{rel} is a symlink" if stat.S_ISLNK(entries[rel]) else f"{rel} is not a regular file"
    if rel not in entries and os.path.isdir(out / rel):
        return f"{rel} is a folder where the build writes a file"
    return None


def listing(what: str, paths: list[str], shown: int = SHOWN) -> str:
    """One line: `what: a, b, c and N more`."""
    more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
    return f"{what}: {', '.join(paths[:shown])}{more}"


def plan(out: Path, files: dict[str, bytes], version: str) -> tuple[Changes, list[str], list[str]]:
    """The transaction that turns `out` into the new build, the files it keeps and those it removes.
    UsageError (nothing written) when the build would overwrite or write through what is not its own."""
    old = previous_record(out)
    entries = _scan(out)
    blocked = [why for rel in sorted(files) if rel != MARKER and (why := _blocked(out, rel, entries))]
    if blocked:
        raise UsageError(listing(f"cannot rebuild the plugin in {out}", blocked),
                         hint="move them aside, then rerun (msd never writes through a link or over a folder)")
    current = {rel: _sha_of(out / rel) for rel, mode in entries.items() if stat.S_ISREG(mode)}
    ours = {rel for rel, sha in current.items() if rel in old and sha == old[rel]}
    clash = [rel for rel in sorted(files) if rel in current and rel not in ours and current[rel] != sha256_bytes(files[rel])]
    if clash:
        raise UsageError(listing(f"files in {out} that the earlier build did not write, or that were edited since, "
                                   "are where this build writes", clash),
                         hint="move them aside (or delete them), then rerun")
    removed = sorted(rel for rel in ours if rel not in files)
    kept = sorted(rel for rel in entries if rel not in files and rel not in ours)
    rmdirs = _emptied(out, removed, set(entries) - set(removed), files)
    puts = {rel: data for rel, data in files.items() if rel != MARKER}
    puts[MARKER] = record_bytes(files, version)
    return Changes(puts=puts, deletes=removed, rmdirs=rmdirs, last=MARKER), kept, removed


def _emptied(out: Path, removed: list[str], staying: set[str], files: dict[str, bytes]) -> list[str]:
    """Folders that hold nothing once `removed` is gone (deepest first), never one of the new build's
    or one with anything else in it (an empty folder of the user's is left alone: not in `removed`)."""
    needed = {"/".join(rel.split("/")[:i]) for rel in [*files, *staying] for i in range(1, rel.count("/") + 1)}
    candidates = {"/".join(rel.split("/")[:i]) for rel in removed for i in range(1, rel.count("/") + 1)}
    out_dirs = []
    for d in sorted(candidates - needed, key=lambda d: (-d.count("/"), d)):
        inside = {e for e in os.listdir(out / d)} if os.path.isdir(out / d) else set()
        below = {rel.split("/")[d.count("/") + 1] for rel in removed if rel.startswith(d + "/")}
        below |= {x.rsplit("/", 1)[-1] for x in out_dirs if x.rsplit("/", 1)[0] == d}
        if inside <= below:
            out_dirs.append(d)
    return out_dirs
