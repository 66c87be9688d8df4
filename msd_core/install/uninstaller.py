"""`msd uninstall`: remove exactly what the manifest says msd owns, keep what the user edited.

- a manifest file whose hash still matches: removed; edited: kept and listed (removed with --force)
- an edited <file>.msd-new: kept, even with --force (it holds your work, like a backup)
- msd's bookkeeping (manifest, its copy, pristine copies, saved settings): removed
- backup folders (the only copy of edits that --force/--repair replaced): kept and named,
  removed only with --remove-backups (which also works after the install is gone)
- settings.json: restored byte for byte when unchanged since msd's write, else just the entry removed
- msd's hooks and status line (host_hooks.py): exactly msd's entries removed, with the containers
  msd made for them; a local install's line in the clone's info/exclude (git_exclude.py) taken out
- the git merge drivers install registered (merge_drivers.py): msd's blocks removed from each
  recorded repository's config and .gitattributes (a block that was there before: kept), first
- the guard server's entry in ~/.claude.json (guard_server_setup.py): taken out as a step of the
  same transaction (a file msd created goes, a blank one gets its bytes back)
- the opt-in git pre-push hook (pre_push.py): a step of the same transaction; your own hook it
  chained comes back byte for byte
- every folder msd created that is now empty: removed (the config folder too, if msd created it,
  also when it was created by a first install that was killed: msd_core/ownership/record.py)
All in one transaction, like install. msd's marker in a config folder msd created is kept through
it and removed after it, right before the folders it names: an uninstall killed in between leaves
the marker, and the next uninstall removes what is left.
"""

from __future__ import annotations

import contextlib
import os

from msd_core.errors import MsdError
from msd_core.files import txn
from msd_core.files.atomic import sha256_bytes
from msd_core.files.oserrors import environment_errors
from msd_core.files.safe_tree import read_installed
from msd_core.install import git_exclude, guard_server_setup, host_hooks, merge_drivers, pre_push
from msd_core.install.installer import check_runtime
from msd_core.install.lock import install_lock
from msd_core.install.plan import NEW_SUFFIX
from msd_core.install.request import UninstallRequest
from msd_core.install.target import check_target
from msd_core.mcp import setup as mcp_setup
from msd_core.ownership import record
from msd_core.ownership.hints import command_for
from msd_core.ownership.manifest import Manifest
from msd_core.ownership.record import BACKUPS_PREFIX, BOOKKEEPING_REL, MANIFEST_REL, backup_dirs, files_under
from msd_core.paths import Target
from msd_core.result import OperationResult
from msd_core.runtimes import permission_config

REMOVE_BACKUPS_FLAG = "--remove-backups"


def uninstall(target: Target, *, force: bool = False, remove_backups: bool = False, dry_run: bool = False,
              allow_symlink: bool = False, lock_timeout: float | None = None) -> OperationResult:
    request = UninstallRequest(force=force, remove_backups=remove_backups, dry_run=dry_run, allow_symlink=allow_symlink,
                               lock_timeout=lock_timeout)
    with environment_errors("uninstall"):
        return _uninstall(target, request)


def _uninstall(target: Target, request: UninstallRequest) -> OperationResult:
    check_target(target, allow_symlink=request.allow_symlink, writing=not request.dry_run)
    result = OperationResult("uninstall")
    if not target.config.is_dir():
        return _nothing_installed(target, result, "nothing to uninstall")
    if request.dry_run:
        out = _run(target, request, result)
        out.data["mcp"] = _unregister_mcp(target, dry_run=True)
        out.data.setdefault("guard_server", {"action": "would remove" if guard_server_setup.registered(target) else "absent"})
        return out
    with install_lock(target.config, request.lock_timeout):
        note = txn.recover(target.config)
        if note:
            result.warnings.append(note)
        mcp = _unregister_mcp(target)  # first: settings.json then matches what install wrote
        result.warnings.extend([mcp["warning"]] if "warning" in mcp else [])
        out = _run(target, request, result)
        out.data["mcp"] = mcp
    created = record.created_dirs_on_disk(target, out.data.pop("_created_config_dirs", []))
    if out.data.pop("_drop_marker", False):  # the marker goes last: a run killed before this point
        with contextlib.suppress(OSError):   # leaves it, and the next uninstall finishes the job
            os.unlink(target.config / record.MARKER)
    for d in created:  # after the lock file is gone
        with contextlib.suppress(OSError):
            os.rmdir(d)
    return out


