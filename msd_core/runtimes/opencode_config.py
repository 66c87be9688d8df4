"""OpenCode's permission for `msd_run`: `"permission": {"bash": {"msd_run *": "allow"}}` in
`<config>/opencode.json` (global ~/.config/opencode/, local .opencode/; OpenCode merges it with
the user's other config files -- checked with `opencode debug config`).

No opencode.json: msd creates one holding only its entry (and deletes it on uninstall while it
is unchanged). A user's opencode.json: the entry is inserted as text (jsonc_edit) and every
other byte is kept; uninstall restores the saved bytes when nothing else changed, else removes
exactly the inserted text. A file that does not parse, or whose `permission`/`bash` is not an
object (e.g. "permission": "ask" -- the user's choice), is left untouched with a warning.
Same surface as msd_core/runtimes/claude_settings.py.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.files.atomic import sha256_bytes
from msd_core.files.jsonc_edit import JsoncError, insert_entry, remove_snippet
from msd_core.files.safe_tree import read_installed
from msd_core.runtimes.claude_settings import SettingsChange

SETTINGS_REL = "opencode.json"
BEFORE_REL = "msd-core/.msd/settings.before.json"
PERMISSION = 'permission.bash["msd_run *"] = "allow"'
PATH = ("permission", "bash")
KEY, VALUE = "msd_run *", "allow"
HINT = 'add "permission": {"bash": {"msd_run *": "allow"}} to opencode.json by hand to run msd_run without prompts'


def plan_add(config: Path, old_record: dict | None, old_permission: str | None) -> SettingsChange:
    path = Path(config) / SETTINGS_REL
    try:
        data = read_installed(config, SETTINGS_REL)
    except Exception as exc:  # a symlink on the way, unreadable: never written through
        return SettingsChange(record=old_record, permission=old_permission, note="skipped", warnings=[f"{exc}; {HINT}"])
    if data is None:
        new = (_fresh() + "\n").encode("utf-8")
        record = {"path": SETTINGS_REL, "written_sha256": sha256_bytes(new), "had_before": False, "snippet": None}
        return SettingsChange(new_bytes=new, before=None, record=record, permission=PERMISSION, note="added (new file)")
    try:
        text = data.decode("utf-8")
        out = insert_entry(text, PATH, KEY, VALUE, what=str(path))  # too deep: one line, exit 2
    except (UnicodeDecodeError, JsoncError) as exc:
        return SettingsChange(record=old_record, permission=old_permission, note="skipped",
                              warnings=[f"{path} does not parse ({exc}); left untouched; {HINT}"])
    if out == "present":
        return SettingsChange(record=old_record, permission=old_permission, note="present")
    if isinstance(out, str):
        return SettingsChange(record=old_record, permission=old_permission, note="skipped",
                              warnings=[f"{path}: {out}; left untouched; {HINT}"])
    new_text, snippet = out
    new = new_text.encode("utf-8")
    record = {"path": SETTINGS_REL, "written_sha256": sha256_bytes(new), "had_before": True, "snippet": snippet}
    return SettingsChange(new_bytes=new, before=data, record=record, permission=PERMISSION, note="entry added")


def plan_remove(config: Path, record: dict | None, permission: str | None, before: bytes | None) -> SettingsChange:
    path = Path(config) / SETTINGS_REL
    if not permission or not isinstance(record, dict):
        return SettingsChange(note="unchanged")
    how = f'remove "msd_run *" from permission.bash in {path} by hand'
    try:
        data = read_installed(config, SETTINGS_REL)
    except Exception as exc:
        return SettingsChange(note="skipped", warnings=[f"{exc}; {how}"])
    if data is None:
        return SettingsChange(note="absent")
    if sha256_bytes(data) == record.get("written_sha256"):
        if not record.get("had_before"):
            return SettingsChange(delete=True, note="removed (msd created it)")
        if before is not None:
            return SettingsChange(new_bytes=before, note="restored")
    snippet = record.get("snippet")
    if not snippet:
        return SettingsChange(note="kept (you edited the file msd created)", warnings=[f"{path} changed since msd wrote it; {how}"])
    try:
        new = remove_snippet(data.decode("utf-8"), snippet)
    except UnicodeDecodeError:
        new = None
    if new is None:
        return SettingsChange(note="skipped", warnings=[f"msd's entry in {path} is not as msd wrote it; {how}"])
    return SettingsChange(new_bytes=new.encode("utf-8"), note="entry removed")


def _fresh() -> str:
    import json

    return json.dumps({"$schema": "https://opencode.ai/config.json", "permission": {"bash": {KEY: VALUE}}}, indent=2)
