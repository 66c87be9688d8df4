"""`msd install` / `msd update`: plan every file, then apply the plan in one transaction.

Order: check the target -> take the lock -> recover an interrupted run -> read the manifest
-> refuse a downgrade (unless --force) -> build the installed bytes from the content
-> plan verdicts -> plan settings.json and msd's hooks (host_hooks.py) -> plan the git merge
drivers of the project's repository (merge_drivers.py) -> stage + journal + swap (manifest
last; a global install's guard server entry in ~/.claude.json is a step of the same transaction,
right before it: guard_server_setup.py; the opt-in git pre-push hook too: pre_push.py) -> a local
install's settings.local.json kept out of git (git_exclude.py) -> the merge
drivers written into the repository.
`dry_run` stops after planning and writes nothing.

`profile` (msd_core/shipped/profiles.py): the one given, else the one the manifest records, else
full. A change of profile is an update like any other: the files the new profile drops are
removed when unedited and kept (now yours) when edited; the manifest records the new profile.

`repair` (`--repair`, also spelled `--force`): every shipped file is made byte-identical to
the shipped version (a modified one is saved to a new backup folder first) and a corrupt
manifest is rebuilt from its bookkeeping copy (msd_core/ownership/record.py) when that copy is intact.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

from msd_core import __version__
from msd_core.errors import MsdError, UsageError
from msd_core.files import txn
from msd_core.files.oserrors import environment_errors
from msd_core.files.safe_tree import read_installed
from msd_core.install import git_exclude, guard_server_setup, host_hooks, merge_drivers, pre_push
from msd_core.install.lock import install_lock
from msd_core.install.plan import Plan, plan_install
from msd_core.install.request import InstallRequest
from msd_core.install.source import ContentSource
from msd_core.install.target import check_target
from msd_core.install.transform import installed_files, installed_registry
from msd_core.install.versions import refuse_downgrade
from msd_core.ownership import record
from msd_core.ownership.manifest import Manifest
from msd_core.ownership.record import BACKUPS_PREFIX, MANIFEST_REL
from msd_core.paths import Target
from msd_core.result import OperationResult
from msd_core.runtimes import permission_config
from msd_core.shipped import profiles


def check_runtime(old: Manifest | None, target: Target) -> None:
    """UsageError when the folder holds another runtime's install (one runtime per folder)."""
    if old is not None and old.runtime != target.runtime:
        raise UsageError(f"{target.config} holds an msd-core install for runtime {old.runtime!r}, not {target.runtime!r}",
                         hint=f"install runtime {old.runtime} there, or choose another config folder",
                         remedy=("runtime", "config_dir"))


def _timestamp(config: Path) -> str:
    """A backup folder name no earlier backup uses (a second install in the same second gets -2, -3, ...)."""
    base = time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + f"-{os.getpid()}"
    stamp, n = base, 1
    while os.path.lexists(config / BACKUPS_PREFIX / stamp):
        n += 1
        stamp = f"{base}-{n}"
    return stamp


def plan_hook(target: Target, old: Manifest | None, settings_mod, settings_change, warnings: list[str],
              transport: str = "command") -> tuple[tuple[str, bytes, dict | None] | None, dict]:
    """msd's hooks and status line (host_hooks.py), planned on top of this install's settings.json
    change when they live in the same file. Returns ((relpath, bytes, manifest record) or None,
    the result entry)."""
    from msd_core.files.atomic import sha256_bytes

    if not host_hooks.applies(target):
        return None, {"action": "not applicable"}
    rel = host_hooks.hook_file(target).name
    same = rel == settings_mod.SETTINGS_REL
    try:
        disk = host_hooks.read_current(target)
    except MsdError as exc:
        warnings.append(f"{exc.message}; msd's hooks (msd_run on the host's PATH, the compaction checkpoint) were not added")
        return None, {"path": str(target.config / rel), "action": "skipped"}
    base = settings_change.new_bytes if same and settings_change.new_bytes is not None else disk
    new, entry, record, warns = host_hooks.plan_add(target, base, host_hooks.old_record(old), existed=disk is not None,
                                                    transport=transport)
    warnings.extend(warns)
    if new is not None and same and isinstance(settings_change.record, dict) \
            and settings_change.record.get("written_sha256") == sha256_bytes(base or b""):
        settings_change.record = {**settings_change.record, "written_sha256": sha256_bytes(new)}  # still msd's own write
    return ((rel, new, record) if new is not None else ("", b"", record)), entry


