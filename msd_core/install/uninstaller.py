"""`msd uninstall`: remove exactly what the manifest says msd owns, keep what the user edited.

- a manifest file whose hash still matches: removed; edited: kept and listed (removed with --force)
- msd's bookkeeping (manifest, pristine copies, backups, saved settings): removed
- settings.json: restored byte for byte when unchanged since msd's write, else just the entry removed
- every folder msd created that is now empty: removed (the config folder too, if msd created it)
All in one transaction, like install.
"""

from __future__ import annotations

import contextlib
import os

from msd_core import mcp_setup
from msd_core.errors import IntegrityError, NotInstalledError
from msd_core.fsutil import sha256_bytes
from msd_core.install import txn
from msd_core.install.installer import MANIFEST_REL, _list_files, check_runtime
from msd_core.install.lock import install_lock
from msd_core.install.origin import created_dirs_on_disk
from msd_core.install.target import check_target, read_installed
from msd_core.manifest import Manifest, load_manifest
from msd_core.runtimes.base import permission_config
from msd_core.paths import BOOKKEEPING_DIRNAME, INSTALL_DIRNAME, Target
from msd_core.result import OperationResult

BOOKKEEPING_REL = f"{INSTALL_DIRNAME}/{BOOKKEEPING_DIRNAME}"


def _load(target: Target) -> Manifest:
    try:
        return load_manifest(target.config)
    except NotInstalledError:
        raise NotInstalledError(f"no msd-core install in {target.config}", hint="nothing to uninstall") from None
    except IntegrityError as exc:
        flag = "--global" if target.scope == "global" else "--local"
        raise IntegrityError(exc.message, hint=f"run `msd install {flag} --force` to rebuild the manifest, then `msd uninstall {flag}`") from None


def uninstall(target: Target, *, force: bool = False, dry_run: bool = False, allow_symlink: bool = False,
              lock_timeout: float | None = None) -> OperationResult:
    check_target(target, allow_symlink=allow_symlink, writing=not dry_run)
    result = OperationResult("uninstall")
    if not target.config.is_dir():
        raise NotInstalledError(f"no msd-core install in {target.config}", hint="nothing to uninstall")
    if dry_run:
        out = _run(target, force, True, result)
        out.data["mcp"] = _unregister_mcp(target, dry_run=True)
        return out
    with install_lock(target.config, lock_timeout):
        note = txn.recover(target.config)
        if note:
            result.warnings.append(note)
        mcp = _unregister_mcp(target)  # first: settings.json then matches what install wrote
        result.warnings.extend([mcp["warning"]] if "warning" in mcp else [])
        out = _run(target, force, False, result)
        out.data["mcp"] = mcp
    created = created_dirs_on_disk(target, out.data.pop("_created_config_dirs", []))
    for d in created:  # after the lock file is gone
        with contextlib.suppress(OSError):
            os.rmdir(d)
    return out


def _unregister_mcp(target: Target, dry_run: bool = False) -> dict:
    """The MCP server registration lives in Claude Code's settings; other runtimes have none."""
    if target.runtime != "claude":
        return {"action": "not applicable", "runtime": target.runtime}
    return mcp_setup.unregister_for_target(target, dry_run=dry_run)


def _run(target: Target, force: bool, dry_run: bool, result: OperationResult) -> OperationResult:
    config = target.config
    manifest = _load(target)
    check_runtime(manifest, target)
    entries = []
    deletes: list[str] = []
    kept: list[str] = []
    for rel in sorted(manifest.files):
        disk = read_installed(config, rel)
        if disk is None:
            entries.append({"path": rel, "verdict": "missing"})
        elif sha256_bytes(disk) == manifest.files[rel]:
            entries.append({"path": rel, "verdict": "removed"})
            deletes.append(rel)
        elif force:
            entries.append({"path": rel, "verdict": "removed", "detail": "edited; removed (--force)"})
            deletes.append(rel)
        else:
            entries.append({"path": rel, "verdict": "kept", "detail": "edited by you; left in place"})
            kept.append(rel)
    bookkeeping = [p for p in _list_files(config / BOOKKEEPING_REL, BOOKKEEPING_REL)] if (config / BOOKKEEPING_REL).is_dir() else []
    settings_mod = permission_config(target)
    before = read_installed(config, settings_mod.BEFORE_REL)
    sc = settings_mod.plan_remove(config, manifest.extra.get("settings"), manifest.settings_permission, before)
    result.warnings.extend(sc.warnings)

    changes = txn.Changes(deletes=[*deletes, *bookkeeping, MANIFEST_REL])
    if sc.new_bytes is not None:
        changes.puts[settings_mod.SETTINGS_REL] = sc.new_bytes
    if sc.delete:
        changes.deletes.append(settings_mod.SETTINGS_REL)
    gone = set(changes.deletes)
    # Folders to remove when empty: those msd created, plus bookkeeping's own folders.
    dirs = set(manifest.created_dirs)
    for p in bookkeeping:
        parts = p.split("/")
        for i in range(2, len(parts)):
            dirs.add("/".join(parts[:i]))
    rmdirs = []
    for d in sorted(dirs, key=lambda d: (-d.count("/"), d)):
        path = config / d
        if path.is_dir() and not path.is_symlink() and all(f in gone for f in _list_files(path, d)):
            rmdirs.append(d)
    changes.rmdirs = rmdirs
    if not dry_run:
        txn.apply(config, changes)
    left = [d for d in sorted(dirs) if (config / d).is_dir()]
    result.data = {
        "scope": target.scope,
        "target": str(config),
        "version": manifest.version,
        "dry_run": dry_run,
        "counts": {v: sum(1 for e in entries if e["verdict"] == v) for v in ("removed", "kept", "missing")},
        "files": entries,
        "kept": kept,
        "bookkeeping_removed": len(bookkeeping) + 1,
        "backups_removed": sorted({str(config / "/".join(p.split("/")[:4])) for p in bookkeeping if p.startswith(f"{BOOKKEEPING_REL}/backups/")}),
        "runtime": target.runtime,
        "settings": {"path": str(config / settings_mod.SETTINGS_REL) if settings_mod.SETTINGS_REL else None, "action": sc.note},
        "folders_left": left if not dry_run else [],
        "_created_config_dirs": manifest.extra.get("created_config_dirs", []) if not dry_run else [],
    }
    if kept:
        result.warnings.append(f"{len(kept)} file(s) you edited were kept (pass --force to remove them)")
    return result
