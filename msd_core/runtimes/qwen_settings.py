"""msd's guard hook in Qwen Code's settings.json (`<config>/settings.json`: project `.qwen/`, user
`~/.qwen/`): one group appended to `hooks.PreToolUse`,

    {"matcher": "^(run_shell_command|read_file)$",
     "hooks": [{"type": "command", "command": "<msd_run> hook qwen-pre-tool-use --root R", "timeout": 30}]}

(base.guard_command; msd_core/hooks/qwen.py maps the call onto msd's guard). Read in the real Qwen
Code 0.24.4 (its bundled docs/features/hooks.md; tests/runtimes/test_client_guards_cli.py): hooks
live in settings files only, a project's load only in a folder Qwen trusts, the user's always.

The install surface of msd's other shared config entries (opencode_config.py, claude_settings.py):
no settings.json, msd creates one holding only its group (and deletes it on uninstall while it is
unchanged); a user's file (JSONC) gets only the group's bytes (msd_core/files/jsonedit.py), the
user's own hooks and every other byte kept; uninstall restores the saved bytes when nothing else
changed, else takes out exactly msd's group and the containers msd made for it. A file that does
not parse, or whose `hooks`/`hooks.PreToolUse` holds something else, is left untouched with a warning.
"""

from __future__ import annotations

import copy
from pathlib import Path

from msd_core.files.atomic import sha256_bytes
from msd_core.files.jsonedit import EditError, NotAContainer, edit_bytes, peek_at, prune, reach
from msd_core.paths import SETTINGS_BEFORE_REL, runtime_global_dir
from msd_core.runtimes.base import guard_command
from msd_core.runtimes.claude_settings import SettingsChange
from msd_core.runtimes.config_entry import read_for_add, start_removal

SETTINGS_REL = "settings.json"
BEFORE_REL = SETTINGS_BEFORE_REL
PERMISSION = "hooks.PreToolUse: msd_run hook qwen-pre-tool-use"  # what the manifest records msd added
PATH = ("hooks", "PreToolUse")
EVENT = "qwen-pre-tool-use"
MATCHER = "^(run_shell_command|read_file)$"
TIMEOUT = 30  # seconds; the guard answers in milliseconds
HINT = "msd's guard hook was not added to Qwen Code (add it to hooks.PreToolUse by hand: see `msd install --help`)"


def group(config: Path) -> dict:
    local = Path(config).absolute() != runtime_global_dir("qwen")
    return {"matcher": MATCHER, "hooks": [{"type": "command", "command": guard_command(EVENT, config, local), "timeout": TIMEOUT}]}


def is_ours(entry) -> bool:
    """A hooks.PreToolUse group of msd's: its one hook runs `... hook qwen-pre-tool-use ...`."""
    hooks = entry.get("hooks") if isinstance(entry, dict) else None
    return isinstance(hooks, list) and len(hooks) == 1 and isinstance(hooks[0], dict) \
        and f" hook {EVENT} " in f" {hooks[0].get('command')} "


def plan_add(config: Path, old_record: dict | None, old_permission: str | None) -> SettingsChange:
    path = Path(config) / SETTINGS_REL

    def kept(note: str, warning: str | None = None) -> SettingsChange:  # the file left as it is
        return SettingsChange(record=old_record, permission=old_permission, note=note, warnings=[warning] if warning else [])

    data, before, problem = read_for_add(config, SETTINGS_REL, HINT)
    if problem:
        return kept("skipped", problem)
    after = copy.deepcopy(before)
    try:
        found, created = reach(after, PATH, list)
    except NotAContainer as exc:
        return kept("skipped", f"{path}: {exc}; left untouched; {HINT}")
    listed = found if isinstance(found, list) else []
    wanted = group(config)
    if wanted in listed:
        return kept("present")
    listed[:] = [g for g in listed if not is_ours(g)] + [wanted]  # an older install's group is replaced
    try:
        new = edit_bytes(data, before, after)
    except EditError as exc:
        return kept("skipped", f"{path} cannot be edited in place ({exc}); left untouched; {HINT}")
    prev = old_record if isinstance(old_record, dict) else None
    earlier = prev.get("created_keys") if prev else None
    made_before: list = earlier if isinstance(earlier, list) else []
    record = {"path": SETTINGS_REL, "written_sha256": sha256_bytes(new),
              "had_before": bool(prev.get("had_before")) if prev else data is not None,
              "created_keys": list(dict.fromkeys([*made_before, *created]))}
    # an update rewriting msd's group keeps no copy of msd's own earlier bytes: uninstall then takes the group out
    return SettingsChange(new_bytes=new, before=None if prev else data, record=record, permission=PERMISSION,
                          note="added (new file)" if data is None else "entry added")


def plan_remove(config: Path, record: dict | None, permission: str | None, before: bytes | None) -> SettingsChange:
    path = Path(config) / SETTINGS_REL
    if not permission or not isinstance(record, dict):
        return SettingsChange(note="unchanged")
    how = f"remove msd's group (msd_run hook {EVENT}) from hooks.PreToolUse in {path} by hand"
    done, data, obj = start_removal(config, SETTINGS_REL, record, before, how)
    if done is not None:
        return done
    listed = peek_at(obj, PATH)
    if not isinstance(listed, list) or not any(is_ours(g) for g in listed):
        return SettingsChange(note="entry already gone")
    after = copy.deepcopy(obj)
    peek_at(after, PATH)[:] = [g for g in listed if not is_ours(g)]
    prune(after, PATH, record.get("created_keys") if isinstance(record.get("created_keys"), list) else [])
    if not record.get("had_before") and not after:
        return SettingsChange(delete=True, note="removed (msd created it)")
    try:
        new = edit_bytes(data, obj, after)
    except EditError as exc:
        return SettingsChange(note="skipped", warnings=[f"{path} cannot be edited in place ({exc}); {how}"])
    return SettingsChange(new_bytes=new, note="entry removed")