def _guard_server_step(target: Target, serve: bool, dry_run: bool):
    """(the transaction step writing the guard server's entry or None, the result entry):
    {"action": "not used"} where the guards are command hooks (guard_server_setup.py)."""
    if not serve:
        return None, {"action": "not used"}
    root = host_hooks.install_root(target)
    out = {"path": str(guard_server_setup.servers_file(target)), "name": guard_server_setup.SERVER}
    now = guard_server_setup.registered(target)
    if now == guard_server_setup.entry(root):
        out["action"] = "unchanged"
        if not dry_run:
            guard_server_setup.leftovers(target)  # what a writer killed outside msd's transaction left
        return None, out
    out["action"] = {(True, True): "would update", (True, False): "would add", (False, True): "updated",
                     (False, False): "added"}[(dry_run, now is not None)]
    return (None if dry_run else guard_server_setup.add_step(target, root)), out


def build_changes(target: Target, plan: Plan, old: Manifest | None, registry: dict, settings_change, created_config: list[str], backup_stamp: str,
                  hook_put: tuple[str, bytes, dict | None] | None = None, profile: str = profiles.FULL,
                  drivers: list[dict] | None = None,
                  records: dict | None = None) -> tuple[txn.Changes, Manifest]:
    changes = txn.Changes(puts=dict(plan.puts), deletes=list(plan.deletes))
    settings_mod = permission_config(target)
    pack = record.build_pack(plan.pristine)
    if read_installed(target.config, record.PACK_REL) != pack:
        changes.puts[record.PACK_REL] = pack
    for rel, data in record.private_files(target).items():
        if read_installed(target.config, rel) != data:
            changes.puts[rel] = data
    for rel, data in plan.backups.items():
        changes.puts[f"{BACKUPS_PREFIX}{backup_stamp}/{rel}"] = data
    if os.path.lexists(target.config / record.MARKER):
        changes.deletes.append(record.MARKER)  # the manifest now records the folders msd created
    if settings_change.new_bytes is not None:
        changes.puts[settings_mod.SETTINGS_REL] = settings_change.new_bytes
        if settings_change.before is not None:
            changes.puts[settings_mod.BEFORE_REL] = settings_change.before
        elif read_installed(target.config, settings_mod.BEFORE_REL) is not None:
            changes.deletes.append(settings_mod.BEFORE_REL)

    if hook_put and hook_put[0]:
        changes.puts[hook_put[0]] = hook_put[1]  # after settings.json's bytes: the hook is planned on top of them

    created_before = set(old.created_dirs) if old else set()
    new_dirs = txn.dirs_to_create(target.config, [*changes.puts, MANIFEST_REL])
    # Folders msd created that the removals empty: drop them too (deepest first).
    removed = set(changes.deletes)
    rmdirs = []
    for d in sorted(created_before if removed else (), key=lambda d: -d.count("/")):
        path = target.config / d
        if not path.is_dir():
            continue
        remaining = [p for p in record.files_under(path, d) if p not in removed]
        if not remaining and not any(k.startswith(d + "/") for k in changes.puts):
            rmdirs.append(d)
    changes.rmdirs = rmdirs
    created_dirs = sorted((created_before - set(rmdirs)) | set(new_dirs))
    extra = dict(old.extra) if old else {}
    extra["conflicts"] = sorted(plan.conflicts)
    if plan.resolved:
        extra["resolved"] = dict(sorted(plan.resolved.items()))
    else:
        extra.pop("resolved", None)
    if created_config:
        extra["created_config_dirs"] = record.recorded_created_dirs(target, created_config)
    if settings_change.record is not None:
        extra["settings"] = settings_change.record
    else:
        extra.pop("settings", None)
    extra.pop(host_hooks.LEGACY_RECORD_KEY, None)
    if hook_put and hook_put[2] is not None:
        extra[host_hooks.RECORD_KEY] = hook_put[2]
    else:
        extra.pop(host_hooks.RECORD_KEY, None)
    if drivers:
        extra[record.MERGE_DRIVERS_KEY] = drivers
    else:
        extra.pop(record.MERGE_DRIVERS_KEY, None)
    for key, value in (records or {}).items():  # records of what msd made outside the folder (pre_push.py)
        if value is None:
            extra.pop(key, None)
        else:
            extra[key] = value
    manifest = Manifest(
        version=__version__, scope=target.scope, target=record.manifest_target(target), files=plan.files, runtime=target.runtime,
        registry=registry, created_dirs=created_dirs, settings_permission=settings_change.permission, extra=extra,
        profile=profile,
    )
    changes.puts[MANIFEST_REL] = manifest.dumps()
    if read_installed(target.config, record.COPY_REL) != changes.puts[MANIFEST_REL]:
        changes.puts[record.COPY_REL] = changes.puts[MANIFEST_REL]
    changes.last = MANIFEST_REL
    return changes, manifest


