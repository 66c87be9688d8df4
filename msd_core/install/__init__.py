"""The installer: copy the shipped content into an agent runtime's config folder and keep it healthy.

Where files go and how each is written is the runtime's decision (msd_core/runtimes: Claude Code,
Gemini CLI, OpenCode); one install per runtime folder, each with its own manifest.

Public API (everything else in this package is private detail):

  install(target, source=None, force=False, repair=False, dry_run=False, allow_symlink=False,
          profile=None, cwd=None, merge_drivers=True, ...)                      -> OperationResult
  uninstall(target, force=False, remove_backups=False, dry_run=False, allow_symlink=False) -> OperationResult
  status(cwd=None, config_dir=None)                                               -> OperationResult

Modules, one decision each:
  source.py       where the content comes from (packaged tree or a given folder)
  transform.py    what an installed file's bytes are, per runtime (msd_core/shipped/text.py: the shared text rules)
  plan.py         one verdict per file (create/identical/update/merged/conflict/removed/kept)
  merge.py        the three-way merge of a user's edit with a new version
  lock.py         one installer at a time per config folder
  target.py       refuse targets that are files, symlinks or unwritable
  installer.py    install / update orchestration
  uninstaller.py  uninstall orchestration
  health.py       what is installed where, and is msd_run on PATH
  versions.py     installed vs package version (PEP 440): update available, downgrade refused
  host_hooks.py   the hooks (`msd_run hook <event>`) and the status line an install registers
  hook_probe.py   can a host start msd's hook (`<start> hook probe`): one probe for every client
  client_hooks_status.py  `msd status` for another agent CLI's guard hook (one row per client)
  git_exclude.py  a local install's per-machine settings file kept out of git, and given back
  runner_path.py  can the host run msd_run, and the exact fix
  lean_start.py   how msd starts a Python process the host may start often (its own python, -I -S)
  guard_server_setup.py  the guard server's entry in ~/.claude.json (a global install's guards)
  merge_drivers.py  the git merge drivers an install registers in the project's repository
  pre_push.py     the opt-in git pre-push hook (`--pre-push`) that runs `msd_run drift --check`
  verify.py       `msd status --verify`: every installed file against the wheel it came from
  request.py      what an install or an uninstall was asked to do (one frozen record each)

Elsewhere: what msd owns on disk (manifest, its copy, the created-folders marker, the origin
record, pristine copies, backups) is msd_core/ownership/record.py, the only reader of those
files; the transaction is msd_core/files/txn.py; the settings.json permission is
msd_core/runtimes/claude_settings.py.
"""

from __future__ import annotations

__all__ = ["install", "uninstall", "status"]


def __getattr__(name: str):  # lazy: importing a submodule does not pull in the others
    if name == "install":
        from msd_core.install.installer import install

        return install
    if name == "uninstall":
        from msd_core.install.uninstaller import uninstall

        return uninstall
    if name == "status":
        from msd_core.install.health import status

        return status
    raise AttributeError(name)
