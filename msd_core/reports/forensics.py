"""`msd_run forensics [--text] [--write]`: after a failed or stuck run, what msd recorded and where it
went wrong, decided from the records (nothing is asked of a model).

    {"project", "position": {"phase", "state", "milestone"}, "verdict": the first finding's message or
     "nothing msd recorded went wrong", "findings": [{"code", "message", "evidence", "next"}],
     "timeline": [{"at", "source", "what"}] (newest last, at most MAX_EVENTS), "tokens": {...} | null}

The records read: flow runs (.planning/state.json: step history, current step, last update), the
regression gate (runs.jsonl, last.json, the failed marker), run records (commits per plan), chain
tickets and step results (.planning/.msd/chain/), an interrupted phase change (settle.pending),
the position model (lifecycle.where), the usage meter (tokens of the current phase) where present.

Findings, in the order they are reported (the first is the verdict; codes are stable):
  change-interrupted        a phase change's transaction or its STATE re-derivation was cut off
  gate-failed               the gate's last run did not pass (its output's tail is the evidence)
  gate-never-ran            the last gate run did not run the suite (unconfigured, unconfirmed)
  chain-step-unreported     a chain step's ticket has no result: the agent was killed or timed out
  plan-stopped-after-commits  a plan recorded commits but has no SUMMARY: the executor stopped mid-plan
  flow-stuck                a running flow nothing advanced for STUCK_HOURS
  flow-repeating            a flow's last steps repeat one step (a loop that does not converge)
  verification-gaps         the current phase's verification or UAT reports gaps
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from msd_core.reports import facts

MAX_EVENTS = 40
STUCK_HOURS = 6
REPEAT_RUN = 4  # the same step this many times in a row at the end of a flow's history
NOTHING = "nothing msd recorded went wrong"


def _flows(root: Path) -> tuple[dict, str | None]:
    from msd_core.errors import MsdError
    from msd_core.planning import flow_state as fs

    path = fs.default_state_path(root)
    if not os.path.lexists(path):
        return {}, None
    try:
        doc = fs.read_state(path)
    except MsdError as exc:
        return {}, exc.message
    return {k: v for k, v in doc.get("workflows", {}).items() if isinstance(v, dict)}, None


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _chain(root: Path) -> list[dict]:
    """[{"step", "ticket", "result": bool, "mtime"}] of the chain's tickets."""
    from msd_core.paths import CHAIN_RESULT_SUFFIX, CHAIN_TICKET_SUFFIX, chain_dir

    folder = chain_dir(root)
    try:
        entries = sorted((e for e in os.scandir(folder) if e.is_file(follow_symlinks=False)), key=lambda e: e.name)
    except OSError:
        return []
    names = {e.name for e in entries}
    out = []
    for e in entries:
        if e.name.endswith(CHAIN_TICKET_SUFFIX):
            step = e.name[:-len(CHAIN_TICKET_SUFFIX)]
            out.append({"step": step, "ticket": f".planning/.msd/chain/{e.name}",
                        "result": step + CHAIN_RESULT_SUFFIX in names, "mtime": e.stat(follow_symlinks=False).st_mtime})
    return out


def _tail(text, n: int = 6) -> str:
    lines = [x for x in (text or "").splitlines() if x.strip()]
    return "\n".join(lines[-n:])