def install(target: Target, *, source: ContentSource | None = None, force: bool = False, repair: bool = False,
            dry_run: bool = False, allow_symlink: bool = False, lock_timeout: float | None = None,
            progress: Callable[[str, int, int], None] | None = None, profile: str | None = None,
            cwd: Path | None = None, merge_drivers: bool = True, pre_push: bool = False) -> OperationResult:
    """Install or update msd-core in `target`. Returns the per-file verdicts (OperationResult).

    `repair` and `force` are one mode (see the module doc); `profile` None keeps the recorded one.
    `cwd`: where a global install looks for the project whose repository gets msd's git merge
    drivers (install/merge_drivers.py; None: none for a global install)."""
    return run_install(target, InstallRequest(
        source=source or ContentSource.packaged(), force=force or repair, dry_run=dry_run, allow_symlink=allow_symlink,
        lock_timeout=lock_timeout, progress=progress, profile=profile, cwd=cwd, merge_drivers=merge_drivers,
        pre_push=pre_push))


def run_install(target: Target, request: InstallRequest) -> OperationResult:
    """`install()` of a request made already (install/request.py)."""
    if request.profile is not None:
        try:
            profiles.check(request.profile)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    with environment_errors("install"):
        return _install(target, request)


def chosen_profile(requested: str | None, old: Manifest | None) -> str:
    """The profile this install makes: the one asked for, else the recorded one, else the default."""
    if requested is not None:
        return requested
    if old is not None and old.profile in profiles.PROFILES:
        return old.profile
    return profiles.DEFAULT


def _install(target: Target, request: InstallRequest) -> OperationResult:
    check_target(target, allow_symlink=request.allow_symlink, writing=not request.dry_run)
    result = OperationResult("install")
    if request.dry_run:
        if txn.pending(target.config):
            result.warnings.append("an interrupted install is pending; the next install rolls it back first")
        return _run(target, request, result, [])
    created_config = record.ensure_config(target)
    try:
        with install_lock(target.config, request.lock_timeout):
            note = txn.recover(target.config)
            if note:
                result.warnings.append(note)
            return _run(target, request, result, created_config)
    except BaseException:
        record.undo_config(target.config, created_config)  # a failed first install leaves no empty folder behind
        raise


