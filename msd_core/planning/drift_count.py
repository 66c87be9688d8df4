"""The last drift figure, kept by HEAD in `.planning/.msd/drift.json` (issue 49).

`msd_run drift` (and `msd_run next` when it had to compute drift) stores what it found: the
commit HEAD named, the size and time of `.planning/drift-accepted.md` then (an acceptance
changes the figure without a commit), the count, and each finding's route facts (kind, phase,
command, message, the commits behind it; every outside commit's hash). `cached(root, head)` gives it back only while both
still match, so a figure is never shown for another tree; anything else (absent, unreadable,
another HEAD) is None and the caller computes drift or shows nothing.

`head_from_files(root)` reads HEAD from git's files only (msd_core.git.repo_files): the status
line asks it and never starts a git process; None when the files do not settle it.

msd owns the file; it is read through the bounded JSON reader anyway. Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path

NAME = "drift.json"
VERSION = 1
MAX_BYTES = 2 * 1024 * 1024
KEPT = ("kind", "phase", "plan", "path", "requirement", "command", "message", "commit", "commits", "rebased")
MAX_FINDINGS = 200  # the count is exact; the route needs only the first of each kind


def _path(root: Path) -> Path:
    from msd_core.paths import project_state_dir

    return project_state_dir(Path(root)) / NAME


def _accepted_stamp(root: Path) -> list[int] | None:
    try:
        st = os.stat(Path(root) / ".planning" / "drift-accepted.md")
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def head_from_files(root: Path) -> str | None:
    """HEAD's commit from git's files, no git process; None when unborn, outside git or unsure."""
    from msd_core.git import repo_files

    try:
        lay = repo_files.layout(root)
        return repo_files.head(lay).commit if lay is not None else None
    except (repo_files.Unsure, OSError):
        return None


def summary(root: Path, result: dict) -> dict:
    """What is kept of `result` (drift.drift's answer): count, kinds, route facts, outside commits."""
    findings = [{k: f[k] for k in KEPT if k in f} for f in result.get("findings", [])]
    kinds: dict[str, int] = {}
    for f in findings:
        kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
    return {"version": VERSION, "head": result.get("head"), "accepted": _accepted_stamp(root),
            "count": len(findings), "by_kind": kinds, "findings": _first_of_each(findings),
            "outside": sorted({f["commit"] for f in findings if f["kind"] == "outside-commit" and "commit" in f})}


def store(root: Path, result: dict) -> None:
    """Keep `result` for its HEAD; a folder that cannot be written is left alone (computed again next time)."""
    import json

    from msd_core.errors import MsdError
    from msd_core.files.atomic import atomic_write_text
    from msd_core.files.private_dir import ensure_private_dir

    try:
        atomic_write_text(ensure_private_dir(Path(root)) / NAME, json.dumps(summary(root, result), sort_keys=True) + "\n",
                          anchor=Path(root), durable=False)  # a cache: computed again when lost
    except (OSError, MsdError):
        pass


def _first_of_each(findings: list[dict]) -> list[dict]:
    """Every finding that can change a route (not outside-commit), then outside commits up to the cap."""
    routed = [f for f in findings if f["kind"] != "outside-commit"]
    outside = [f for f in findings if f["kind"] == "outside-commit"]
    return (routed + outside)[:MAX_FINDINGS]


def cached(root: Path, head: str | None) -> dict | None:
    """The stored figure while HEAD and the acceptance file are as they were, else None."""
    if not head:
        return None
    from msd_core.files.bounded import read_json

    try:
        doc = read_json(_path(root), "drift cache", MAX_BYTES, follow_symlinks=False)
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("version") != VERSION or doc.get("head") != head:
        return None
    if doc.get("accepted") != _accepted_stamp(root):
        return None
    count, found = doc.get("count"), doc.get("findings")
    if type(count) is not int or count < 0 or not isinstance(found, list) or not isinstance(doc.get("outside"), list):
        return None
    return doc


def count(root: Path) -> int | None:
    """The status line's figure: the stored count for HEAD as git's files name it, else None."""
    doc = cached(root, head_from_files(root))
    return doc["count"] if doc is not None else None