def _guard_server_step(target: Target, manifest: Manifest, dry_run: bool, warnings: list[str]):
    """(the transaction step taking msd's guard server out of ~/.claude.json, or None; the result
    entry) (install/guard_server_setup.py): removed in the same transaction as the rows calling
    it; a file msd cannot edit is one warning."""

    if not guard_server_setup.applies(target):
        return None, {"action": "not applicable"}
    path = str(guard_server_setup.servers_file(target))
    rec = (host_hooks.old_record(manifest) or {}).get(guard_server_setup.RECORD)
    try:
        step = guard_server_setup.remove_step(target, rec)
    except MsdError as exc:
        warnings.append(f"{exc.message}; remove mcpServers.{guard_server_setup.SERVER} from {path} by hand")
        return None, {"path": path, "action": "skipped"}
    if step is None:
        if not dry_run:
            guard_server_setup.leftovers(target)  # a writer killed outside msd's transaction left its lock or temp
        return None, {"path": path, "action": "absent"}
    return step, {"path": path, "action": "would remove" if dry_run else "removed"}


def _unregister_mcp(target: Target, dry_run: bool = False) -> dict:
    """The MCP server registration of the target's scope: Claude Code's (user or project), and for a
    global install of another client msd registers with (msd_core/mcp/clients.py) that client's user
    file (`msd mcp install --client`); other runtimes have none."""
    from msd_core.mcp.clients import USER_FILES

    if target.runtime in USER_FILES and target.scope == "global":
        return mcp_setup.unregister_for_target(target, dry_run=dry_run, client=target.runtime)
    if target.runtime != "claude":
        return {"action": "not applicable", "runtime": target.runtime}
    return mcp_setup.unregister_for_target(target, dry_run=dry_run)


def _is_edited_new_version(rel: str, disk: bytes, manifest: Manifest) -> bool:
    return rel.endswith(NEW_SUFFIX) and sha256_bytes(disk) != manifest.files[rel]


