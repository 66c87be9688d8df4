"""The record of what msd owns in a config folder: what it created, where, and what uninstall may remove.

Installer, uninstaller, repair and status ask this module; nothing else reads or writes these
files. The record has several forms, each kept where a kill or a corrupt file cannot lose it:

  <config>/msd-core/manifest.json     every file msd installed with its sha256, the folders it
                                      created, what it did to settings.json and the PATH hook
                                      (format and verified reads: msd_core.ownership.manifest)
  <config>/msd-core/.msd/manifest.copy.json
                                      a byte copy of the manifest, written in the same
                                      transaction. `msd install --repair` rebuilds a corrupt
                                      manifest from it, so uninstall after a repair still
                                      removes msd's settings.json entry and every folder msd
                                      created.
  <config>/.msd-core.created          written right after msd creates the config folder (and
                                      any missing parents), before anything else; a JSON list
                                      of those absolute folders. An install that completes
                                      moves the list into the manifest (created_config_dirs)
                                      and deletes the marker in the same transaction; an
                                      install killed before that leaves it for the next run,
                                      so uninstall still removes the folder msd created.
                                      An uninstall that leaves something of msd's behind
                                      (your edits, backups) writes it again for the same reason.
  <config>/msd-core/.msd/origin.json  where the install was made. A local install in
                                      `<project>/.claude` is portable (shipped.text.is_portable):
                                      its content and manifest hold no absolute path of this
                                      machine (the manifest's `target` is `.claude`, the folders
                                      msd created are recorded relative to the project), so the
                                      absolute folder is recorded here; `moved_from` compares it
                                      with where the install is now (a clone or a copy has no
                                      record or names another folder) and `msd status` says what
                                      to run. `msd-core/.msd/` carries a `.gitignore` of `*`, so
                                      git leaves every private file out of a commit.
  <config>/msd-core/.msd/pristine.zip what msd shipped for each installed file, the base of later
                                      merges: one uncompressed zip built deterministically (sorted
                                      names, fixed timestamps), so an unchanged set gives identical
                                      bytes and a no-op reinstall writes nothing.
  <config>/msd-core/.msd/backups/<stamp>/
                                      the edits --repair/--force replaced; kept by uninstall unless
                                      --remove-backups.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
import zipfile
from pathlib import Path

from msd_core.errors import IntegrityError, NotInstalledError, OperationFailed
from msd_core.files.bounded import loads_json
from msd_core.files.oserrors import cannot_write
from msd_core.files.safe_tree import read_installed
from msd_core.ownership.hints import command_for, repair_command, repair_hint
from msd_core.ownership.manifest import Manifest, load_manifest, parse_manifest
from msd_core.paths import BOOKKEEPING_DIRNAME, INSTALL_DIRNAME, MANIFEST_REL, Target
from msd_core.shipped.text import is_portable

BOOKKEEPING_REL = f"{INSTALL_DIRNAME}/{BOOKKEEPING_DIRNAME}"
BACKUPS_PREFIX = "msd-core/.msd/backups/"


# ------------------------------------------------------------------ the manifest and its copy


def load_for_install(target: Target, *, force: bool, warnings: list[str]) -> Manifest | None:
    """The manifest an install builds on: None when there is none; with `force` (repair) a corrupt
    one is rebuilt from its bookkeeping copy (a warning says so); else IntegrityError naming the repair."""
    try:
        return load_manifest(target.config)
    except NotInstalledError:
        return None
    except IntegrityError as exc:
        refuse_unusable_manifest(target)  # a folder or symlink there: no command can repair it
        if force:
            copy = load_copy(target.config)
            if copy is not None:
                warnings.append(f"{exc.message}; rebuilt it from its bookkeeping copy")
            else:
                warnings.append(f"{exc.message}; rebuilding it (its bookkeeping copy is missing or damaged too)")
            return copy
        raise IntegrityError(exc.message, hint=repair_hint(target.config, target.scope)) from None


def load_for_uninstall(target: Target) -> Manifest | None:
    """The manifest uninstall removes by; a corrupt one names the repair, then the uninstall."""
    try:
        return load_manifest(target.config)
    except NotInstalledError:
        return None
    except IntegrityError as exc:
        refuse_unusable_manifest(target)
        raise IntegrityError(exc.message, hint=f"run `{repair_command(target.config, target.scope)}` to rebuild the "
                                               f"manifest, then `{command_for('uninstall', target.config, target.scope)}`") from None


# ------------------------------------------------------------------ what msd created

MARKER = ".msd-core.created"
COPY_REL = "msd-core/.msd/manifest.copy.json"


def ensure_config(target: Target) -> list[str]:
    """Create the config folder if needed and write the marker; return the absolute folders
    this process created (deepest first). A folder another installer created meanwhile is
    theirs to record: counting it here would let this run's clean-up remove their folder."""
    config = target.config
    if config.is_dir():
        return []
    missing = []
    for candidate in (config, *config.parents):
        if os.path.lexists(candidate):
            break
        missing.append(str(candidate))
    if not missing:  # something that is not a folder is in the way: name it
        try:
            config.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise cannot_write(config, exc) from None
        return []
    made: list[str] = []
    for d in reversed(missing):  # top-down
        try:
            os.mkdir(d)
        except FileExistsError:
            continue  # another process made it first
        except OSError as exc:
            undo_config(config, list(reversed(made)))
            raise cannot_write(Path(d).parent, exc) from None
        made.append(d)
    made.reverse()  # deepest first: the order to remove them
    if made:
        _write_marker(config, made)
    return made