def _run(target: Target, request: InstallRequest, result: OperationResult, created_config: list[str]) -> OperationResult:
    source, force, dry_run, progress = request.source, request.force, request.dry_run, request.progress
    warnings = result.warnings
    old = record.load_for_install(target, force=force, warnings=warnings) if target.config.is_dir() else None
    check_runtime(old, target)
    if old is not None and not force:
        refuse_downgrade(old.version, __version__, flag="--global" if target.scope == "global" else "--local")
    created_config = record.created_config_dirs(target, old, created_config)
    profile = chosen_profile(request.profile, old)
    src_files = source.files()
    desired, warns, skipped = installed_files(src_files, target, __version__, profile=profile)
    warnings.extend(warns)
    registry = installed_registry(source.registry(src_files), src_files, target, profile)
    if progress:
        progress("plan", 0, len(desired))
    plan = plan_install(target.config, desired, old, force=force)
    old_settings = old.extra.get("settings") if old else None
    settings_mod = permission_config(target)
    settings_change = settings_mod.plan_add(target.config, old_settings, old.settings_permission if old else None)
    warnings.extend(settings_change.warnings)
    previous_server = (host_hooks.old_record(old) or {}).get(guard_server_setup.RECORD)
    transport, why, server_record = guard_server_setup.plan(target, host_hooks.install_root(target), previous_server)
    warnings.extend([why] if why else [])
    hook_put, hook = plan_hook(target, old, settings_mod, settings_change, warnings, transport)
    hook_record = hook_put[2] if hook_put is not None else None
    serve = transport == "mcp" and hook_record is not None and not str(hook.get("action", "")).startswith("skipped")
    kept = server_record if serve else previous_server
    if hook_record is not None and kept:
        hook_record[guard_server_setup.RECORD] = kept  # in the manifest before the entry is written: uninstall takes out what msd made
    exclude = None
    if target.scope == "local" and hook.get("runner_dir") and hook.get("action") != "skipped" and hook_put and hook_put[2] is not None:
        exclude, problem = git_exclude.plan(host_hooks.hook_file(target))
        warnings.extend([problem] if problem else [])
        if exclude is not None:
            hook_put[2]["git_exclude"] = exclude  # in the manifest before the line is written: uninstall takes it out
    git_drivers = merge_drivers.plan(target, old, request.cwd, request.merge_drivers)
    push_hook = pre_push.plan(target, old, request.cwd, request.pre_push)  # refuses before anything is written
    stamp = _timestamp(target.config)
    changes, manifest = build_changes(target, plan, old, registry, settings_change, created_config, stamp, hook_put, profile,
                                      git_drivers.records, {pre_push.RECORD: push_hook.record})
    backup_dir = str(target.config / BACKUPS_PREFIX / stamp) if plan.backups else None
    for fv in plan.verdicts:
        if fv.backup:
            fv.backup = str(target.config / BACKUPS_PREFIX / stamp / fv.backup)
    current = read_installed(target.config, MANIFEST_REL) if target.config.is_dir() else None
    if current == changes.puts[MANIFEST_REL] and len(changes.puts) == 1 and not changes.deletes and not changes.rmdirs:
        changes = txn.Changes()  # nothing to do: a no-op reinstall writes nothing
    step, server = _guard_server_step(target, serve, dry_run)
    if step is not None:
        changes.outside.append(step)  # one step of the transaction, right before the manifest
    changes.outside.extend(push_hook.steps if not dry_run else [])
    if not dry_run and not changes.empty():
        total = changes.count()
        done = [0]

        def tick(n: int) -> None:
            done[0] += n
            if progress:
                progress("write", done[0], total)

        txn.apply(target.config, changes, tick)
    if not dry_run:
        merge_drivers.apply(git_drivers, warnings)
    if not dry_run and exclude is not None:
        problem = git_exclude.apply(exclude, host_hooks.hook_file(target))
        warnings.extend([problem] if problem else [])
    # the exclude line is written after the transaction
    changed = not changes.empty() or exclude is not None or server.get("action") in ("added", "updated", "would add", "would update")
    result.data = {
        "scope": target.scope,
        "target": str(target.config),
        "version": __version__,
        "previous_version": old.version if old else None,
        "profile": profile,
        "previous_profile": old.profile if old else None,
        "source": source.label,
        "dry_run": dry_run,
        "changed": changed,
        "counts": plan.counts(),
        "files": [fv.to_json() for fv in plan.verdicts],
        "conflicts": [{"path": r, "new_version": r + ".msd-new"} for r in plan.conflicts],
        "backup_dir": backup_dir,
        "runtime": target.runtime,
        "settings": {"path": str(target.config / settings_mod.SETTINGS_REL) if settings_mod.SETTINGS_REL else None, "permission": settings_mod.PERMISSION, "action": settings_change.note},
        "skipped": skipped,
        "hooks": hook,
        "guard_server": server,
        "merge_drivers": git_drivers.entry,
        "pre_push": push_hook.entry if not dry_run or not push_hook.steps else
        {**push_hook.entry, "action": "would " + ("add" if push_hook.entry["action"] == "added" else "update")},
    }
    if plan.conflicts:
        warnings.append(f"{len(plan.conflicts)} file(s) conflict with your edits: the new versions are beside them as <file>.msd-new")
    return result
