"""The budgets a project sets (config `usage.phase_token_budget`, `usage.context_warn_percent`)
and whether a session crossed one; each crossing is told once, recorded in
`.planning/.msd/usage/warned.json` ({"budget:<phase>": time, "context:<session>": time}).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from msd_core.files.bounded import loads_json, read_json

MAX_WARNED_BYTES = 1 << 20
TAIL_BYTES = 1 << 20  # the latest request of a session is near the end of its transcript


def settings(root: Path) -> tuple[int, int, int]:
    """(phase token budget, context warning percent, configured window); 0 = off / not set."""
    from msd_core.config import store

    layers = store.load_layers(root)

    def num(key: str) -> int:
        try:
            value = store.get_value(key, root, layers)
        except Exception:  # noqa: BLE001 - a bad config never breaks a hook
            return 0
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

    return num("usage.phase_token_budget"), num("usage.context_warn_percent"), num("usage.context_window")


def latest_context(transcript: str) -> tuple[int, str | None] | None:
    """(context tokens, model) of the last request recorded in a session transcript (the hook
    payload's `transcript_path`: anything but a path to a regular file gives None)."""
    if not isinstance(transcript, str) or not transcript:
        return None
    from msd_core.files.numbers import count
    from msd_core.files.safe_read import read_tail

    try:  # the hook payload's path: a FIFO or device there is refused at once, never waited on
        tail = read_tail(transcript, TAIL_BYTES)
    except (OSError, TypeError, ValueError):
        return None
    for raw in reversed(tail.split(b"\n")):
        if b'"usage"' not in raw or b'"assistant"' not in raw:
            continue
        try:
            line = loads_json(raw, "a transcript line")
        except ValueError:  # damaged, cut, or too deep (files.bounded)
            continue
        message = line.get("message") if isinstance(line, dict) else None
        usage = message.get("usage") if isinstance(message, dict) else None
        if line.get("type") == "assistant" and isinstance(usage, dict):
            nums = [0 if usage.get(k) is None else count(usage[k])
                    for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")]
            if None in nums:  # NaN, an infinity, a negative: this request's context is unknown
                continue
            return sum(nums), message.get("model")
    return None


def _warned_path(root: Path) -> Path:
    from msd_core.files.private_dir import ensure_private_dir

    return ensure_private_dir(root) / "usage" / "warned.json"


def first_time(root: Path, key: str) -> bool:
    """True once per key (and records it); False when it was told before or cannot be recorded."""
    from msd_core.files.atomic import atomic_write_bytes, locked

    path = _warned_path(root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with locked(path.with_name("warned.lock"), 2.0, anchor=root):
            try:
                doc = read_json(path, str(path), MAX_WARNED_BYTES)
            except (OSError, ValueError):
                doc = {}
            if not isinstance(doc, dict):
                doc = {}
            if key in doc:
                return False
            doc[key] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            atomic_write_bytes(path, (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8"), anchor=root)
            return True
    except Exception:  # noqa: BLE001 - a lock held or a read-only project: told another time
        return False


def phase_tokens(root: Path, phase: str) -> int:
    from msd_core.usage import cache, report

    files, _doc = cache.refresh(root)
    for row in report.build(files)["by_phase"]:
        if row.get("phase") == phase:
            return row["total"]
    return 0
