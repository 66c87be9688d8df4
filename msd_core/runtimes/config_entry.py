"""What msd's entries in another program's JSON config file share (opencode_config.py,
qwen_settings.py): reading the file as an object, and the start of an uninstall (the file as msd
wrote it goes back to its saved bytes, or away if msd created it)."""

from __future__ import annotations

from pathlib import Path

from msd_core.files.atomic import sha256_bytes
from msd_core.files.jsonedit import loads
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


def start_removal(config: Path, rel: str, record: dict, before: bytes | None, how: str):
    """(a finished SettingsChange, None, None) when uninstall needs no edit, else (None, the file's
    bytes, its object) for the caller to take its entry out of. `how`: the hand fix a warning names."""
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
    obj, problem = load_object(data, Path(config) / rel)
    if problem:
        return SettingsChange(note="skipped", warnings=[f"{problem}; {how}"]), None, None
    return None, data, obj
