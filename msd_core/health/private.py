"""Health checks of msd's own working files under `.planning/` (codes in msd_core.health.codes).

Read only: the gate's and the run records' readers used here create no folder
(msd_core.execution.gate.recorded, run_record.read_all), and `.planning/.msd/` is never made.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from msd_core.health.codes import Finding
from msd_core.health.tree import Tree, rel

MAX_WALK = 50_000          # entries looked at under .planning/ for temp and .msd-new files
STALE_RUN_DAYS = 14
TICKET_LEFT_SECONDS = 2 * 3600  # longer than a chain step's default time limit (1800 s)


def interrupted(t: Tree) -> list[Finding]:
    from msd_core.paths import PROJECT_STATE_DIRNAME, STATE_DUE_NAME, TXN_DIRNAME

    out = []
    if os.path.lexists(t.planning / TXN_DIRNAME):
        out.append(Finding("change-interrupted", f".planning/{TXN_DIRNAME}",
                           "a phase change's transaction was left unfinished"))
    elif os.path.lexists(t.planning / PROJECT_STATE_DIRNAME / STATE_DUE_NAME):
        out.append(Finding("change-interrupted", f".planning/{PROJECT_STATE_DIRNAME}/{STATE_DUE_NAME}",
                           "a phase change finished but STATE.md was not re-derived after it"))
    return out


def working_files(t: Tree) -> list[Finding]:
    """Temp files of writes whose writer is gone, and `.msd-new` files, anywhere under .planning/."""
    from msd_core.files.atomic import stale_temp

    out = []
    now = time.time()
    seen = 0
    from msd_core.files.walk import walk  # iterative, depth-capped (no RecursionError)

    for dirpath, dirnames, filenames in walk(t.planning):
        dirnames[:] = sorted(d for d in dirnames if not os.path.islink(os.path.join(dirpath, d)))
        for name in sorted(filenames):
            seen += 1
            if seen > MAX_WALK:
                return out
            full = Path(dirpath, name)
            if name.endswith(".msd-new"):
                out.append(Finding("msd-new-stray", rel(t.root, full),
                                   f"{name}: merge it into {name[:-len('.msd-new')]} by hand, then delete it"))
            elif name.endswith(".msd-tmp"):
                try:
                    mtime = os.lstat(full).st_mtime
                except OSError:
                    continue
                if stale_temp(name, mtime, now):
                    out.append(Finding("temp-orphaned", rel(t.root, full), f"{name} was left by a write that was killed"))
    return out


def flow_state(t: Tree) -> list[Finding]:
    from msd_core.errors import MsdError
    from msd_core.planning import flow_state as fs

    path = fs.default_state_path(t.root)
    if not os.path.lexists(path):
        return []
    try:
        doc = fs.read_state(path)
    except MsdError as exc:
        return [Finding("flow-state-unreadable", ".planning/state.json", exc.message)]
    out = []
    now = time.time()
    current = {d.name for d in t.current}
    for workflow, run in sorted(doc.get("workflows", {}).items()):
        try:
            run = fs.get_run({"workflows": {workflow: run}}, workflow)
        except MsdError as exc:
            out.append(Finding("flow-run-malformed", ".planning/state.json", exc.message, workflow=workflow))
            continue
        if run is None or run.get("status") == "done":
            continue
        phase_dir = run.get("vars", {}).get("phase_dir")
        if isinstance(phase_dir, str) and phase_dir:
            name = Path(phase_dir).name
            if name not in current and not (t.root / phase_dir).is_dir() and not (t.planning / "phases" / name).is_dir():
                out.append(Finding("flow-run-orphaned", ".planning/state.json",
                                   f"{workflow} is at step {run.get('current')} for {phase_dir}, which no longer exists",
                                   workflow=workflow))
                continue
        updated = fs.parse_stamp(run.get("updated"))
        if updated is not None and now - updated > STALE_RUN_DAYS * 86400:
            days = int((now - updated) // 86400)
            out.append(Finding("flow-run-stale", ".planning/state.json",
                               f"{workflow} has been at step {run.get('current')} for {days} days", workflow=workflow))
    return out


def gate(t: Tree) -> list[Finding]:
    from msd_core.execution.gate import PASSING, recorded

    g = recorded(t.root, limit=1)
    base = ".planning/.msd/gate"
    if g["last_error"]:
        return [Finding("gate-record-unreadable", f"{base}/last.json", g["last_error"])]
    last = g["last"]
    status = last.get("status") if last else None
    failing = last is not None and status not in PASSING
    if g["failed_marker"] != failing:
        why = (f"the last run {status}, but no failed marker says so" if failing else
               f"the marker says the suite fails, but the last run {status or 'is not recorded'}")
        return [Finding("gate-marker-stale", f"{base}/failed", why, failing=failing, status=status)]
    return []


def run_records(t: Tree) -> list[Finding]:
    from msd_core.execution.run_record import read_all

    names = {d.name for d in t.dirs}
    out = []
    for path, record, error in read_all(t.root):
        if error:
            out.append(Finding("run-record-unreadable", rel(t.root, path), error))
            continue
        folder = record.get("phase_dir")
        if isinstance(folder, str) and folder not in names:
            n = len(record.get("commits") or [])
            out.append(Finding("run-record-orphaned", rel(t.root, path),
                               f"plan {record.get('plan')} recorded {n} commit(s) for {folder}, which no longer exists"))
    return out


def chain_tickets(t: Tree) -> list[Finding]:
    from msd_core.paths import CHAIN_TICKET_SUFFIX as TICKET_SUFFIX
    from msd_core.paths import chain_dir

    folder = chain_dir(t.root)
    out = []
    now = time.time()
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return out
    for e in entries:
        if e.name.endswith(TICKET_SUFFIX) and e.is_file(follow_symlinks=False):
            if now - e.stat(follow_symlinks=False).st_mtime > TICKET_LEFT_SECONDS:
                out.append(Finding("chain-ticket-left", rel(t.root, Path(e.path)),
                                   f"step {e.name[:-len(TICKET_SUFFIX)]} never reported: the chain stopped during it"))
    return out


CHECKS = (interrupted, working_files, flow_state, gate, run_records, chain_tickets)