def _run(target: Target, request: UninstallRequest, result: OperationResult) -> OperationResult:
    force, remove_backups, dry_run = request.force, request.remove_backups, request.dry_run
    config = target.config
    manifest = record.load_for_uninstall(target)
    check_runtime(manifest, target)
    if manifest is None:
        return _leftovers(target, remove_backups, dry_run, result)
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
        elif _is_edited_new_version(rel, disk, manifest):
            entries.append({"path": rel, "verdict": "kept", "detail": "the new version msd wrote beside your file, "
                            "edited by you; left in place (delete it by hand when you are done with it)"})
            kept.append(rel)
        elif force:
            entries.append({"path": rel, "verdict": "removed", "detail": "edited; removed (--force)"})
            deletes.append(rel)
        else:
            entries.append({"path": rel, "verdict": "kept", "detail": "edited by you; left in place"})
            kept.append(rel)
    backups = backup_dirs(config)
    bookkeeping = [p for p in files_under(config / BOOKKEEPING_REL, BOOKKEEPING_REL)] if (config / BOOKKEEPING_REL).is_dir() else []
    if not remove_backups:
        bookkeeping = [p for p in bookkeeping if not p.startswith(BACKUPS_PREFIX)]
    created_config = record.created_config_dirs(target, manifest, [])
    # Something of msd's stays (your edits, backups): the folders msd created stay marked as
    # msd's, so the uninstall that finally empties them (--remove-backups) removes them too.
    keep_marker = bool(created_config) and bool(kept or (backups and not remove_backups))
    if os.path.lexists(config / record.MARKER) and not created_config:
        bookkeeping.append(record.MARKER)
    settings_mod = permission_config(target)
    before = read_installed(config, settings_mod.BEFORE_REL)
    sc = settings_mod.plan_remove(config, manifest.extra.get("settings"), manifest.settings_permission, before)
    result.warnings.extend(sc.warnings)

    git_drivers = merge_drivers.remove(target, manifest, dry_run=dry_run, warnings=result.warnings)
    changes = txn.Changes(deletes=[*deletes, *bookkeeping, MANIFEST_REL])
    if sc.new_bytes is not None:
        changes.puts[settings_mod.SETTINGS_REL] = sc.new_bytes
    if sc.delete:
        changes.deletes.append(settings_mod.SETTINGS_REL)
    hook = _plan_hook_removal(target, manifest, settings_mod, sc, changes, result.warnings)
    step, server = _guard_server_step(target, manifest, dry_run, result.warnings)
    if step is not None:
        changes.outside.append(step)
    push_steps, push_hook = pre_push.remove_steps(target, manifest, result.warnings)
    changes.outside.extend(push_steps if not dry_run else [])
    if created_config:  # kept through the transaction; dropped after it, right before the folders it names
        changes.puts[record.MARKER] = record.marker_bytes(created_config)
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
        if path.is_dir() and not path.is_symlink() and all(f in gone for f in files_under(path, d)):
            rmdirs.append(d)
    changes.rmdirs = rmdirs
    if not dry_run:
        txn.apply(config, changes)
        rec = host_hooks.old_record(manifest)
        problem = git_exclude.give_back(rec.get("git_exclude"), host_hooks.hook_file(target)) if rec else None
        result.warnings.extend([problem] if problem else [])
    left = [d for d in sorted(dirs) if (config / d).is_dir() and not (d + "/").startswith(BACKUPS_PREFIX)]
    result.data = {
        "scope": target.scope,
        "target": str(config),
        "version": manifest.version,
        "dry_run": dry_run,
        "counts": {v: sum(1 for e in entries if e["verdict"] == v) for v in ("removed", "kept", "missing")},
        "files": entries,
        "kept": kept,
        "bookkeeping_removed": len(bookkeeping) + 1,
        **_backups_report(config, backups, remove_backups),
        "runtime": target.runtime,
        "settings": {"path": _settings_path(target), "action": sc.note},
        "hooks": hook,
        "guard_server": server,
        "merge_drivers": git_drivers,
        "pre_push": {**push_hook, "action": "would remove"} if dry_run and push_steps else push_hook,
        "folders_left": left if not dry_run else [],
        "_created_config_dirs": created_config if not dry_run and not keep_marker else [],
        "_drop_marker": bool(created_config) and not keep_marker and not dry_run,
    }
    edited = [e["path"] for e in entries if e["verdict"] == "kept" and not e["path"].endswith(NEW_SUFFIX)]
    if edited:
        result.warnings.append(f"{len(edited)} file(s) you edited were kept (pass --force to remove them)")
    if backups and not remove_backups:
        result.warnings.append(f"{len(backups)} backup folder(s) holding your replaced edits were kept "
                               f"(`{command_for('uninstall', config, target.scope, REMOVE_BACKUPS_FLAG)}` deletes them)")
    return result


