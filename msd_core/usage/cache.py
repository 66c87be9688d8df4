"""The project's usage kept up to date incrementally: what the status line and the hooks read.

`.planning/.msd/usage/cache.json` holds, per transcript, where reading stopped (byte offset,
size, inode) and the attribution state there (msd_core.usage.attribute.Scanner), so a later
call reads only the lines written since; a file that shrank, was replaced or was rewritten in
place (the bytes before the offset differ) is read again from its start. It also keeps each model's context window as the host reported it (the status
line's `context_window.context_window_size`). It is a cache: written atomically, never locked
(two writers write the same answer), and rebuilt when it cannot be read. Each entry is checked
when loaded (`sound_entry`: the shapes and counts msd_core.usage.attribute writes); an entry that
is not sound is dropped, so its transcript is read again from its start, and a window that is not
a positive count is forgotten: a damaged cache costs one full read, never a wrong or blank figure.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from msd_core import paths
from msd_core.files.bounded import loads_json
from msd_core.files.numbers import count
from msd_core.usage import locate
from msd_core.usage.attribute import MAIN, Scanner
from msd_core.usage.report import scan_file, subagent_launch

VERSION = 1
MAX_CACHE_BYTES = 32 << 20


def cache_path(root: Path) -> Path:
    return paths.project_state_dir(root) / "usage" / "cache.json"


def load(root: Path) -> dict:
    from msd_core.files.safe_read import read_regular

    try:
        doc = loads_json(read_regular(cache_path(root), MAX_CACHE_BYTES), "the usage cache")
    except (OSError, ValueError):
        doc = None
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(doc.get("files"), dict):
        return {"version": VERSION, "files": {}, "windows": {}}
    doc["files"] = {k: v for k, v in doc["files"].items() if sound_entry(v)}
    windows = doc.get("windows") if isinstance(doc.get("windows"), dict) else {}
    doc["windows"] = {k: v for k, v in windows.items() if count(v)}
    if not isinstance(doc.get("config"), (str, type(None))):
        doc.pop("config")
    return doc


def _text(value) -> bool:
    return value is None or isinstance(value, str)


def _group_name(value) -> bool:
    return isinstance(value, str) and value.count("|") >= 3


def _group(g) -> bool:
    return (isinstance(g, list) and len(g) == 7 and all(count(n) is not None for n in g[:6]) and _text(g[6]))


def _request(r, *, grouped: bool) -> bool:
    return r is None or (isinstance(r, dict) and count(r.get("context")) is not None and _text(r.get("model"))
                         and (not grouped or _group_name(r.get("group"))))


def sound_state(st) -> bool:
    """Whether `st` has the shape of a Scanner's state (msd_core.usage.attribute) with valid counts."""
    if not isinstance(st, dict) or not isinstance(st.get("agent"), str) or not isinstance(st.get("inherit"), bool):
        return False
    if not all(_text(st.get(k)) for k in ("command", "phase", "plan")) or not isinstance(st.get("recent"), list):
        return False
    launches, groups, lines = st.get("launches"), st.get("groups"), st.get("lines")
    if not isinstance(launches, dict) or not all(
            isinstance(v, dict) and isinstance(v.get("agent"), str) and all(_text(v.get(k)) for k in ("command", "phase", "plan"))
            for v in launches.values()):
        return False
    if not isinstance(groups, dict) or not all(_group_name(k) and _group(g) for k, g in groups.items()):
        return False
    if not isinstance(lines, dict) or not all(count(lines.get(k)) is not None for k in ("read", "malformed", "unknown", "oversized")):
        return False
    host = st.get("host_total")
    if host is not None and not (isinstance(host, list) and len(host) == 4 and all(count(n) is not None for n in host)):
        return False
    return _request(st.get("first"), grouped=True) and _request(st.get("last"), grouped=False)


def sound_entry(entry) -> bool:
    """Whether a cache entry can be trusted: where reading stopped, and the state there."""
    return (isinstance(entry, dict) and count(entry.get("offset")) is not None
            and all(type(entry.get(k)) is int and entry[k] >= 0 for k in ("ino", "mtime_ns"))
            and isinstance(entry.get("sig"), str) and isinstance(entry.get("agent"), str) and sound_state(entry.get("state")))


def save(root: Path, doc: dict) -> None:
    from msd_core.files.atomic import atomic_write_bytes

    try:
        target = cache_path(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(target, json.dumps(doc, separators=(",", ":")).encode("utf-8"), anchor=root)
    except OSError:
        pass  # a cache: the next call reads again


SIG_BYTES = 64


def _signature(path: Path, offset: int) -> str:
    """The bytes just before `offset`: a file rewritten in place (not appended to) no longer has them."""
    from msd_core.files.safe_read import read_head

    try:
        return read_head(path, min(offset, SIG_BYTES), offset=max(0, offset - SIG_BYTES)).hex()
    except OSError:
        return ""


def _advance(entry: dict | None, path: Path, agent: str, launch: dict | None) -> dict:
    try:
        st = os.stat(path)
    except OSError:
        return entry or {}
    if (entry and entry.get("ino") == st.st_ino and st.st_size >= entry.get("offset", 0) and isinstance(entry.get("state"), dict)
            and _signature(path, entry.get("offset", 0)) == entry.get("sig")):
        if st.st_size == entry.get("offset") and st.st_mtime_ns == entry.get("mtime_ns"):
            return entry
        scanner, offset = scan_file(path, scanner=Scanner(state=entry["state"]), start=entry["offset"])
    else:
        scanner, offset = scan_file(path, agent, launch)
    return {**(entry or {}), "ino": st.st_ino, "mtime_ns": st.st_mtime_ns, "offset": offset, "sig": _signature(path, offset),
            "agent": scanner.state["agent"], "state": scanner.state}


def refresh(root: Path, config: Path | None = None, doc: dict | None = None) -> tuple[list[dict], dict]:
    """(the per-transcript summaries `report.build` takes, the cache document), brought up to date and saved."""
    config = config or locate.config_dir()
    doc = doc or load(root)
    if doc.get("config") != str(config):
        doc = {"version": VERSION, "files": {}, "windows": doc.get("windows", {}), "config": str(config)}
    files = doc["files"]
    out, seen = [], set()
    for main, subs in locate.sessions(root, config, known=files):
        key = str(main)
        files[key] = _advance(files.get(key), main, MAIN, None)
        seen.add(key)
        parent = Scanner(state=files[key]["state"]) if files[key].get("state") else Scanner()
        out.append({"path": key, "session": main.stem, "agent": MAIN, "state": parent.state})
        for sub in subs:
            skey = str(sub)
            entry = files.get(skey)
            agent, launch = (entry["agent"], None) if entry and entry.get("agent") else subagent_launch(sub, parent)
            files[skey] = _advance(entry, sub, agent, launch)
            seen.add(skey)
            if files[skey].get("state"):
                out.append({"path": skey, "session": main.stem, "agent": files[skey]["agent"], "state": files[skey]["state"]})
    for gone in set(files) - seen:
        del files[gone]
    save(root, doc)
    return out, doc


def learn_window(root: Path, model: str, size: int) -> None:
    """Keep the context window the host reported for `model` (only when it is new)."""
    doc = load(root)
    if doc["windows"].get(model) == size:
        return
    doc["windows"][model] = size
    save(root, doc)
