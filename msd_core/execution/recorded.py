"""The commits msd recorded for a plan or a phase (run records of msd_core.execution.run_record).

`select(main_root, phase=..., plan=...)` finds the records: `--phase <ref>` every record of
that phase folder (phase identity from msd_core.planning.phase_ref), `--plan <ref>` one
plan, given as its PLAN.md path or its id (`02-01`). `commits(records)` lists their
commits in recorded order, each once. Undo, code-review and ship read commits only here,
so no command ever acts on a commit msd did not record. Standard library only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError
from msd_core.execution import run_record

_PLAN_ID = re.compile(r"^\d+(?:\.\d+)*-\d+$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,120}$")  # a folder or plan name, never a path


def _phase_dir_of(main_root: Path, phase: str) -> str:
    from msd_core.planning.phase_ref import resolve

    ph = resolve(main_root / ".planning", phase, must_exist=True)
    if ph.milestone:
        raise UsageError(f"phase {ph.label} is archived; only the current milestone's phases have run records")
    return ph.dirname


def _plan_key(main_root: Path, plan: str) -> tuple[str | None, str]:
    """(phase folder or None, plan id) from a PLAN.md path or an id like 02-01."""
    from msd_core.planning.discovery import plan_id

    raw = plan.strip()
    if _PLAN_ID.match(raw):
        return None, raw
    p = Path(raw)
    if not p.name.endswith("PLAN.md"):
        raise UsageError(f"{plan!r}: give a PLAN.md path or a plan id like 02-01", about="plan")
    return p.parent.name or None, plan_id(p)


def select(main_root: Path, *, phase: str | None = None, plan: str | None = None) -> list[tuple[Path, dict]]:
    """[(record path, record)] for the phase or the plan, sorted by plan id."""
    if bool(phase) == bool(plan):
        raise UsageError("give exactly one of a phase or a plan", remedy=("phase", "plan"))
    folder = run_record.runs_dir(main_root)
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".json") and e.is_file(follow_symlinks=False))
    except FileNotFoundError:
        names = []
    if phase:
        want_dir, want_plan = _phase_dir_of(main_root, phase), None
    else:
        want_dir, want_plan = _plan_key(main_root, plan)
    out = []
    for name in names:
        rec = run_record.load(folder / name)
        if rec is None:
            continue
        if not all(isinstance(rec.get(k), str) and _NAME.match(rec[k]) and ".." not in rec[k]
                   for k in ("phase_dir", "plan")):
            raise OperationFailed(f"run record {folder / name} names no safe phase folder and plan; not used",
                                  hint="move it aside; the commits themselves are in git log")
        if want_dir is not None and rec.get("phase_dir") != want_dir:
            continue
        if want_plan is not None and rec.get("plan") != want_plan:
            continue
        out.append((folder / name, rec))
    return out


def commits(records: list[tuple[Path, dict]]) -> list[dict]:
    """Recorded commits in recorded order, each hash once, each with its plan."""
    seen: set[str] = set()
    out = []
    for _path, rec in records:
        for c in rec.get("commits", []):
            h = c.get("hash") if isinstance(c, dict) else None
            if not isinstance(h, str) or not re.fullmatch(r"[0-9a-f]{7,64}", h) or h in seen:
                continue
            seen.add(h)
            files = [f for f in c.get("files", []) if isinstance(f, str)]
            out.append({"hash": h, "plan": rec.get("plan"), "phase_dir": rec.get("phase_dir"),
                        "message": str(c.get("message", ""))[:200], "files": files})
    return out
