"""What msd's entries in another program's config file share (opencode_config.py,
qwen_settings.py, kimi_config.py): reading the file as an object before an entry is added, and the
start and the end of a JSON file's uninstall (the file as msd wrote it goes back to its saved bytes, or
away if msd created it; else msd's entry is cut out in place)."""

from __future__ import annotations

from pathlib import Path

from msd_core.files.atomic import sha256_bytes
from msd_core.files.jsonedit import EditError, edit_bytes, loads
from msd_core.files.safe_tree import read_installed
from msd_core.runtimes.claude_settings import SettingsChange


def load_object(data: bytes, path: Path):
    """(the file's JSON/JSONC object, None) or (None, why it is left untouched)."""
    try:
        text = data[3:].decode("utf-8") if data.startswith(b"\xef\xbb\xbf") else data.decode("utf-8")
        obj = loads(text, str(path)) if text.strip() else {}
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return None, f"{path} does not parse ({str(exc).replace(str(path), 'the file')[:120]}); left untouched"
    if not isinstance(obj, dict):
        return None, f"{path}: the file is not a JSON object; left untouched"
    return obj, None


def read_for_add(config: Path, rel: str, hint: str, parse=None):
    """(the file's bytes or None when absent, its object ({} when absent), None), or (None, None, the
    warning that leaves it untouched: unreadable, a symlink on the way, does not parse). `parse(data,
    path)` answers as load_object does (the default: JSON/JSONC)."""
    try:
        data = read_installed(config, rel)
    except Exception as exc:  # a symlink on the way, unreadable: never written through
        return None, None, f"{exc}; {hint}"
    if data is None:
        return None, {}, None
    obj, problem = (parse or load_object)(data, Path(config) / rel)
    return (None, None, f"{problem}; {hint}") if problem else (data, obj, None)


def read_to_look(config: Path, rel: str, parse=None):
    """(the file's object ({} when absent), None) or (None, why it cannot be read), for a reader that
    writes nothing (`msd status`); `parse` as in read_for_add."""
    _data, obj, problem = read_for_add(config, rel, "", parse)
    return (None, problem.removesuffix("; ").removesuffix("; left untouched")) if problem else (obj, None)


def start_removal(config: Path, rel: str, record: dict, before: bytes | None, how: str, parse=None):
    """(a finished SettingsChange, None, None) when uninstall needs no edit, else (None, the file's
    bytes, its object) for the caller to take its entry out of. `how`: the hand fix a warning names;
    `parse` as in read_for_add."""
    try:
        data = read_installed(config, rel)
    except Exception as exc:
        return SettingsChange(note="skipped", warnings=[f"{exc}; {how}"]), None, None
    if data is None:
        return SettingsChange(note="absent"), None, None
    if sha256_bytes(data) == record.get("written_sha256"):
        if not record.get("had_before"):
            return SettingsChange(delete=True, note="removed (msd created it)"), None, None
        if before is not None:
            return SettingsChange(new_bytes=before, note="restored"), None, None
    obj, problem = (parse or load_object)(data, Path(config) / rel)
    if problem:
        return SettingsChange(note="skipped", warnings=[f"{problem}; {how}"]), None, None
    return None, data, obj


def finish_removal(data: bytes, obj: dict, after: dict, path: Path, how: str, *, msd_made_it: bool) -> SettingsChange:
    """The end of an uninstall begun by start_removal: `after` is `obj` without msd's entry. The file goes
    away when msd made it and nothing else is left (`msd_made_it`), else it is edited in place (every other
    byte kept), or left with a warning naming `how` when it cannot be."""
    if msd_made_it:
        return SettingsChange(delete=True, note="removed (msd created it)")
    try:
        new = edit_bytes(data, obj, after)
    except EditError as exc:
        return SettingsChange(note="skipped", warnings=[f"{path} cannot be edited in place ({exc}); {how}"])
    return SettingsChange(new_bytes=new, note="entry removed")
