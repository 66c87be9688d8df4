"""`msd_run health --repair`: the safe repairs, in ONE transaction of msd_core.files.txn.

What is repaired (codes with a `repair` in msd_core.health.codes), and how:

  change-interrupted   rolled back or finished first (msd_core.progress.settle), before anything is planned
  temp-orphaned        the temp file is deleted
  flow-run-malformed,  the run leaves .planning/state.json; the runs taken out are kept, as they were,
  flow-run-orphaned    in .planning/.msd/aside/state-<stamp>.json (written in the same transaction)
  gate-marker-stale    .planning/.msd/gate/failed is written or removed to follow last.json
  state-stale          the transaction records STATE.md as due (.planning/.msd/state-due, as phase
                       surgery does); its derived lines are re-derived right after (state sync) and the
                       record removed; a process killed in between leaves the record, and the next
                       msd_run call re-derives first

Everything else is reported, never changed. The findings are computed again under the locks
(the flow state's, the gate's, STATE.md's; taken in that order, each only when needed), the
transaction is applied, and the project is checked once more: the report lists what was
repaired and what is left. `dry_run` plans and writes nothing.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

from msd_core.health import check
from msd_core.health.codes import Finding

FLOW_CODES = ("flow-run-malformed", "flow-run-orphaned")
ASIDE_DIR = ".msd/aside"


class Plan:
    """The repairs of one set of findings: the transaction's puts and deletes, and what each is for."""

    def __init__(self):
        self.puts: dict[str, bytes] = {}
        self.deletes: list[str] = []
        self.actions: list[dict] = []
        self.state_due = False

    def act(self, finding: Finding, action: str) -> None:
        self.actions.append({"code": finding.code, "file": finding.file, "action": action})


def _under_planning(file: str) -> str:
    return file[len(".planning/"):] if file.startswith(".planning/") else file


def plan(root: Path, found: list[Finding]) -> Plan:
    from msd_core.execution.gate import PASSING, recorded
    from msd_core.planning import flow_state as fs

    p = Plan()
    flow = [f for f in found if f.code in FLOW_CODES]
    if flow:
        path = fs.default_state_path(root)
        doc = fs.read_state(path)
        gone = {}
        for f in flow:
            name = f.data["workflow"]
            if name in doc["workflows"] and name not in gone:
                gone[name] = doc["workflows"].pop(name)
                p.act(f, f"set aside the {name} run")
        if gone:
            stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
            p.puts["state.json"] = (json.dumps(doc, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
            p.puts[f"{ASIDE_DIR}/state-{stamp}.json"] = (json.dumps({"from": ".planning/state.json", "workflows": gone},
                                                                    ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    for f in found:
        if f.code == "temp-orphaned":
            p.deletes.append(_under_planning(f.file))
            p.act(f, "delete it")
        elif f.code == "gate-marker-stale":
            last = recorded(root, limit=1)["last"]
            rel = _under_planning(f.file)
            if last is not None and last.get("status") not in PASSING:
                p.puts[rel] = (str(last.get("status")) + " " + str(last.get("label", "")) + "\n").encode("utf-8")
                p.act(f, "write the marker: the last run did not pass")
            else:
                p.deletes.append(rel)
                p.act(f, "remove the marker: the last run passed or none is recorded")
        elif f.code == "state-stale":
            p.state_due = True
            p.act(f, "re-derive STATE.md's derived lines (state sync)")
    return p


def _locks(root: Path, found: list[Finding], stack: contextlib.ExitStack) -> None:
    from msd_core.files.atomic import lock_timeout_from_env, locked
    from msd_core.planning import flow_state as fs
    from msd_core.planning import project

    codes = {f.code for f in found}
    timeout = lock_timeout_from_env()
    if codes & set(FLOW_CODES):
        stack.enter_context(fs.state_lock(root, fs.default_state_path(root)))
    if "gate-marker-stale" in codes:
        folder = project.private_dir(root) / "gate"
        stack.enter_context(locked(folder / "gate.lock", timeout, what="the gate record", anchor=root))
    stack.enter_context(locked(project.state_lock(root), timeout, what="STATE.md", anchor=root))


def repair(root: Path, *, dry_run: bool = False) -> dict:
    """Plan (and unless `dry_run` apply) the safe repairs; the report of what was done and what is left."""
    from msd_core.progress.settle import settle

    root = Path(root)
    before = check.findings(root)
    if dry_run:
        p = plan(root, before)
        settle_action = [{"code": f.code, "file": f.file, "action": "roll back or finish the change, re-derive STATE.md"}
                         for f in before if f.code == "change-interrupted"]
        out = check.report(root, before)
        out["repair"] = {"dry_run": True, "planned": settle_action + p.actions}
        return out
    done: list[dict] = []
    if any(f.code == "change-interrupted" for f in before):
        note = settle(root)
        done.append({"code": "change-interrupted", "file": ".planning", "action": note or "nothing was pending"})
        before = check.findings(root)
    written: list[str] = []
    deleted: list[str] = []
    state = None
    if any(f.code in ("temp-orphaned", "gate-marker-stale", "state-stale", *FLOW_CODES) for f in before):
        with contextlib.ExitStack() as stack:
            _locks(root, before, stack)
            found = check.findings(root)  # again, under the locks
            p = plan(root, found)
            state = _apply(root, p)
            done += p.actions
            written, deleted = sorted(p.puts), list(p.deletes)
    after = check.findings(root)
    out = check.report(root, after)
    out["repair"] = {"dry_run": False, "repaired": done, "written": [f".planning/{w}" for w in written],
                     "deleted": [f".planning/{d}" for d in deleted]}
    if state is not None:
        out["repair"]["state"] = state
    return out


def _apply(root: Path, p: Plan) -> dict | None:
    """Apply the plan in one transaction (the caller holds the locks); then re-derive STATE.md when due."""
    from msd_core.errors import MsdError
    from msd_core.files import txn
    from msd_core.files.private_dir import ensure_private_dir
    from msd_core.planning import phase_ops
    from msd_core.progress.state_sync import sync

    changes = txn.Changes(puts=dict(p.puts), deletes=list(p.deletes))
    if p.state_due:
        changes.puts[phase_ops.STATE_DUE_REL] = (json.dumps({"op": "health-repair", "pid": _pid(), "at": time.time_ns()})
                                                 + "\n").encode("utf-8")
    if changes.empty():
        return None
    if any(rel.startswith(".msd/") for rel in changes.puts):
        ensure_private_dir(root)  # its own .gitignore first: git never sees msd's private files
    txn.apply(root / ".planning", changes)
    if not p.state_due:
        return None
    record = phase_ops.state_due(root)
    try:
        synced = sync(root, lock_held=True, warnings=False)
    except MsdError as exc:
        return {"synced": False, "error": exc.message}
    phase_ops.clear_state_due(root, record)
    return {"synced": synced["written"], "changed": [c["field"] for c in synced["changed"]]}


def _pid() -> int:
    import os

    return os.getpid()
