"""Where an install was made, kept out of what a project commits.

A local install in `<project>/.claude` is portable (msd_core.shipped.text.is_portable): its content and
its manifest hold no absolute path of this machine (the manifest's `target` is `.claude`, the
folders msd created are recorded relative to the project). The absolute folder the install
was made in is recorded privately in `msd-core/.msd/origin.json`; `msd-core/.msd/` carries a
`.gitignore` of `*`, so git leaves the private files (pristine copies, backups, saved
settings, this record) out of a commit.

`moved_from` compares the record with where the install is now: a clone or a copy has no
record (the private folder was not committed) or names another folder, and `msd status`
says what to run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from msd_core.shipped.text import is_portable
from msd_core.paths import Target

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
    from msd_core.files.safe_tree import read_installed

    try:
        data = read_installed(config, ORIGIN_REL)
        value = json.loads(data.decode("utf-8")).get("config") if data else None
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