def investigate(root: Path, *, config: Path | None = None, usage: bool = True, now: float | None = None) -> dict:
    from msd_core.execution.gate import PASSING, recorded, test_counts
    from msd_core.planning import flow_state as fs
    from msd_core.progress.lifecycle import where
    from msd_core.progress.settle import pending

    root = Path(root)
    now = time.time() if now is None else now
    w = where(root, read_state=False)
    findings: list[dict] = []
    events: list[dict] = []

    def find(code: str, message: str, evidence: str, nxt: str) -> None:
        findings.append({"code": code, "message": message, "evidence": evidence, "next": nxt})

    if pending(root):
        find("change-interrupted", "a phase change (insert, remove, move) was cut off before it finished",
             ".planning/.msd-core.txn or .planning/.msd/state-due", "msd_run health --repair")

    g = recorded(root, limit=20)
    for run in g["runs"]:
        events.append({"at": run.get("at"), "source": "gate", "what": f"gate {run.get('status')} ({run.get('label') or '-'})"})
    last = g["last"]
    if last is not None and last.get("status") not in PASSING:
        status = last.get("status")
        if status in ("unconfigured", "unconfirmed"):
            find("gate-never-ran", f"the last gate run ({last.get('label') or '-'}) did not run the suite: {status}",
                 ".planning/.msd/gate/last.json",
                 "msd_run gate detect, then msd_run gate confirm --command \"<cmd>\"")
        else:
            counts = test_counts(last)
            shown = f" ({counts['failed']} failed, {counts['errors']} errors)" if counts else ""
            find("gate-failed", f"the regression gate's last run {status} at {last.get('label') or '-'}{shown}",
                 _tail(last.get("tail")) or ".planning/.msd/gate/last.json", "fix the failing tests, then rerun the phase's execute step")

    for t in _chain(root):
        events.append({"at": _iso(t["mtime"]), "source": "chain", "what": f"step {t['step']} "
                       + ("reported" if t["result"] else "handed out, no result")})
        if not t["result"]:
            find("chain-step-unreported", f"chain step {t['step']} never reported its result: the agent was killed, "
                 "timed out or stopped without `msd_run step-report`", t["ticket"], "rerun the chain; it resumes at that step")

    commits, bad = facts.commits_by_phase(root)
    for rec in bad:
        events.append({"at": None, "source": "run-record", "what": f"{rec['file']} unreadable: {rec['error']}"})
    unsummarised = {}
    for info in w.phases:
        if info.folder is not None:
            for name in info.unsummarised:
                unsummarised[(info.folder.name, name[:-len("-PLAN.md")])] = info
    for folder, rec in sorted(commits.items()):
        for plan in rec["plans"]:
            if (folder, plan) in unsummarised:
                n = rec["by_plan"].get(plan, 0)
                find("plan-stopped-after-commits", f"plan {plan} recorded {n} commit(s) but has no SUMMARY: "
                     "its executor stopped part-way", f".planning/phases/{folder}/{plan}-PLAN.md",
                     f"msd_run recorded --plan {plan}, then /msd-execute-phase (it resumes the plan)")
        events.append({"at": None, "source": "run-record", "what": f"{folder}: {rec['commits']} commit(s) for {', '.join(rec['plans'])}"})

    flows, flow_error = _flows(root)
    if flow_error:
        events.append({"at": None, "source": "flow", "what": f".planning/state.json unreadable: {flow_error}"})
    for name, run in sorted(flows.items()):
        history = [h for h in run.get("history") or [] if isinstance(h, dict)]
        for h in history[-8:]:
            events.append({"at": h.get("at"), "source": "flow", "what": f"{name}: {h.get('step')} -> {h.get('next')}"})
        if run.get("status") == "done":
            continue
        updated = fs.parse_stamp(run.get("updated"))
        if updated is not None and now - updated > STUCK_HOURS * 3600:
            hours = int((now - updated) // 3600)
            find("flow-stuck", f"{name} has been at step {run.get('current')} for {hours} h with nothing advancing it",
                 ".planning/state.json", f"msd_run next-step --workflow {name} (or /msd-resume-work)")
        steps = [h.get("step") for h in history]
        if len(steps) >= REPEAT_RUN and len(set(steps[-REPEAT_RUN:])) == 1:
            find("flow-repeating", f"{name} ran step {steps[-1]} {REPEAT_RUN} times in a row: it does not converge",
                 ".planning/state.json", "read the step's last results in .planning/state.json; fix what it keeps reporting")

    if w.current is not None and w.current[1] == "gaps":
        info = w.current[0]
        evidence = info.deciding.path.relative_to(root).as_posix() if info.deciding is not None else info.number
        find("verification-gaps", f"phase {info.number}'s checks report gaps", evidence, f"/msd-plan-phase {info.number} --gaps")

    events = sorted((e for e in events if e["at"]), key=lambda e: str(e["at"])) + [e for e in events if not e["at"]]
    order = {c: i for i, c in enumerate(ORDER)}
    findings.sort(key=lambda f: order[f["code"]])
    position = {"phase": w.current[0].number if w.current else None, "state": w.current[1] if w.current else None,
                "milestone": w.milestone}
    tokens = None
    if usage:
        t = facts.tokens_by_phase(root, config)
        if t is not None:
            key = facts.phase_key(position["phase"]) if position["phase"] else None
            tokens = {"totals": t["totals"], "phase": t["by_phase"].get(key) if key else None}
    return {"project": str(root), "position": position,
            "verdict": findings[0]["message"] if findings else NOTHING,
            "findings": findings, "timeline": events[-MAX_EVENTS:], "tokens": tokens}


ORDER = ("change-interrupted", "gate-failed", "gate-never-ran", "chain-step-unreported", "plan-stopped-after-commits",
         "flow-stuck", "flow-repeating", "verification-gaps")


def text(out: dict) -> str:
    pos = out["position"]
    lines = ["# Forensics", "", f"Where: phase {pos['phase'] or '-'} ({pos['state'] or 'no phase left'}), "
             f"milestone {pos['milestone']}", f"Verdict: {out['verdict']}", ""]
    if out["findings"]:
        lines.append("## What went wrong")
        for f in out["findings"]:
            lines.append(f"- [{f['code']}] {f['message']}")
            ev = f["evidence"].replace("\n", "\n    ")
            lines.append(f"  evidence: {ev}")
            lines.append(f"  next: {f['next']}")
        lines.append("")
    if out["timeline"]:
        lines.append("## Timeline")
        lines += [f"- {e['at'] or '(no time)'} {e['source']}: {e['what']}" for e in out["timeline"]]
        lines.append("")
    tok = out.get("tokens")
    if tok:
        phase = tok.get("phase") or {}
        lines.append(f"Tokens: {tok['totals']['total']:,} in all; {phase.get('total', 0):,} in the current phase")
    return "\n".join(lines).rstrip() + "\n"


def write(root: Path, out: dict) -> str:
    """Write the text atomically to .planning/forensics/<UTC stamp>.md; the path, relative to the project."""
    from msd_core.files.atomic import atomic_write_text

    rel = f"forensics/{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.md"
    atomic_write_text(Path(root) / ".planning" / rel, text(out), anchor=Path(root))
    return f".planning/{rel}"