def _plan_hook_removal(target: Target, manifest: Manifest, settings_mod, sc, changes: txn.Changes, warnings: list[str]) -> dict:
    """Remove msd's hooks (host_hooks.py) in the same transaction, on top of what the settings.json
    change leaves when both live in that file."""
    from msd_core.errors import MsdError

    if not host_hooks.applies(target):
        return {"action": "not applicable"}
    rel = host_hooks.hook_file(target).name
    if rel == settings_mod.SETTINGS_REL and sc.delete:
        return {"path": str(target.config / rel), "action": "removed"}
    if rel == settings_mod.SETTINGS_REL and sc.new_bytes is not None:
        base = sc.new_bytes
    else:
        try:
            base = host_hooks.read_current(target)
        except MsdError as exc:
            warnings.append(f"{exc.message}; remove the hooks whose command is msd_run by hand")
            return {"path": str(target.config / rel), "action": "skipped"}
    settings_rec = manifest.extra.get("settings") if rel == settings_mod.SETTINGS_REL else None
    inherited = settings_rec.get("created_keys") or [] if isinstance(settings_rec, dict) else []
    new, delete, entry, warns = host_hooks.plan_remove(target, base, host_hooks.old_record(manifest), inherited)
    warnings.extend(warns)
    if rel == settings_mod.SETTINGS_REL and sc.note == "restored" and entry["action"] == "absent":
        entry["action"] = "removed"  # the restored bytes are the ones before msd's write
    if new is not None:
        changes.puts[rel] = new
    if delete:
        changes.puts.pop(rel, None)
        changes.deletes.append(rel)
    return entry


def _settings_path(target: Target) -> str | None:
    """The shared config file holding msd's permission entry; None for a runtime with its own policy file."""
    rel = permission_config(target).SETTINGS_REL
    return str(target.config / rel) if rel else None


def _nothing_installed(target: Target, result: OperationResult, hint: str) -> OperationResult:
    """No install and nothing msd left behind: uninstall has nothing to do, which is success
    (running it twice, or for a runtime never installed, is not an error); the result says so."""
    result.data.update({"nothing_installed": True, "target": str(target.config), "scope": target.scope,
                        "runtime": target.runtime, "hint": hint})
    return result


def _backups_report(config, backups: list[str], removed: bool) -> dict:
    paths = [str(config / b) for b in backups]
    return {"backups_removed": paths if removed else [], "backups_kept": [] if removed else paths}


def _leftovers(target: Target, remove_backups: bool, dry_run: bool, result: OperationResult) -> OperationResult:
    """No manifest: what msd may still have left behind -- the marker of a first install that was
    killed (and the folders it created), and backup folders kept by an earlier uninstall."""
    config = target.config
    marker = os.path.lexists(config / record.MARKER)
    backups = backup_dirs(config) if remove_backups else []
    if not marker and not backups:
        hint = "nothing to uninstall"
        if backup_dirs(config):
            hint = (f"only backup folders are left; "
                    f"`{command_for('uninstall', config, target.scope, REMOVE_BACKUPS_FLAG)}` deletes them")
        return _nothing_installed(target, result, hint)
    created = record.read_marker(config) if marker else []
    deletes: list[str] = []  # the marker goes after the lock, right before the folders it names
    dirs: set[str] = set()
    for b in backups:
        deletes.extend(files_under(config / b, b))
        parts = b.split("/")
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
        for dirpath, _subdirs, _names in os.walk(config / b):
            dirs.add(os.path.relpath(dirpath, config).replace(os.sep, "/"))
    rmdirs = [d for d in sorted(dirs, key=lambda d: (-d.count("/"), d))
              if all(f in deletes for f in files_under(config / d, d))]
    if not dry_run and (deletes or rmdirs):
        txn.apply(config, txn.Changes(deletes=deletes, rmdirs=rmdirs))
    result.data = {
        "scope": target.scope, "target": str(config), "version": None, "dry_run": dry_run,
        "counts": {"removed": 0, "kept": 0, "missing": 0}, "files": [], "kept": [],
        "bookkeeping_removed": len(deletes) + int(marker), **_backups_report(config, backups, True),
        "settings": {"path": _settings_path(target), "action": "unchanged"},
        "folders_left": [], "_created_config_dirs": created if not dry_run else [],
        "_drop_marker": marker and not dry_run,
    }
    return result
