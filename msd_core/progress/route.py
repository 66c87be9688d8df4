"""`msd_run next`: what the project should do next, decided from its `.planning/` files.

Rules, first match wins:

 1. no `.planning/` at or above cwd, or neither PROJECT.md nor ROADMAP.md in it
                                                   -> new-project
 2. a paused session: `.planning/.continue-here*.md`, a `.continue-here*.md` in the
    current phase's folder, or STATE.md with both `Left off:` and a `Handoff:` (older: `Stopped at:`, `Resume file:`)
    naming an existing file inside the project that is not a finished output
    (*-SUMMARY.md, *-VERIFICATION.md, *-UAT.md)     -> resume-work
 3. PROJECT.md without ROADMAP.md                   -> new-project (finish the roadmap)
 4. the current phase = the first phase, in number order, of ROADMAP.md's phase list
    and the current `phases/` folders that is not done:
      no PLAN and no CONTEXT.md                    -> discuss-phase
      no PLAN (CONTEXT.md present)                 -> plan-phase
      a PLAN without its SUMMARY                   -> execute-phase
      all summarised, no VERIFICATION/UAT (and workflow.verifier on)
                                                   -> verify-work
      a VERIFICATION (gaps_found, ...) or a UAT (issues_found, diagnosed) reports gaps,
      and no SUMMARY is newer than that file       -> plan-gaps (plan-phase --gaps)
      gaps, but SUMMARYs written after every file that reported them
                                                   -> verify-work (verify the fixes)
      VERIFICATION says human_needed and no UAT finished after it, or a UAT still
      `testing`                                    -> verify-work
    The VERIFICATION and the UAT file are read separately: user-found issues in a UAT
    are open even when the automated VERIFICATION passed.
    A review's file (`<NN>-SECURITY.md`, `<NN>-UI-REVIEW.md`) reports gaps the same way
    (-> plan-gaps, also on a ticked phase); SUMMARYs written after it -> the review again
    (secure-phase, ui-review). A review never stands in for the verification.
    A phase is done when ROADMAP.md checks it (unless its own files reopen it: a check
    reporting gaps, a plan newer than every SUMMARY without one), or when it is summarised
    and verified without gaps (or the verifier is off), or when it is fully summarised and
    a later phase holds a SUMMARY. A phase that is still not done but lies before the
    last phase holding a SUMMARY was passed over (the project moved on): it is listed in
    `passed_over`, not routed to, unless it was taken up again after every later phase's newest
    SUMMARY (a UAT with issues, gap plans, their SUMMARYs): then it is routed until verified.
    (The model: msd_core.progress.lifecycle.)
 4b. the regression gate's last run did not pass (`.planning/.msd/gate/failed`): the phase
    being executed or checked, else the last one holding a SUMMARY (the next phase not
    started, or every phase done)                  -> fix-tests (execute-phase: its gate and fix-up)
 5. ROADMAP.md lists no current phase (the milestone is archived), or every phase is
    done and STATE.md, written by another tool, says the milestone is archived
                                                   -> new-milestone
                     no `*MILESTONE-AUDIT.md` newer than every SUMMARY
                                                   -> audit-milestone
                     otherwise                     -> complete-milestone

Claims (`.planning/claims.json`, msd_core.planning.claims): a phase another person holds (a
claim that is not stale) is passed by: the route goes to the first phase after it, in number
order, that is not done and nobody else holds (named in `claimed_by_others`, and the reason
says so); when every phase left is held -> claimed (`/msd-progress`). `ignore_claims` routes as
if there were none. Every claim is listed in `claims` (with `stale` and `mine`).

Roots (msd_core.progress.cross_root): a phase whose ROADMAP.md block depends on a phase of another
`.planning/` root in the work tree (`Depends on: Phase 2 of services/api`) lists those in
`depends_on_roots`; while one is not done there, the phase is not ready to execute or verify:
-> wait-for-root (/msd-progress; the reason and `waiting_on[].next` name what `next` proposes in
that root, `run_in` the root), or /msd-health when the reference names no root or no phase.

Every answer has `route`, `command`, `reason`; phase answers add `phase` and `state`;
open debug sessions (`.planning/debug/*.md`) are named in `debug_open`; unfinished flow
runs in `.planning/state.json` are listed in `flows_in_progress` (workflow, step), and the one
updated last is the answer's `resume`: {workflow, step, command} with the command that gives that
step's instructions again (`msd_run next-step --workflow <w> [--root <install>]`), what a session
that lost its place (compaction, resume, clear) runs next. Files that cannot be read are
skipped and named in `skipped`. Nothing is written. Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core import paths
from msd_core.progress.lifecycle import REVIEW_COMMANDS, files_of, state_field, where

FINISHED_SUFFIXES = ("-SUMMARY.md", "-VERIFICATION.md", "-UAT.md", "SUMMARY.md", "VERIFICATION.md", "UAT.md")
NONE_WORDS = {"", "none", "n/a", "na", "-", "—", "null", "tbd", "nothing"}
MILESTONE_ROUTES = {"between": ("new-milestone", "/msd-new-milestone"), "audit": ("audit-milestone", "/msd-audit-milestone"),
                    "complete": ("complete-milestone", "/msd-complete-milestone")}


def _resume_target(value: str | None, root: Path) -> Path | None:
    if value is None:
        return None
    cleaned = value.strip().strip("`'\"*").strip()
    if cleaned.lower() in NONE_WORDS or " " in cleaned or len(cleaned) > 300:
        return None
    try:
        target = (root / cleaned).resolve()
    except (OSError, ValueError):
        return None
    base = root.resolve()
    if target != base and base not in target.parents:
        return None
    if not target.exists() or target.name.endswith(FINISHED_SUFFIXES):
        return None
    return target


def flows_in_progress(root: Path, notes: list[str]) -> list[dict]:
    """Workflow runs in `.planning/state.json` that have not reached done (resume them with next-step)."""
    from msd_core.errors import MsdError
    from msd_core.planning import flow_state as state_file

    try:
        doc = state_file.read_state(state_file.default_state_path(root))
    except MsdError as exc:
        notes.append(f"flow state not read ({exc.message})")
        return []
    out = []
    for name, run in sorted(doc.get("workflows", {}).items()):
        if isinstance(run, dict) and isinstance(run.get("current"), str) and run.get("status") != "done":
            out.append({"workflow": name, "step": run["current"], "updated": str(run.get("updated") or "")})
    return out


def resume_of(running: list[dict], install_root: str | None = None) -> dict | None:
    """The flow run to continue (the one updated last) and the command that continues it."""
    if not running:
        return None
    run = max(running, key=lambda r: (r.get("updated") or "", r["workflow"]))
    command = f"msd_run next-step --workflow {run['workflow']}"
    if install_root:
        import shlex

        command += f" --root {shlex.quote(str(install_root))}"
    return {"workflow": run["workflow"], "step": run["step"], "command": command}


def _answer(route: str, command: str, reason: str, **extra) -> dict:
    out = {"route": route, "command": command, "reason": reason}
    out.update({k: v for k, v in extra.items() if v is not None})
    return out


def _around_claims(root: Path, states, current, common: dict, notes: list[str], ignore: bool):
    """(the phase to route to, the phases passed because someone else holds them) (module doc)."""
    from msd_core.errors import MsdError
    from msd_core.planning import claims

    try:
        listed = claims.load(root)
    except MsdError as exc:
        notes.append(f"claims not read ({exc.message})")
        return current, []
    if not listed:
        return current, []
    try:
        me = claims.who(claims.identity(root))
    except MsdError:
        me = None
    viewed = claims.view(root, listed, me=me)
    common["claims"] = viewed
    if current is None or ignore:
        return current, []
    held = claims.held_by_others(viewed)
    at = next(i for i, (p, _s) in enumerate(states) if p is current[0])
    passed = []
    for p, s in states[at:]:
        if s == "done":
            continue
        if p.number not in held:
            return (p, s), passed
        passed.extend(held[p.number])
    return None, passed


WAIT_STATES = ("execute", "verify", "reverify")  # a phase with an unmet dependency on another root goes no further


def _other_roots(root: Path, number: str, roadmap_text: str | None, install_root: str | None, visiting: frozenset) -> list[dict]:
    """The phase's dependencies on other roots (progress.cross_root), each unmet one with the command the
    other root's `next` proposes (`next`: its health check when the reference is wrong)."""
    from msd_core.progress import cross_root

    deps = cross_root.dependencies(root, number, roadmap_text)
    for dep in deps:
        if dep["done"]:
            continue
        dep["next"] = "/msd-health"
        if dep["state"] not in (cross_root.MISSING_ROOT, cross_root.MISSING_PHASE, cross_root.INVALID) \
                and dep["path"] not in visiting:
            dep["next"] = decide(dep["path"], install_root, _visiting=visiting | {str(root)})["command"]
    return deps


