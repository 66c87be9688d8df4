"""What msd created, kept where a killed first install or a corrupt manifest cannot lose it.

Two records back up the manifest's ownership facts (which folders msd created, what it did
to settings.json, which files it owns):

  <config>/.msd-core.created          written right after msd creates the config folder (and
                                      any missing parents), before anything else; a JSON list
                                      of those absolute folders. An install that completes
                                      moves the list into the manifest (created_config_dirs)
                                      and deletes the marker in the same transaction; an
                                      install killed before that leaves it for the next run,
                                      so uninstall still removes the folder msd created.
                                      An uninstall that leaves something of msd's behind
                                      (your edits, backups) writes it again for the same reason.
  <config>/msd-core/.msd/manifest.copy.json
                                      a byte copy of the manifest, written in the same
                                      transaction. `msd install --repair` rebuilds a corrupt
                                      manifest from it, so uninstall after a repair still
                                      removes msd's settings.json entry and every folder msd
                                      created.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from pathlib import Path

from msd_core.errors import IntegrityError, OperationFailed
from msd_core.ownership.hints import repair_command
from msd_core.files.oserrors import cannot_write
from msd_core.files.safe_tree import read_installed
from msd_core.ownership.manifest import Manifest, parse_manifest
from msd_core.paths import Target

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
        listed = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        listed = None
    if not isinstance(listed, list) or not listed:
        return [str(config)]
    return [d for d in listed if isinstance(d, str) and d in allowed]


def created_config_dirs(target: Target, old: Manifest | None, this_run: list[str]) -> list[str]:
    """Every folder msd created for this install: recorded earlier, left by a killed run, or made now."""
    out: list[str] = []
    from msd_core.ownership.origin import created_dirs_on_disk

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