def marker_bytes(created: list[str]) -> bytes:
    return json.dumps(created).encode("utf-8")


def _write_marker(config: Path, created: list[str]) -> None:
    """One short write into a fresh file (no temp file a kill could leave behind). A kill between
    the create and the write leaves an empty marker, which still says "msd created this folder"."""
    try:
        fd = os.open(config / MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except FileExistsError:
        return  # a concurrent first install recorded the folder it made; never undo theirs
    except OSError as exc:
        undo_config(config, created)
        raise cannot_write(config, exc) from None
    try:
        os.write(fd, marker_bytes(created))
    except OSError as exc:
        os.close(fd)
        undo_config(config, created)
        raise cannot_write(config, exc) from None
    os.close(fd)


def undo_config(config: Path, created: list[str]) -> None:
    """After a failed first install: remove the marker and the folders this run created (if empty)."""
    if not created:
        return
    with contextlib.suppress(OSError):
        os.unlink(config / MARKER)
    for d in created:  # deepest first, as ensure_config listed them
        with contextlib.suppress(OSError):
            os.rmdir(d)


def read_marker(config: Path) -> list[str]:
    """The folders a marker lists, limited to the config folder and its parents (an empty or
    damaged marker means: msd created the config folder itself)."""
    config = Path(config)
    try:
        data = read_installed(config, MARKER)
    except OperationFailed:
        return []
    if data is None:
        return []
    allowed = {str(config), *(str(p) for p in config.parents)}
    try:
        listed = loads_json(data, str(config / MARKER))
    except (UnicodeDecodeError, ValueError):
        listed = None
    if not isinstance(listed, list) or not listed:
        return [str(config)]
    return [d for d in listed if isinstance(d, str) and d in allowed]


def created_config_dirs(target: Target, old: Manifest | None, this_run: list[str]) -> list[str]:
    """Every folder msd created for this install: recorded earlier, left by a killed run, or made now."""
    out: list[str] = []
    recorded = old.extra.get("created_config_dirs") if old else None
    recorded = created_dirs_on_disk(target, [d for d in recorded if isinstance(d, str)]) if isinstance(recorded, list) else []
    for d in [*recorded, *read_marker(target.config), *this_run]:
        if isinstance(d, str) and d not in out:
            out.append(d)
    return sorted(out, key=lambda d: -d.count(os.sep))  # deepest first: the order to remove them


def load_copy(config: Path) -> Manifest | None:
    """The bookkeeping copy of the manifest, or None when it is missing or damaged too."""
    try:
        data = read_installed(config, COPY_REL)
    except (OperationFailed, IntegrityError):
        return None
    if data is None:
        return None
    try:
        return parse_manifest(data, str(Path(config) / COPY_REL))
    except IntegrityError:
        return None


def refuse_unusable_manifest(target: Target) -> None:
    """A folder, symlink or special file where manifest.json belongs: no install can replace it,
    so the hint says to move it aside first (exit 3)."""
    path = target.manifest
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return
    if stat.S_ISREG(mode):
        return
    what = "a folder" if stat.S_ISDIR(mode) else "a symlink" if stat.S_ISLNK(mode) else "not a regular file"
    raise IntegrityError(f"install manifest {path} is {what}",
                         hint=f"move it aside, then run `{repair_command(target.config, target.scope)}`")


# ------------------------------------------------------------------ where the install was made

ORIGIN_REL = "msd-core/.msd/origin.json"
IGNORE_REL = "msd-core/.msd/.gitignore"
IGNORE_ALL = b"# msd's private files (pristine copies, backups, install record): never committed\n*\n"


def manifest_target(target: Target) -> str:
    """The manifest's `target`: `.claude` for a portable install, else the absolute folder."""
    return ".claude" if is_portable(target) else str(target.config)


def recorded_created_dirs(target: Target, dirs: list[str]) -> list[str]:
    """Folders msd created for the config folder, as the manifest records them: relative to
    the project for a portable install (ones outside the project are not recorded)."""
    if not is_portable(target):
        return dirs
    base = target.config.parent
    out = []
    for d in dirs:
        rel = os.path.relpath(d, base) if os.path.isabs(d) else d
        if rel != ".." and not rel.startswith(".." + os.sep):
            out.append(rel.replace(os.sep, "/"))
    return out


def created_dirs_on_disk(target: Target, recorded: list[str]) -> list[str]:
    """Absolute folders from the manifest's record (relative ones are under the project)."""
    return [d if os.path.isabs(d) else str(target.config.parent / d) for d in recorded]


def private_files(target: Target) -> dict[str, bytes]:
    """The private files every install writes (relpath -> bytes)."""
    record = {"config": str(target.config)}
    return {ORIGIN_REL: (json.dumps(record, sort_keys=True) + "\n").encode("utf-8"), IGNORE_REL: IGNORE_ALL}


def _recorded_config(config: Path) -> str | None:
    try:
        data = read_installed(config, ORIGIN_REL)
        value = loads_json(data, ORIGIN_REL).get("config") if data else None
    except Exception:  # damaged or unreadable: treated as absent
        return None
    return value if isinstance(value, str) else None


def moved_from(target: Target, manifest_target_value: str) -> str | None:
    """None when the install is where it was made; else a one-line description of the move."""
    here = str(target.config)
    if is_portable(target):
        recorded = _recorded_config(target.config)
        if recorded is None:
            return "copied here (a clone or a copy: msd's private files are not in it)"
        return None if recorded == here else f"moved or copied here from {recorded}"
    if manifest_target_value and manifest_target_value != here and os.path.isabs(manifest_target_value):
        return f"moved or copied here from {manifest_target_value} (its content names that folder)"
    return None


def adopt_hint(target: Target) -> str:
    flag = "--global" if target.scope == "global" else "--local"
    if is_portable(target):
        return (f"run `msd install {flag}` here to adopt it (the content is portable and keeps working; "
                "this rebuilds msd's private files, so later updates can merge your edits)")
    return f"run `msd install {flag}` to rewrite the content for this folder"


# ------------------------------------------------------------------ pristine copies

PACK_REL = "msd-core/.msd/pristine.zip"
_EPOCH = (1980, 1, 1, 0, 0, 0)


def build_pack(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for rel in sorted(entries):
            info = zipfile.ZipInfo(rel, date_time=_EPOCH)
            info.external_attr = 0o644 << 16
            zf.writestr(info, entries[rel])
    return buf.getvalue()


def read_pack(tree) -> dict[str, bytes]:
    """Every pristine copy, by installed relpath. A missing or damaged pack gives {} (no merge base)."""
    data = read_installed(tree, PACK_REL)
    if not data:
        return {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return {name: zf.read(name) for name in zf.namelist()}
    except (zipfile.BadZipFile, KeyError, ValueError, OSError):
        return {}


# ------------------------------------------------------------------ backups and bookkeeping


def backup_dirs(config) -> list[str]:
    """Relpaths of msd's backup folders (msd-core/.msd/backups/<stamp>), oldest first."""
    root = Path(config) / BACKUPS_PREFIX.rstrip("/")
    if not root.is_dir() or root.is_symlink():
        return []
    return sorted(BACKUPS_PREFIX + p.name for p in root.iterdir() if p.is_dir() and not p.is_symlink())


def files_under(path: Path, rel: str) -> list[str]:
    """Every file below folder `path`, as relpaths starting with `rel`."""
    out = []
    for dirpath, _dirs, names in os.walk(path):
        sub = os.path.relpath(dirpath, path)
        for n in names:
            out.append(f"{rel}/{n}" if sub == "." else f"{rel}/{sub}/{n}".replace(os.sep, "/"))
    return out


# ------------------------------------------------------------------ merge drivers in repositories

MERGE_DRIVERS_KEY = "merge_drivers"


def merge_driver_records(manifest: Manifest | None) -> list[dict]:
    """The repositories an install registered msd's git merge drivers in (msd_core.git.merge_config):
    one record each, `git_dir` absolute for a global install and relative to the project for a
    portable local one (so its manifest names no folder of this machine)."""
    raw = manifest.extra.get(MERGE_DRIVERS_KEY) if manifest is not None else None
    if not isinstance(raw, list):
        return []
    return [r for r in raw if isinstance(r, dict) and isinstance(r.get("git_dir"), str)]


def merge_driver_git_dir(target: Target, rec: dict) -> Path:
    """The absolute git directory a record names."""
    d = rec["git_dir"]
    return Path(d) if os.path.isabs(d) else (target.config.parent / d)


def merge_driver_top(target: Target, rec: dict) -> Path:
    """The absolute work tree top a record names (where its `.gitattributes` is); a record
    without one: the folder holding the git directory."""
    d = rec.get("top")
    if not isinstance(d, str):
        return merge_driver_git_dir(target, rec).parent
    return Path(d) if os.path.isabs(d) else (target.config.parent / d)


def with_merge_driver_record(target: Target, records: list[dict], rec: dict) -> list[dict]:
    """`records` with `rec` in place of the record of the same git directory (or appended);
    a portable install records the directory and the work tree relative to the project."""
    rec = dict(rec)
    if is_portable(target):
        for key in ("git_dir", "top"):
            if isinstance(rec.get(key), str):
                rec[key] = os.path.relpath(rec[key], target.config.parent).replace(os.sep, "/")
    here = os.path.realpath(merge_driver_git_dir(target, rec))
    kept = [r for r in records if os.path.realpath(merge_driver_git_dir(target, r)) != here]
    return [*kept, rec]