def _wait(root: Path, label: str, unmet: list[dict], extra: dict) -> dict:
    from msd_core.progress.cross_root import ask_next, describe

    unmet = sorted(unmet, key=lambda d: d["next"] != "/msd-health")  # a wrong reference never clears: it comes first
    dep = unmet[0]
    where = dep["root"]
    if dep["next"] == "/msd-health":
        how = (f"fix phase {extra['phase']['number']}'s `Depends on:` line in ROADMAP.md "
               "(`msd_run health` names it; `msd_run workspace` lists the roots)")
    else:
        how = f"run {dep['next']} in {where} first (`{ask_next(dep, root)}`)"
    more = f" (and {len(unmet) - 1} more)" if len(unmet) > 1 else ""
    command = "/msd-health" if dep["next"] == "/msd-health" else "/msd-progress"  # never a command meant for another root
    return _answer("wait-for-root", command, f"{label} is not ready: {describe(dep)}{more}: {how}",
                   run_in=where, waiting_on=unmet, **extra)


def decide(cwd: str | os.PathLike | None = None, install_root: str | None = None, *,
           ignore_claims: bool = False, _visiting: frozenset = frozenset()) -> dict:
    from msd_core.planning.roadmap import phase_sort_key

    base = Path(cwd).expanduser().absolute() if cwd else Path.cwd()
    root = paths.find_project_root(base)
    if root is None:
        return _answer("new-project", "/msd-new-project", f"no .planning/ folder at or above {base}")
    planning = paths.planning_dir(root)
    has_project = (planning / "PROJECT.md").is_file()
    has_roadmap = (planning / "ROADMAP.md").is_file()
    common = {"project_root": str(root)}
    if not has_project and not has_roadmap:
        return _answer("new-project", "/msd-new-project", ".planning/ holds neither PROJECT.md nor ROADMAP.md", **common)

    from msd_core.progress.lifecycle import verifier_on

    notes: list[str] = []
    w = where(root, verifier=verifier_on(base, notes), roadmap_text=None if has_roadmap else "")
    notes += w.notes
    skipped = w.skipped
    ordered, states, current = w.phases, w.states, w.current
    held = current
    current, claimed = _around_claims(root, states, current, common, notes, ignore_claims)
    common.update({"phases_total": len(ordered), "phases_done": w.done_count})
    if w.passed_over:
        common["passed_over"] = w.passed_over
    running = flows_in_progress(root, notes)
    if running:
        common["flows_in_progress"] = [{"workflow": r["workflow"], "step": r["step"]} for r in running]
        common["resume"] = resume_of(running, install_root)
    debugging = sorted(e.name[:-3] for e in files_of(planning / "debug") if e.name.endswith(".md"))
    if debugging:
        common["debug_open"] = debugging  # open /msd-debug sessions (k-lifecycle2)
    if skipped:
        common["skipped"] = skipped
    if notes:
        common["notes"] = notes

    # paused sessions
    handoffs = [e for e in files_of(planning) if e.name.startswith(".continue-here") and e.name.endswith(".md")]
    if current is not None and current[0].folder is not None:
        handoffs += [e for e in files_of(current[0].folder) if e.name.startswith(".continue-here") and e.name.endswith(".md")]
    if handoffs:
        rel = str(Path(handoffs[0].path).relative_to(root))
        return _answer("resume-work", "/msd-resume-work", f"a paused session left {rel}", resume_file=rel, **common)
    state_text = w.state_text
    if state_text is not None:
        stopped = state_field(state_text, "Stopped at")
        target = _resume_target(state_field(state_text, "Resume file"), root)
        if stopped and stopped.lower() not in NONE_WORDS and target is not None:
            rel = str(target.relative_to(root.resolve()))
            return _answer("resume-work", "/msd-resume-work",
                           f"STATE.md stopped at \"{stopped[:120]}\" with resume file {rel}", resume_file=rel, **common)

    if not has_roadmap:
        return _answer("new-project", "/msd-new-project", "PROJECT.md exists but ROADMAP.md does not: finish the project setup", **common)
    if claimed:
        from msd_core.planning.claims import describe

        common["claimed_by_others"] = [describe(c) for c in claimed]
        if current is None and held is not None:
            return _answer("claimed", "/msd-progress",
                           "every phase left is claimed by someone else (" + "; ".join(describe(c) for c in claimed)
                           + "): coordinate with them, or `msd_run next --ignore-claims` to route anyway", **common)

    if w.shared:
        n, names = next(iter(w.shared.items()))
        return _answer("reconcile-phases", "/msd-health",
                       f"ROADMAP.md lists {len(names)} phases numbered {n} ({', '.join(names)}), as after two clones "
                       "each added one: renumber with `msd_run phase reconcile --dry-run`, then `msd_run phase reconcile`",
                       shared_numbers=w.shared, **common)
    if w.gate_target is not None:
        n = w.gate_target.number
        return _answer("fix-tests", f"/msd-execute-phase {n}",
                       f"the regression gate did not pass ({w.gate_failed}): the suite must pass before phase "
                       f"{n} is verified or complete (`msd_run gate status` shows the output)",
                       phase=w.gate_target.to_json(root), **common)

    if current is None:
        route, command = MILESTONE_ROUTES[w.milestone]
        reason = w.milestone_reason
        if w.milestone == "between" and ordered:
            reason += ": start the next milestone"
        elif w.milestone == "complete":
            reason += ": complete the milestone"
        return _answer(route, command, reason, **common)

    info, state = current
    n = info.number
    label = f"phase {n}" + (f" ({info.name})" if info.name else "")
    if claimed:
        label += " (" + "; ".join(f"phase {c['phase']} is claimed by {c.get('by') or c.get('email')}" for c in claimed) + ")"
    previous = [p for p, s in states if s == "done" and phase_sort_key(p.number) < phase_sort_key(n)]
    after = f"; phase {previous[-1].number} is done" if previous and state in ("discuss", "plan") else ""
    extra = {"phase": info.to_json(root), "state": state, **common}
    others = _other_roots(root, n, w.roadmap_text, install_root, _visiting)
    if others:
        extra["depends_on_roots"] = others
        unmet = [d for d in others if not d["done"]]
        if unmet and state in WAIT_STATES:
            return _wait(root, label, unmet, extra)
    if state == "discuss":
        return _answer("discuss-phase", f"/msd-discuss-phase {n}", f"{label} has no CONTEXT.md and no plans yet{after}", **extra)
    if state == "plan":
        return _answer("plan-phase", f"/msd-plan-phase {n}", f"{label} has a CONTEXT.md but no PLAN files{after}", **extra)
    if state == "execute":
        left = len(info.unsummarised)
        if not left and info.unproven:  # summarised, but msd saw no proof: execute the plan again
            return _answer("execute-phase", f"/msd-execute-phase {n}",
                           f"{label}: " + "; ".join(u["reason"] for u in info.unproven[:3])
                           + ("; ..." if len(info.unproven) > 3 else ""), **extra)
        return _answer("execute-phase", f"/msd-execute-phase {n}",
                       f"{label}: {left} of {len(info.plans)} plans have no SUMMARY ({', '.join(info.unsummarised[:3])}"
                       + (", ..." if left > 3 else "") + ")", **extra)
    if state == "verify":
        return _answer("verify-work", f"/msd-verify-work {n}",
                       f"{label}: all {len(info.plans)} plans are summarised but there is no VERIFICATION or UAT file", **extra)
    check = info.deciding
    what = f"its {check.path.name}" if check is not None else "its verification"
    if state == "reverify" and check is not None and check.kind in REVIEW_COMMANDS:
        route = REVIEW_COMMANDS[check.kind]
        return _answer(route, f"/msd-{route} {n}",
                       f"{label}: summaries were written after {what} reported {check.status}: review the fixes", **extra)
    if state == "reverify":
        return _answer("verify-work", f"/msd-verify-work {n}",
                       f"{label}: summaries were written after {what} reported {check.status}: verify the fixes", **extra)
    if state == "human":
        return _answer("verify-work", f"/msd-verify-work {n}",
                       f"{label}: {what} says {check.status}: a person must check what code could not", **extra)
    if state == "uat-open":
        return _answer("verify-work", f"/msd-verify-work {n}",
                       f"{label}: {what} is still {check.status}: finish the acceptance tests", **extra)
    return _answer("plan-gaps", f"/msd-plan-phase {n} --gaps",
                   f"{label}: {what} reports {check.status}: plan the gap fixes", **extra)


def current_phase(root: Path) -> str | None:
    """The phase `msd_run next` would route to (None when there is none or it cannot be read)."""
    try:
        current = where(root, verifier=True, read_state=False).current
    except Exception:  # a todo is never lost because the phase could not be worked out
        return None
    if current is None:
        return None
    from msd_core.planning.phase_ref import canonical_id

    return canonical_id(current[0].number)
