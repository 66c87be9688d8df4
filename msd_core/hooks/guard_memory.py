"""What the planning guard remembers between writes, in `.planning/.msd/guard/` (one lock for both):

- `references.json`: the text a document had before an agent's writes first cut it, kept across
  sessions (shrink.py reads and writes it through `read_record` and `held`), so a series of small
  cuts adds up (a guard without memory lets ten 20% cuts through).
- `allowed.json` `{path: until}`: writes a person allowed with `msd guard allow <path>` (valid
  until the time given, used up by the first write the guard would have refused).

Paths are relative to `.planning/`. A record that cannot be read (a FIFO or device there is
refused at once, never waited on) counts as empty; one that cannot
be written leaves the guard without memory for that write (never a failure of the hook).
"""

from __future__ import annotations

import os
import time

from msd_core.files.bounded import read_json

FOLDER = ("guard",)
LOCK = "guard.lock"
LOCK_WAIT = 2.0
MAX_RECORD_BYTES = 1 << 20


def _folder(planning: str) -> str:
    return os.path.join(planning, ".msd", *FOLDER)


def _read(path: str) -> dict:
    try:  # a FIFO or device there is refused at once, never waited on
        doc = read_json(path, "the guard's record", MAX_RECORD_BYTES)
    except (OSError, ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


class _Held:
    """The guard folder, made and locked; `write(name, doc)` saves a record atomically."""

    def __init__(self, planning: str):
        from pathlib import Path

        from msd_core.files.atomic import locked
        from msd_core.files.private_dir import ensure_private_dir

        self.root = Path(planning).parent
        ensure_private_dir(self.root)
        self.folder = Path(_folder(planning))
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = locked(self.folder / LOCK, LOCK_WAIT, anchor=self.root)

    def __enter__(self):
        self._lock.__enter__()
        return self

    def __exit__(self, *exc):
        return self._lock.__exit__(*exc)

    def read(self, name: str) -> dict:
        return _read(str(self.folder / name))

    def write(self, name: str, doc: dict) -> None:
        import json

        from msd_core.files.atomic import atomic_write_bytes

        data = (json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
        atomic_write_bytes(self.folder / name, data, anchor=self.root)


def read_record(planning: str, name: str) -> dict:
    """One of the guard's records (`{}`: absent or unreadable), read without the lock."""
    return _read(os.path.join(_folder(planning), name))


def held(planning: str) -> _Held:
    """The guard folder made and locked, for a read-modify-write of a record (shrink.py)."""
    return _Held(planning)


def grant(planning: str, rel: str, minutes: float) -> float:
    """Allow one refused write of `rel` until now + `minutes`; returns that time (raises MsdError/OSError)."""
    until = time.time() + 60 * minutes
    with _Held(planning) as held:
        doc = {k: v for k, v in held.read("allowed.json").items() if isinstance(v, (int, float)) and v > time.time()}
        doc[rel] = until
        held.write("allowed.json", doc)
    return until


def take(planning: str, rel: str) -> bool:
    """Use up a person's allowance for `rel` (True) or find none (False)."""
    path = os.path.join(_folder(planning), "allowed.json")
    if not os.path.exists(path):
        return False
    try:
        with _Held(planning) as held:
            doc = held.read("allowed.json")
            until = doc.pop(rel, None)
            live = isinstance(until, (int, float)) and not isinstance(until, bool) and until > time.time()
            held.write("allowed.json", {k: v for k, v in doc.items() if isinstance(v, (int, float)) and v > time.time()})
    except Exception:  # noqa: BLE001 - cannot use it up: do not honour it
        return False
    return live
