"""The settings.json permission that lets the agent run `msd_run` without a prompt.

Claude Code rule syntax: `Bash(msd_run *)` in `permissions.allow` (a trailing ` *` also
matches the bare command). Install adds exactly that entry and edits only its bytes
(msd_core/files/jsonedit.py: every other byte of the user's file stays, BOM and CRLF included).
The bytes before msd's write are kept in bookkeeping so uninstall can restore them exactly
when nothing else changed since; otherwise uninstall removes exactly the entry (and the keys
msd created for it), which gives back every byte the user did not change. A settings.json that
does not parse, is not an object, or is a symlink is left untouched with a warning.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

from msd_core.files.atomic import sha256_bytes
from msd_core.paths import SETTINGS_BEFORE_REL

PERMISSION = "Bash(msd_run *)"
SETTINGS_REL = "settings.json"
BEFORE_REL = SETTINGS_BEFORE_REL


@dataclass
class SettingsChange:
    new_bytes: bytes | None = None       # bytes to write (None: leave the file alone)
    delete: bool = False                 # uninstall: remove the file msd created
    before: bytes | None = None          # the file's bytes before this write (None: it did not exist)
    record: dict | None = None           # manifest "settings" entry after this operation
    permission: str | None = None        # manifest settings_permission after this operation
    note: str = "unchanged"
    warnings: list[str] = field(default_factory=list)


def _read(config: Path) -> tuple[bytes | None, str | None]:
    from msd_core.errors import MsdError
    from msd_core.files.safe_tree import read_installed

    path = Path(config) / SETTINGS_REL
    if path.is_symlink():
        return None, f"{path} is a symlink; left untouched"
    try:  # never blocks on a FIFO; a folder or unreadable file is a warning, not a failure
        return read_installed(config, SETTINGS_REL), None
    except MsdError as exc:
        return None, f"{exc.message}; left untouched"


def _parse(data: bytes, path: Path) -> tuple[dict | None, str | None]:
    from msd_core.errors import MsdError
    from msd_core.runtimes.claude_json import parse

    try:
        return parse(path, data), None
    except MsdError as exc:
        return None, exc.message


def _edited(data: bytes | None, before: dict, after: dict, path: Path) -> tuple[bytes | None, str | None]:
    from msd_core.files.jsonedit import EditError, edit_bytes

    try:
        return edit_bytes(data, before, after), None
    except EditError as exc:
        return None, f"{path} cannot be edited in place ({exc}); left untouched"


def plan_add(config: Path, old_record: dict | None, old_permission: str | None) -> SettingsChange:
    path = Path(config) / SETTINGS_REL
    hint = f'add "{PERMISSION}" to permissions.allow by hand to run msd_run without prompts'
    data, problem = _read(config)
    if problem:
        return SettingsChange(record=old_record, permission=old_permission, note="skipped", warnings=[f"{problem}; {hint}"])
    obj: dict = {}
    if data is not None:
        obj, problem = _parse(data, path)
        if problem:
            return SettingsChange(record=old_record, permission=old_permission, note="skipped", warnings=[f"{problem}; {hint}"])
    before = copy.deepcopy(obj)
    perms = obj.get("permissions")
    if perms is not None and not isinstance(perms, dict):
        return SettingsChange(record=old_record, permission=old_permission, note="skipped", warnings=[f"{path}: 'permissions' is not an object; left untouched; {hint}"])
    allow = perms.get("allow") if perms else None
    if allow is not None and not isinstance(allow, list):
        return SettingsChange(record=old_record, permission=old_permission, note="skipped", warnings=[f"{path}: 'permissions.allow' is not a list; left untouched; {hint}"])
    if allow is not None and PERMISSION in allow:
        return SettingsChange(record=old_record, permission=old_permission, note="present")
    created: list[str] = []
    if perms is None:
        perms = obj["permissions"] = {}
        created.append("permissions")
    if allow is None:
        allow = perms["allow"] = []
        created.append("permissions.allow")
    allow.append(PERMISSION)
    new, problem = _edited(data, before, obj, path)
    if problem:
        return SettingsChange(record=old_record, permission=old_permission, note="skipped", warnings=[f"{problem}; {hint}"])
    record = {"path": SETTINGS_REL, "written_sha256": sha256_bytes(new), "had_before": data is not None, "created_keys": created}
    return SettingsChange(new_bytes=new, before=data, record=record, permission=PERMISSION, note="added")


def plan_remove(config: Path, record: dict | None, permission: str | None, before: bytes | None) -> SettingsChange:
    """Undo the install's settings change. `before` = the saved pre-install bytes (if any)."""
    path = Path(config) / SETTINGS_REL
    if not permission or not isinstance(record, dict):
        return SettingsChange(note="unchanged")
    data, problem = _read(config)
    if problem:
        return SettingsChange(note="skipped", warnings=[f"{problem}; remove \"{permission}\" from permissions.allow by hand"])
    if data is None:
        return SettingsChange(note="absent")
    if sha256_bytes(data) == record.get("written_sha256"):
        if record.get("had_before") and before is not None:
            return SettingsChange(new_bytes=before, note="restored")
        if not record.get("had_before"):
            return SettingsChange(delete=True, note="removed (msd created it)")
    obj, problem = _parse(data, path)
    if problem:
        return SettingsChange(note="skipped", warnings=[f"{problem}; remove \"{permission}\" from permissions.allow by hand"])
    before = copy.deepcopy(obj)
    perms = obj.get("permissions")
    allow = perms.get("allow") if isinstance(perms, dict) else None
    if not isinstance(allow, list) or permission not in allow:
        return SettingsChange(note="entry already gone")
    allow.remove(permission)
    created = record.get("created_keys") or []
    if not allow and "permissions.allow" in created:
        del perms["allow"]
    if not perms and "permissions" in created:
        del obj["permissions"]
    if not obj and not record.get("had_before"):
        return SettingsChange(delete=True, note="removed (msd created it)")
    new, problem = _edited(data, before, obj, path)
    if problem:
        return SettingsChange(note="skipped", warnings=[f"{problem}; remove \"{permission}\" from permissions.allow by hand"])
    return SettingsChange(new_bytes=new, note="entry removed")
