"""OpenCode's permission for `msd_run`: `"permission": {"bash": {"msd_run *": "allow"}}` in
`<config>/opencode.json` (global ~/.config/opencode/, local .opencode/; OpenCode merges it with
the user's other config files -- checked with `opencode debug config`).

No opencode.json: msd creates one holding only its entry (and deletes it on uninstall while it
is unchanged). A user's opencode.json (JSONC: comments and trailing commas are kept): only the
entry's bytes are added (msd_core/files/jsonedit.py) and every other byte is kept; uninstall
restores the saved bytes when nothing else changed, else takes out exactly the entry and the
objects msd made for it. A file that does not parse, or whose `permission`/`bash` is not an
object (e.g. "permission": "ask" -- the user's choice), is left untouched with a warning.
Same surface as msd_core/runtimes/claude_settings.py.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from msd_core.files.atomic import sha256_bytes
from msd_core.files.jsonedit import EditError, NotAContainer, edit_bytes, peek_at, prune, reach
from msd_core.files.safe_tree import read_installed
from msd_core.paths import SETTINGS_BEFORE_REL
from msd_core.runtimes.claude_settings import SettingsChange
from msd_core.runtimes.config_entry import finish_removal, load_object, start_removal

SETTINGS_REL = "opencode.json"
BEFORE_REL = SETTINGS_BEFORE_REL
PERMISSION = 'permission.bash["msd_run *"] = "allow"'
PATH = ("permission", "bash")
KEY, VALUE = "msd_run *", "allow"
HINT = 'add "permission": {"bash": {"msd_run *": "allow"}} to opencode.json by hand to run msd_run without prompts'


def plan_add(config: Path, old_record: dict | None, old_permission: str | None) -> SettingsChange:
    path = Path(config) / SETTINGS_REL
    keep = {"record": old_record, "permission": old_permission}
    try:
        data = read_installed(config, SETTINGS_REL)
    except Exception as exc:  # a symlink on the way, unreadable: never written through
        return SettingsChange(**keep, note="skipped", warnings=[f"{exc}; {HINT}"])
    if data is None:
        new = (_fresh() + "\n").encode("utf-8")
        record = {"path": SETTINGS_REL, "written_sha256": sha256_bytes(new), "had_before": False, "created_keys": []}
        return SettingsChange(new_bytes=new, before=None, record=record, permission=PERMISSION, note="added (new file)")
    before, problem = load_object(data, path)
    if problem:
        return SettingsChange(**keep, note="skipped", warnings=[f"{problem}; {HINT}"])
    after = copy.deepcopy(before)
    try:
        bash, created = reach(after, PATH, dict)
    except NotAContainer as exc:
        return SettingsChange(**keep, note="skipped", warnings=[f"{path}: {exc}; left untouched; {HINT}"])
    if KEY in bash:
        return SettingsChange(**keep, note="present")
    bash[KEY] = VALUE
    try:
        new = edit_bytes(data, before, after)
    except EditError as exc:
        return SettingsChange(**keep, note="skipped", warnings=[f"{path} cannot be edited in place ({exc}); left untouched; {HINT}"])
    record = {"path": SETTINGS_REL, "written_sha256": sha256_bytes(new), "had_before": True, "created_keys": created}
    return SettingsChange(new_bytes=new, before=data, record=record, permission=PERMISSION, note="entry added")


def plan_remove(config: Path, record: dict | None, permission: str | None, before: bytes | None) -> SettingsChange:
    path = Path(config) / SETTINGS_REL
    if not permission or not isinstance(record, dict):
        return SettingsChange(note="unchanged")
    how = f'remove "msd_run *" from permission.bash in {path} by hand'
    done, data, obj = start_removal(config, SETTINGS_REL, record, before, how)
    if done is not None:
        return done
    if peek_at(obj, (*PATH, KEY)) != VALUE:
        return SettingsChange(note="entry already gone")
    after = copy.deepcopy(obj)
    del peek_at(after, PATH)[KEY]
    # an older install recorded the inserted text instead: it made no object of its own
    created = record.get("created_keys") if isinstance(record.get("created_keys"), list) else []
    if not record.get("had_before"):
        created = ["permission", "permission.bash"]
    prune(after, PATH, created)
    return finish_removal(data, obj, after, path, how,
                          msd_made_it=not record.get("had_before") and set(after) <= {"$schema"})


def _fresh() -> str:
    return json.dumps({"$schema": "https://opencode.ai/config.json", "permission": {"bash": {KEY: VALUE}}}, indent=2)
