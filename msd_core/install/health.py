"""`msd status`: which installs exist (global, and local to the current folder), how they compare
with the package version, which files were modified, are missing or unexpected, the pending
conflicts and every <file>.msd-new, the backup folders holding replaced edits, and whether
`msd_run` is on PATH (with the exact fix when it is not), and per install whether the
SessionStart hook that puts it on Claude Code's PATH is there and points at an existing msd_run
(another agent CLI's install: whether its guard hook is there and can start, client_hooks_status.py). Read-only; an unreadable path is
reported in one line (oserrors.py), never as an internal error.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core import __version__
from msd_core.errors import IntegrityError, NotInstalledError
from msd_core.files import txn
from msd_core.files.atomic import sha256_bytes
from msd_core.files.oserrors import environment_errors
from msd_core.files.safe_tree import read_installed
from msd_core.install import client_hooks_status, host_hooks, runner_path, versions
from msd_core.install.plan import NEW_SUFFIX, resolutions
from msd_core.ownership import record
from msd_core.ownership.hints import command_for, repair_command
from msd_core.paths import BOOKKEEPING_DIRNAME, INSTALL_DIRNAME, Target, local_project_dir, resolve_target
from msd_core.result import OperationResult
from msd_core.runtimes import RUNTIMES


def _owned_area_files(config: Path, runtime: str = "claude") -> list[str]:
    """Files in the places msd installs to: msd-core/** (not bookkeeping), and `msd-*` entries
    (files or folders) in the runtime's own folders (Claude: skills/, agents/)."""
    from msd_core.runtimes import get

    areas = get(runtime).owned_areas()
    out: list[str] = []
    core = config / INSTALL_DIRNAME
    if core.is_dir() and not core.is_symlink():
        for dirpath, dirs, names in os.walk(core):
            rel_dir = os.path.relpath(dirpath, config).replace(os.sep, "/")
            if rel_dir == INSTALL_DIRNAME:
                dirs[:] = [d for d in dirs if d != BOOKKEEPING_DIRNAME]
            out.extend(f"{rel_dir}/{n}" for n in names)
    for area in areas:
        folder = config / area.rstrip("/")
        if not folder.is_dir() or folder.is_symlink():
            continue
        whole = not area.endswith("/") or area.rstrip("/").endswith("/msd")  # commands/msd/: all of it is ours
        for d in folder.iterdir():
            if not (whole or d.name.startswith("msd-")) or d.is_symlink():
                continue
            if d.is_file():
                if whole or d.name.endswith((".md", ".md" + NEW_SUFFIX)):
                    out.append(f"{area}{d.name}")
            elif d.is_dir():
                for dirpath, _dirs, names in os.walk(d):
                    rel_dir = os.path.relpath(dirpath, config).replace(os.sep, "/")
                    out.extend(f"{rel_dir}/{n}" for n in names)
    return sorted(set(out) - {record.MANIFEST_REL})


def inspect(target: Target, package_check=None) -> dict:
    """One install's state; with `package_check` (verify.package()) also `verify`: every file
    against the transform of the wheel-verified package (msd_core/install/verify.py)."""
    info: dict = {"scope": target.scope, "path": str(target.config), "installed": False, "runtime": target.runtime}
    if txn.pending(target.config):
        info["interrupted"] = True
        info["fix"] = f"run `{command_for('install', target.config, target.scope)}` to roll back the interrupted run and install again"
    backups = [str(target.config / b) for b in record.backup_dirs(target.config)]
    if backups:
        info["backups"] = backups
    try:
        manifest = record.load_manifest(target.config)
    except NotInstalledError:
        return info
    except IntegrityError as exc:
        try:
            record.refuse_unusable_manifest(target)
            fix = f"run `{repair_command(target.config, target.scope)}` to rebuild it"
        except IntegrityError as unusable:
            fix = unusable.hint
        info.update(installed=True, error=exc.message, fix=fix)
        return info
    modified, missing = [], []
    for rel, h in sorted(manifest.files.items()):
        try:
            disk = read_installed(target.config, rel)
        except Exception as exc:  # a symlink or unreadable file counts as modified, with the reason
            modified.append(f"{rel} ({exc})")
            continue
        if disk is None:
            missing.append(rel)
        elif sha256_bytes(disk) != h:
            modified.append(rel)
    owned = _owned_area_files(target.config, target.runtime)
    unexpected = [p for p in owned if p not in manifest.files]
    version_state = versions.compare(manifest.version, __version__)
    recorded = manifest.extra.get("conflicts")
    conflicts = [r for r in (recorded if isinstance(recorded, list) else []) if isinstance(r, str)]
    info.update(
        installed=True,
        version=manifest.version,
        profile=manifest.profile,
        package_version=__version__,
        version_state=version_state,
        up_to_date=version_state == "same",
        update_available=version_state in ("older", "unknown"),
        files=len(manifest.files),
        modified=modified,
        missing=missing,
        unexpected=unexpected,
        conflicts=conflicts,
        pending_conflicts=[{"path": r, "new_version": r + NEW_SUFFIX} for r in conflicts if r + NEW_SUFFIX in owned],
        new_versions=[p for p in owned if p.endswith(NEW_SUFFIX)],
        resolved=sorted(resolutions(manifest)),
        backups=backups,
    )
    if host_hooks.applies(target):
        info["hooks"] = host_hooks.status_of(target)
    elif client_hooks_status.applies(target):  # another agent CLI's guard hook
        info["hooks"] = client_hooks_status.status_of(target)
    if package_check is not None:
        from msd_core.install import verify

        info["verify"] = verify.install(target, manifest, package_check)
    moved = record.moved_from(target, manifest.target)
    if moved:
        info["moved"] = moved
        info["fix"] = record.adopt_hint(target)
    elif version_state == "newer":
        info["fix"] = ("this install was made by a newer msd-core: upgrade the package (pipx upgrade msd-core); "
                       f"`{command_for('install', target.config, target.scope)} --force` would downgrade it")
    elif missing or info["update_available"]:
        info["fix"] = f"run `{command_for('install', target.config, target.scope)}`" + (
            " to update" if info["update_available"] else " to restore missing files")
    if modified:
        info["note"] = (f"modified files are your edits and msd keeps them; `{repair_command(target.config, target.scope)}` "
                        "restores the shipped versions (yours are backed up first)")
    return info


def status(cwd: str | Path | None = None, config_dir: str | Path | None = None, verify: bool = False) -> OperationResult:
    """`verify`: also check every installed file against the wheel it came from (verify.py);
    exit 3 when a file differs or cannot be verified for a reason other than an editable install."""
    with environment_errors("inspect the install"):
        return _status(cwd, config_dir, verify)


def _status(cwd, config_dir, verify=False) -> OperationResult:
    base = local_project_dir(cwd)  # a local install lives at the top of the work tree (paths.local_project_dir)
    targets = [resolve_target("global", config_dir), resolve_target("local", project_dir=base)]
    if targets[0].config == targets[1].config:
        targets = targets[:1]
    package_check = None
    if verify:
        from msd_core.install import verify as verify_mod

        package_check = verify_mod.package()
    installs = [inspect(t, package_check) for t in targets]

    for rt in RUNTIMES[1:]:  # other runtimes: listed only where an install exists
        for t in (resolve_target("global", runtime=rt), resolve_target("local", project_dir=base, runtime=rt)):
            if t.manifest.is_file() or txn.pending(t.config):
                installs.append(inspect(t, package_check))
    runner = runner_path.check()
    result = OperationResult("status")
    result.data = {"package_version": __version__, "installs": installs, "msd_run": runner}
    if package_check is not None:
        result.data["package_verify"] = package_check.to_json()
        bad = [i for i in installs if i.get("verify") and not i["verify"].get("ok") and not i["verify"].get("unverifiable")]
        broken = [i for i in installs if i.get("installed") and i.get("error")]  # a manifest msd cannot read: nothing verifiable
        if bad or package_check.failed or broken:
            from msd_core.errors import EXIT_INTEGRITY

            result.exit_code = EXIT_INTEGRITY
        if bad or package_check.failed:
            result.errors.append("files differ from the wheel they came from: " + "; ".join(
                [*(f"{i['path']}: {verify_mod.not_matching(i['verify'])}" for i in bad),
                 *([f"package content: {len(package_check.failed)}"] if package_check.failed else [])]))
        for i in broken:
            result.errors.append(f"{i['error']}: its files cannot be verified ({i['fix']})")
    from msd_core.mcp.setup import status as mcp_status  # MCP server registration (msd mcp install)

    result.data["mcp"] = mcp_status(project_dir=str(base), config_dir=config_dir)
    return result
