"""One verdict per file for an install over whatever is in the config folder now.

  create     not there: written
  identical  already has the new bytes
  update     unchanged since msd wrote it (or --force, after a backup): replaced
  merged     edited by the user and changed upstream: merged three-way against the pristine copy
  conflict   edited and the merge does not apply cleanly, or a file msd did not write sits where
             msd installs one: left in place, the new version written beside it as <file>.msd-new
  removed    no longer shipped and unchanged: deleted
  kept       edited by the user and either unchanged upstream or no longer shipped: left as is

The manifest records, per file, the hash of the pristine version msd shipped; a merged or
kept file therefore still reads as modified (so uninstall keeps it and the next update merges
again against the right base). Pure: reads the disk, writes nothing.

A conflict is pending while its <file>.msd-new exists. You resolve it by making <file> what
you want and deleting <file>.msd-new; the next install records the resolution (manifest
"resolved": {file: {sha256: your file then, shipped: the version you resolved against}}) and
from then on treats your file as your edit of that version: kept while that version is
shipped, merged three-way into a newer one (a new .msd-new only when that merge conflicts).
A file msd never wrote ("yours": true) is never merged: a newer version is a new conflict.
An edited .msd-new is never overwritten by the same version; a newer one replaces it only
after saving yours to the backup folder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from msd_core.files.atomic import sha256_bytes
from msd_core.files.safe_tree import SafeTree, read_installed
from msd_core.install.merge import merge3
from msd_core.ownership.manifest import Manifest
from msd_core.ownership.record import read_pack

VERDICTS = ("create", "identical", "update", "merged", "conflict", "removed", "kept")
NEW_SUFFIX = ".msd-new"


@dataclass
class FileVerdict:
    path: str
    verdict: str
    detail: str = ""
    new_version: str | None = None  # conflict: where the new version was written
    backup: str | None = None       # --force: where the replaced file was saved

    def to_json(self) -> dict:
        out = {"path": self.path, "verdict": self.verdict}
        if self.detail:
            out["detail"] = self.detail
        if self.new_version:
            out["new_version"] = self.new_version
        if self.backup:
            out["backup"] = self.backup
        return out


@dataclass
class Plan:
    verdicts: list[FileVerdict] = field(default_factory=list)
    puts: dict[str, bytes] = field(default_factory=dict)
    deletes: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)       # the new manifest's files table
    pristine: dict[str, bytes] = field(default_factory=dict)  # the complete new pristine set
    backups: dict[str, bytes] = field(default_factory=dict)   # relpath -> bytes to save before replacing
    conflicts: list[str] = field(default_factory=list)
    resolved: dict[str, dict] = field(default_factory=dict)   # the manifest's "resolved" table after this install

    def counts(self) -> dict[str, int]:
        out = {v: 0 for v in VERDICTS}
        for fv in self.verdicts:
            out[fv.verdict] += 1
        return out


def resolutions(old: Manifest | None) -> dict[str, dict]:
    """The manifest's valid "resolved" records (anything malformed is ignored: no resolution)."""
    table = old.extra.get("resolved") if old else None
    if not isinstance(table, dict):
        return {}
    return {rel: rec for rel, rec in table.items()
            if isinstance(rec, dict) and isinstance(rec.get("shipped"), str) and len(rec["shipped"]) == 64}


