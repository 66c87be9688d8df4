"""The git merge drivers `msd install` registers in the project's repository (msd_core.git.merge_config).

Which repository: the one whose work tree top is the project. For `--local` that is the folder
holding `.claude/`; for `--global` the project holding the current folder (the first folder at
or above it with a `.planning/` folder). A global install cannot know every repository, so
each one gets its drivers when `msd install --global` (or `--local`) is run inside it; every
clone runs it once (git never copies a repository's config). The attributes go in the project's
`.gitattributes` (commit it: teammates' clones then merge the same way once they install);
the commands in the repository's config. Nothing is registered outside a
git work tree, in a project that is a sub-folder of another repository's work tree, or with
`merge_drivers=False` (`msd install --no-merge-drivers`).

The install plans the registration before its transaction and records it in the manifest
(msd_core.ownership.record: `merge_drivers`, one record per repository; a global install
collects every repository it was run in), then writes the repository's files after the
transaction. Uninstall removes msd's blocks from every recorded repository first.

The driver command names the msd_run installed beside this msd (its absolute path), or this
Python with `-m msd_core.run` when there is none.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from msd_core import paths
from msd_core.errors import MsdError
from msd_core.git import merge_config
from msd_core.ownership import record


def runner_argv() -> list[str]:
    from msd_core.install.runner_path import own_runner

    runner = own_runner()
    package = __name__.split(".")[0]  # a command line for git, not an import
    return [str(runner)] if runner.exists() else [sys.executable, "-m", f"{package}.run"]


def project_repo(target, cwd: Path | None) -> merge_config.Repo | None:
    """The repository to register in (module doc), or None."""

    if target.scope == "local":
        project = target.config.parent
    else:
        project = paths.find_project_root(cwd) if cwd is not None else None
    if project is None or not Path(project).is_dir():
        return None
    repo = merge_config.locate(project)
    if repo is None or os.path.realpath(repo.top) != os.path.realpath(project):
        return None
    return repo


def _no_repo_entry(target, cwd: Path | None) -> dict:
    """Why no repository takes the drivers, by its real reason: no project at all, or a project
    that is not the top of a git work tree."""
    from msd_core import paths

    if target.scope != "local" and (cwd is None or paths.find_project_root(cwd) is None):
        where = cwd if cwd is not None else "the current folder"
        return {"action": f"none: no .planning/ project at or above {where}",
                "hint": "start one with /msd-new-project (or `msd init new-project`), then run `msd install` again"}
    where = "the project" if target.scope == "local" else "the current folder's project"
    return {"action": f"none: {where} is not the top of a git work tree",
            "hint": "run `msd install` inside the project's repository to add them"}


class Planned:
    __slots__ = ("repo", "registration", "records", "entry")

    def __init__(self, repo, registration, records, entry):
        self.repo, self.registration, self.records, self.entry = repo, registration, records, entry


def plan(target, old, cwd: Path | None, enabled: bool = True) -> Planned:
    """The registration this install makes, and the manifest's records after it."""
    records = record.merge_driver_records(old)
    if not enabled:
        return Planned(None, None, records, {"action": "skipped (--no-merge-drivers)"})
    repo = project_repo(target, cwd)
    if repo is None:
        return Planned(None, None, records, _no_repo_entry(target, cwd))
    try:
        reg = merge_config.plan(repo, runner_argv())
    except merge_config.Refused as exc:
        return Planned(None, None, records, {"repository": str(repo.top), "action": "not registered",
                                             "hint": f"{exc}: make it a regular file, then run `msd install` again"})
    here = os.path.realpath(repo.common)
    old_rec = next((r for r in records if os.path.realpath(record.merge_driver_git_dir(target, r)) == here), None)
    reg.record = merge_config.merge_records(old_rec, reg.record)
    action = "present" if not reg.changed else ("updated" if old_rec is not None or reg.record["config"].get("replaced")
                                                else "added")
    entry = {"repository": str(repo.top), "action": action}
    if reg.changes[1]:
        entry["commit"] = ".gitattributes"  # written here: committed, it reaches the teammates' clones
    return Planned(repo, reg, record.with_merge_driver_record(target, records, reg.record), entry)


def apply(planned: Planned, warnings: list[str]) -> None:
    """Write the planned registration (after the install's transaction); a failure is a warning."""
    if planned.repo is None or not planned.registration.changed:
        return

    try:
        merge_config.write(planned.repo, planned.registration)
    except (OSError, MsdError, merge_config.Refused) as exc:
        planned.entry["action"] = "failed"
        warnings.append(f"git merge drivers not registered in {planned.repo.top}: {getattr(exc, 'message', exc)}")


def remove(target, manifest, *, dry_run: bool, warnings: list[str]) -> list[dict]:
    """Remove msd's blocks from every repository the manifest records; one entry each."""
    out = []
    for rec in record.merge_driver_records(manifest):
        git_dir = record.merge_driver_git_dir(target, rec)
        entry = {"git_dir": str(git_dir)}
        if not git_dir.is_dir():
            out.append({**entry, "action": "gone"})
            continue
        repo = merge_config.Repo(record.merge_driver_top(target, rec), git_dir)
        if dry_run:
            out.append({**entry, "action": "would remove" if merge_config.status(repo)["config"] else "absent"})
            continue
        try:
            done = merge_config.unregister(repo, rec)
        except OSError as exc:
            warnings.append(f"{git_dir}: msd's merge drivers not removed ({exc.strerror or exc}); remove the lines after "
                            "`# msd-core: merge drivers` in its config and in the work tree's .gitattributes by hand")
            out.append({**entry, "action": "failed"})
            continue
        warnings.extend(done["warnings"])
        out.append({**entry, "action": "removed" if "removed" in (done["config"], done["attributes"]) else "absent"})
    return out
