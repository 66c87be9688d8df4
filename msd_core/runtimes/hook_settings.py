"""msd's guard hook as one group in a client's settings.json hook list (Qwen Code's
`hooks.PreToolUse`, Gemini CLI's `hooks.BeforeTool`, Codex CLI's hooks.json `hooks.PreToolUse`:
qwen_settings.py, gemini_settings.py, codex_hooks.py):

    {"matcher": "<regex of the client's tool names>",
     "hooks": [{"type": "command", "command": "<msd_run> hook <event> --root R", "timeout": N}]}

(base.guard_command). `HookGroup` is the install surface of msd's other shared config entries
(opencode_config.py, claude_settings.py): no settings.json, msd creates one holding only its group (and
deletes it on uninstall while it is unchanged); a user's file (JSONC) gets only the group's bytes
(msd_core/files/jsonedit.py), the user's own hooks and every other byte kept; uninstall restores the
saved bytes when nothing else changed, else takes out exactly msd's group and the containers msd made
for it. A file that does not parse, or whose hook list holds something else, is left untouched with a warning.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

from msd_core.files.atomic import sha256_bytes
from msd_core.files.jsonedit import EditError, NotAContainer, edit_bytes, peek_at, prune, reach
from msd_core.paths import SETTINGS_BEFORE_REL, runtime_global_dir
from msd_core.runtimes.base import guard_command
from msd_core.runtimes.claude_settings import SettingsChange
from msd_core.runtimes.config_entry import finish_removal, read_for_add, read_to_look, start_removal


@dataclass(frozen=True)
class HookGroup:
    runtime: str  # whose global folder holds the user's settings.json (paths.runtime_global_dir)
    client: str  # the client's name, in the warnings
    path: tuple[str, ...]  # the hook list's keys, e.g. ("hooks", "PreToolUse")
    event: str  # msd_run hook <event>
    matcher: str
    timeout: int  # in the client's unit (Qwen: seconds, Gemini: milliseconds)
    file: str = "settings.json"  # the JSON file in the client's folder (Codex: hooks.json)

    BEFORE_REL = SETTINGS_BEFORE_REL

    @property
    def SETTINGS_REL(self) -> str:  # noqa: N802 - the surface installer.py reads (claude_settings.SETTINGS_REL)
        return self.file

    @property
    def PERMISSION(self) -> str:  # noqa: N802 - the surface installer.py reads (claude_settings.PERMISSION)
        return f"{'.'.join(self.path)}: msd_run hook {self.event}"  # what the manifest records msd added

    @property
    def hint(self) -> str:
        return (f"msd's guard hook was not added to {self.client} (add it to {'.'.join(self.path)} by hand: "
                "see `msd install --help`)")

    def group(self, config: Path) -> dict:
        local = Path(config).absolute() != runtime_global_dir(self.runtime)
        return {"matcher": self.matcher,
                "hooks": [{"type": "command", "command": guard_command(self.event, config, local), "timeout": self.timeout}]}

    def is_ours(self, entry) -> bool:
        """A group of msd's: its one hook runs `... hook <event> ...`."""
        hooks = entry.get("hooks") if isinstance(entry, dict) else None
        return isinstance(hooks, list) and len(hooks) == 1 and isinstance(hooks[0], dict) \
            and f" hook {self.event} " in f" {hooks[0].get('command')} "

    def find(self, config: Path) -> tuple[Path, dict | None, str | None]:
        """Where msd's group is now (`msd status`; never writes): (the file, the group or None, why the file cannot be read)."""
        path = Path(config) / self.SETTINGS_REL
        obj, problem = read_to_look(config, self.SETTINGS_REL)
        if problem:
            return path, None, problem
        listed = peek_at(obj, self.path)
        ours = [g for g in listed if self.is_ours(g)] if isinstance(listed, list) else []
        return path, (ours[-1] if ours else None), None

    def plan_add(self, config: Path, old_record: dict | None, old_permission: str | None) -> SettingsChange:
        path = Path(config) / self.SETTINGS_REL

        def kept(note: str, warning: str | None = None) -> SettingsChange:  # the file left as it is
            return SettingsChange(record=old_record, permission=old_permission, note=note, warnings=[warning] if warning else [])

        data, before, problem = read_for_add(config, self.SETTINGS_REL, self.hint)
        if problem:
            return kept("skipped", problem)
        after = copy.deepcopy(before)
        try:
            found, created = reach(after, self.path, list)
        except NotAContainer as exc:
            return kept("skipped", f"{path}: {exc}; left untouched; {self.hint}")
        listed = found if isinstance(found, list) else []
        wanted = self.group(config)
        if wanted in listed:
            return kept("present")
        listed[:] = [g for g in listed if not self.is_ours(g)] + [wanted]  # an older install's group is replaced
        try:
            new = edit_bytes(data, before, after)
        except EditError as exc:
            return kept("skipped", f"{path} cannot be edited in place ({exc}); left untouched; {self.hint}")
        prev = old_record if isinstance(old_record, dict) else None
        earlier = prev.get("created_keys") if prev else None
        made_before: list = earlier if isinstance(earlier, list) else []
        record = {"path": self.SETTINGS_REL, "written_sha256": sha256_bytes(new),
                  "had_before": bool(prev.get("had_before")) if prev else data is not None,
                  "created_keys": list(dict.fromkeys([*made_before, *created]))}
        # an update rewriting msd's group keeps no copy of msd's own earlier bytes: uninstall then takes the group out
        return SettingsChange(new_bytes=new, before=None if prev else data, record=record, permission=self.PERMISSION,
                              note="added (new file)" if data is None else "entry added")

    def plan_remove(self, config: Path, record: dict | None, permission: str | None, before: bytes | None) -> SettingsChange:
        path = Path(config) / self.SETTINGS_REL
        if not permission or not isinstance(record, dict):
            return SettingsChange(note="unchanged")
        how = f"remove msd's group (msd_run hook {self.event}) from {'.'.join(self.path)} in {path} by hand"
        done, data, obj = start_removal(config, self.SETTINGS_REL, record, before, how)
        if done is not None:
            return done
        listed = peek_at(obj, self.path)
        if not isinstance(listed, list) or not any(self.is_ours(g) for g in listed):
            return SettingsChange(note="entry already gone")
        after = copy.deepcopy(obj)
        peek_at(after, self.path)[:] = [g for g in listed if not self.is_ours(g)]
        prune(after, self.path, record.get("created_keys") if isinstance(record.get("created_keys"), list) else [])
        return finish_removal(data, obj, after, path, how, msd_made_it=not record.get("had_before") and not after)
