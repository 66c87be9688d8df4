"""msd's guard hook in Kimi Code's config.toml: one `[[hooks]]` table appended to the file,

    [[hooks]]
    event = "PreToolUse"
    matcher = "^(Bash|Read)$"
    command = "<msd_run> hook kimi-pre-tool-use --root R"
    timeout = 30

(base.guard_command; msd_core/hooks/kimi.py maps the call onto msd's guard). Read in the real Kimi
Code 2.1.0 (its bundled config section `hooks` and externalHooks runner;
tests/runtimes/test_client_guards_cli.py): hooks live only in the user's config.toml
(`$KIMI_CODE_HOME`, else `~/.kimi-code`) and in installed plugins, never in a project, so only a
global install adds the entry; a local one says where it would go.

The file holds the user's providers and keys: msd keeps no copy of it. It only appends its table's
text (the user's bytes before it untouched) and records that text; uninstall cuts exactly that text
out again, which gives the file back byte for byte (or deletes it when msd created it and nothing
else was added). A file that does not parse, or where the appended table would not parse (a
`hooks = [...]` array written inline), is left untouched with a warning.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.files.atomic import sha256_bytes
from msd_core.paths import SETTINGS_BEFORE_REL, runtime_global_dir
from msd_core.runtimes.base import guard_command
from msd_core.runtimes.claude_settings import SettingsChange
from msd_core.runtimes.config_entry import read_for_add, read_to_look, start_removal

SETTINGS_REL = "config.toml"
BEFORE_REL = SETTINGS_BEFORE_REL  # never written here: an earlier file's copy would hold the user's keys
PERMISSION = "hooks PreToolUse: msd_run hook kimi-pre-tool-use"  # what the manifest records msd added
EVENT = "kimi-pre-tool-use"
MATCHER = "^(Bash|Read)$"
TIMEOUT = 30  # seconds; the guard answers in milliseconds
MARK = "# msd's guard hook (msd install --runtime kimi); msd uninstall takes it out\n"
HINT = ("msd's guard hook was not added to Kimi Code (add by hand to its config.toml: [[hooks]] with event = \"PreToolUse\", "
        f"matcher = \"{MATCHER}\", command = \"msd_run hook {EVENT} --root <its msd-core folder>\")")
NOT_READ = "not added: Kimi Code reads hooks only from its user config.toml (`msd install --global --runtime kimi` adds msd's guard there)"


def entry(config: Path) -> dict:
    return {"event": "PreToolUse", "matcher": MATCHER, "command": guard_command(EVENT, config, False), "timeout": TIMEOUT}


def is_ours(hook) -> bool:
    """A `[[hooks]]` table of msd's: a PreToolUse hook running `... hook kimi-pre-tool-use ...`."""
    return isinstance(hook, dict) and hook.get("event") == "PreToolUse" and f" hook {EVENT} " in f" {hook.get('command')} "


def _parse(data: bytes, path: Path):
    """(the file's TOML table, None) or (None, why it is left untouched)."""
    from msd_core.files import tomlread
    from msd_core.files.bounded import loads_toml

    try:  # the one bounded reader: a user's file may be nested too deep for tomllib's recursion
        return loads_toml(data.decode("utf-8"), str(path)), None
    except (UnicodeDecodeError, ValueError, tomlread.TOMLDecodeError) as exc:
        return None, f"{path} does not parse as TOML ({str(exc)[:120]}); left untouched"


def _hooks(table: dict) -> list:
    found = table.get("hooks")
    return found if isinstance(found, list) else []


def find(config: Path) -> tuple[Path, dict | None, str | None]:
    """Where msd's table is now (`msd status`; never writes): (the file, the table or None, why the file cannot be read)."""
    table, problem = read_to_look(config, SETTINGS_REL, _parse)
    if problem:
        return Path(config) / SETTINGS_REL, None, problem
    ours = [h for h in _hooks(table) if is_ours(h)]
    return Path(config) / SETTINGS_REL, (ours[-1] if ours else None), None


def _block(data: bytes | None, config: Path) -> bytes:
    """The text msd appends: a blank line after the user's last line, its mark, its table."""
    import tomli_w

    lead = b"" if not data else (b"\n" if data.endswith(b"\n") else b"\n\n")
    return lead + MARK.encode("utf-8") + tomli_w.dumps({"hooks": [entry(config)]}).encode("utf-8")


def plan_add(config: Path, old_record: dict | None, old_permission: str | None) -> SettingsChange:
    path = Path(config) / SETTINGS_REL

    def kept(note: str, warning: str | None = None) -> SettingsChange:  # the file left as it is
        return SettingsChange(record=old_record, permission=old_permission, note=note, warnings=[warning] if warning else [])

    if Path(config).absolute() != runtime_global_dir("kimi"):
        return kept(NOT_READ)
    data, table, problem = read_for_add(config, SETTINGS_REL, HINT, _parse)
    if problem:
        return kept("skipped", problem)
    wanted = entry(config)
    if wanted in _hooks(table):
        return kept("present")
    prev = old_record if isinstance(old_record, dict) else None
    earlier = prev.get("block") if prev else None
    base = data
    if any(is_ours(h) for h in _hooks(table)):  # an older install's table is replaced where msd finds its text
        if not (isinstance(earlier, str) and data and earlier.encode("utf-8") in data):
            return kept("skipped", f"{path} holds a hook running msd_run {EVENT} that msd did not write as it is; left untouched")
        cut = data.rfind(earlier.encode("utf-8"))
        base = data[:cut] + data[cut + len(earlier.encode("utf-8")):]
    block = _block(base, config)
    new = (base or b"") + block
    after, problem = _parse(new, path)
    if problem or _hooks(after)[-1:] != [wanted]:
        why = "its `hooks` is not a list of [[hooks]] tables" if not problem else "msd's table would not parse there"
        return kept("skipped", f"{path}: {why}; left untouched; {HINT}")
    had_before = bool(prev.get("had_before")) if prev else data is not None
    record = {"path": SETTINGS_REL, "written_sha256": sha256_bytes(new), "had_before": had_before,
              "block": block.decode("utf-8")}
    return SettingsChange(new_bytes=new, record=record, permission=PERMISSION,
                          note="added (new file)" if data is None else "entry added")


def plan_remove(config: Path, record: dict | None, permission: str | None, before: bytes | None) -> SettingsChange:
    path = Path(config) / SETTINGS_REL
    if not permission or not isinstance(record, dict):
        return SettingsChange(note="unchanged")
    how = f"remove msd's [[hooks]] table (msd_run hook {EVENT}) from {path} by hand"
    done, data, table = start_removal(config, SETTINGS_REL, record, None, how, _parse)  # no saved copy: the text is cut out
    if done is not None:
        return done
    block = record.get("block")
    text = block.encode("utf-8") if isinstance(block, str) and block else None
    if text is None or text not in data:
        if not any(is_ours(h) for h in _hooks(table)):
            return SettingsChange(note="entry already gone")
        return SettingsChange(note="skipped", warnings=[f"{path} no longer holds msd's table as msd wrote it; {how}"])
    cut = data.rfind(text)
    new = data[:cut] + data[cut + len(text):]
    if not record.get("had_before") and not new.strip():
        return SettingsChange(delete=True, note="removed (msd created it)")
    return SettingsChange(new_bytes=new, note="entry removed")