def plan_install(config: Path, desired: dict[str, bytes], old: Manifest | None, *, force: bool = False) -> Plan:
    config = SafeTree(config)
    plan = Plan()
    old_files = old.files if old else {}
    old_conflicts = set(old.extra.get("conflicts") or []) if old and isinstance(old.extra.get("conflicts"), list) else set()
    old_resolved = resolutions(old)
    side: dict[str, bytes] = {}
    old_pack: list[dict[str, bytes]] = []

    def pristine_of(key: str, expect: str) -> bytes | None:
        if not old_pack:
            old_pack.append(read_pack(config))  # read once, only when an edit needs a base
        data = old_pack[0].get(key)
        return data if data is not None and sha256_bytes(data) == expect else None  # a tampered copy is no base

    def record(rel: str, data: bytes, *, write: bool) -> None:
        plan.files[rel] = sha256_bytes(data)
        if write:
            plan.puts[rel] = data
        plan.pristine[rel] = data

    for rel in sorted(desired):
        new = desired[rel]
        nh = sha256_bytes(new)
        disk = read_installed(config, rel)
        old_h = old_files.get(rel)
        if disk is None:
            plan.verdicts.append(FileVerdict(rel, "create", "restored (was missing)" if old_h else ""))
            record(rel, new, write=True)
            continue
        dh = sha256_bytes(disk)
        if dh == nh:
            plan.verdicts.append(FileVerdict(rel, "identical"))
            record(rel, new, write=False)
            continue
        if old_h is not None and dh == old_h:
            plan.verdicts.append(FileVerdict(rel, "update"))
            record(rel, new, write=True)
            continue
        # The file on disk is not what msd wrote: an edit, or a file msd never wrote.
        if force:
            plan.backups[rel] = disk
            plan.verdicts.append(FileVerdict(rel, "update", "replaced your version (saved to the backup folder first)", backup=rel))
            record(rel, new, write=True)
            continue
        side_rel = rel + NEW_SUFFIX
        # Which shipped version is the file on disk your edit of (its merge base)?
        base_h, base_key, yours, resolution = old_h, rel, old_h is None, None
        if rel in old_conflicts and old_files.get(side_rel) and read_installed(config, side_rel) is None:
            # you resolved the conflict: the .msd-new is gone and the file is what you made it
            base_h, base_key = old_files[side_rel], side_rel
            resolution = {"sha256": dh, "shipped": base_h, "yours": yours}
        elif rel in old_resolved and (old_h is None or old_h == old_resolved[rel]["shipped"]):
            rec = old_resolved[rel]
            base_h, yours = rec["shipped"], old_h is None
            resolution = {"sha256": rec.get("sha256", dh), "shipped": base_h, "yours": yours}
        base = None
        if base_h is not None:
            base = new if base_h == nh else pristine_of(base_key, base_h)
        if base is not None and base == new:
            detail = "your resolution of the conflict kept" if resolution else "your edit kept (unchanged upstream)"
            plan.verdicts.append(FileVerdict(rel, "kept", detail))
            if not yours:
                plan.files[rel] = base_h
            plan.pristine[rel] = base
            if resolution:
                plan.resolved[rel] = resolution
            continue
        if base is not None and not yours:
            merged = merge3(base, disk, new)
            if merged.clean:
                plan.verdicts.append(FileVerdict(rel, "merged", "your edit merged into the new version"))
                plan.files[rel] = nh
                plan.puts[rel] = merged.data
                plan.pristine[rel] = new
                continue
        if base is not None:
            why = "your edit conflicts with the new version" if not yours else "your own file; a new version is shipped"
        else:
            why = "a file msd did not write is in the way" if yours else "edited, and no pristine copy to merge against"
        side[side_rel] = new
        plan.conflicts.append(rel)
        plan.verdicts.append(FileVerdict(rel, "conflict", why, new_version=side_rel))
        if not yours:
            plan.files[rel] = base_h  # keep the base: the next update merges against it
            if base is not None:
                plan.pristine[rel] = base

    for side_rel, data in side.items():
        sh = sha256_bytes(data)
        plan.files[side_rel] = sh
        plan.pristine[side_rel] = data
        disk = read_installed(config, side_rel)
        if disk == data:
            continue
        if disk is not None and old_files.get(side_rel) not in (None, sha256_bytes(disk)):
            if old_files[side_rel] == sh:
                continue  # you edited the .msd-new of this same version: left alone
            plan.backups[side_rel] = disk  # a newer version replaces your edited .msd-new: saved first
        plan.puts[side_rel] = data

    for rel in sorted(old_files):
        if rel in desired or rel in side:
            continue
        disk = read_installed(config, rel)
        if disk is None:
            plan.verdicts.append(FileVerdict(rel, "removed", "already gone"))
        elif sha256_bytes(disk) == old_files[rel]:
            plan.verdicts.append(FileVerdict(rel, "removed"))
            plan.deletes.append(rel)
        elif force:
            plan.backups[rel] = disk
            plan.verdicts.append(FileVerdict(rel, "removed", "no longer shipped; your edit saved to the backup folder", backup=rel))
            plan.deletes.append(rel)
        else:
            plan.verdicts.append(FileVerdict(rel, "kept", "no longer shipped; your edit left in place (now yours)"))
    return plan
