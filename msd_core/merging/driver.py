"""The merge driver git runs for a planning file: `msd_run merge-driver <kind> %O %A %B %P %L`.

git hands over three temporary files (the base, ours, theirs), the file's path and the
conflict-marker size, and reads the result back from ours' file: exit 0 merged, exit 1 the
file holds conflict markers (msd_core.git.merge_config registers the command).

kinds:
  state         STATE.md: lines merged (merging.state_doc), then the derived lines re-derived
                from the merged tree (merging.merged_tree) and written into it
                (msd_core.progress.state_sync.sync_text); derived lines stay ours' when the
                merged tree cannot be worked out
  roadmap       ROADMAP.md, by phase (merging.planning_docs)
  requirements  REQUIREMENTS.md, by requirement
  claims        claims.json, by claim (msd_core.planning.claims)
  todos         TODOS.md, by todo (a todo both sides captured under one id gets the next id)

A conflict that names its entry (both sides changed phase 3's goal) is written where it is,
between normal markers, and named on stderr. Anything the driver cannot decide (an entry
deleted on one side and changed on the other, a file that is not UTF-8 or too large, any
error) falls back to `git merge-file`: the whole file merged line by line with normal
conflict markers, exactly as git's own merge would leave it. The result replaces ours' file
in one rename, so a driver killed mid-way leaves git's file as it was.

Standard library only.
"""

from __future__ import annotations

import sys
from pathlib import Path

MAX_BYTES = 8 * 1024 * 1024
KINDS = ("state", "roadmap", "requirements", "claims", "todos")


def _say(message: str) -> None:
    try:
        sys.stderr.write(f"msd merge: {message}\n")
    except OSError:
        pass


def _read(path: str) -> bytes:
    from msd_core.files.safe_read import read_regular

    return read_regular(path, MAX_BYTES, follow_symlinks=False)


def _write(path: str, data: bytes) -> None:
    from msd_core.files.atomic import atomic_write_bytes

    atomic_write_bytes(Path(path), data)


def fallback(base: str, ours: str, theirs: str, size: int, why: str, rel: str) -> int:
    """`git merge-file` on the three files: git's own line merge and markers. 0 clean, 1 conflicts."""
    from msd_core.git.runner import git

    _say(f"{rel}: {why}; merged line by line instead (git merge-file)")
    top = Path(ours).parent
    proc = git(["merge-file", f"--marker-size={size}", "-L", "ours", "-L", "base", "-L", "theirs", ours, base, theirs],
               top, check=False)
    return 0 if proc.returncode == 0 else 1


def _merge_text(kind: str, base: str, ours: str, theirs: str, size: int):
    from msd_core.merging.keyed import merge

    if kind == "state":
        from msd_core.merging.state_doc import merge_state

        return merge_state(base, ours, theirs, size)
    if kind == "claims":
        from msd_core.merging.keyed import Outcome, split_lines
        from msd_core.planning.claims import merge_texts

        text = merge_texts(base, ours, theirs)
        return Outcome(split_lines(text or ""), [], [] if text is not None else ["a side is not a valid claims file"])
    from msd_core.merging.planning_docs import RequirementsSpec, RoadmapSpec, merge_todos

    if kind == "todos":
        return merge_todos(base, ours, theirs, size)

    return merge((RoadmapSpec if kind == "roadmap" else RequirementsSpec)(size), base, ours, theirs)


def _rederive(text: str, rel: str) -> str:
    """STATE.md's derived lines for the merged tree (merging.merged_tree), or the text as is."""
    from msd_core.git.runner import git
    from msd_core.merging.merged_tree import derived_for_merge
    from msd_core.progress.state_sync import sync_text

    top = Path.cwd()
    try:
        proc = git(["rev-parse", "--absolute-git-dir"], top, check=False)
        derived, why = (derived_for_merge(top, rel, Path(proc.stdout.strip())) if proc.returncode == 0
                        else (None, "no git directory here"))
    except Exception as exc:  # noqa: BLE001 - the merged lines stand; only the derived ones wait for a sync
        derived, why = None, f"{exc.__class__.__name__}: {getattr(exc, 'message', exc)}"
    if derived is None:
        if why != "nested":
            _say(f"{rel}: derived lines kept from ours ({why}); `msd_run state sync` recomputes them")
        return text
    return sync_text(text, derived)[0]


def run(kind: str, base: str, ours: str, theirs: str, rel: str, size: int = 7) -> int:
    """Merge one planning file in place of `ours` (module doc). Returns git's driver exit code."""
    try:
        texts = []
        for path in (base, ours, theirs):
            raw = _read(path)
            texts.append(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return fallback(base, ours, theirs, size, f"not merged by entry ({exc.__class__.__name__})", rel)
    try:
        outcome = _merge_text(kind, *texts, size)
        if outcome.undecided:
            return fallback(base, ours, theirs, size, "; ".join(outcome.undecided), rel)
        text = outcome.text
        if kind == "state" and outcome.clean:
            text = _rederive(text, rel)
        _write(ours, text.encode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - never a broken file: git's own merge instead
        return fallback(base, ours, theirs, size, f"entry merge failed ({exc.__class__.__name__}: {exc})", rel)
    for name in outcome.conflicts:
        _say(f"{rel}: conflict in {name}: both branches changed it; resolve the marked lines")
    return 0 if outcome.clean else 1
