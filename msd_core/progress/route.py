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
    A phase is done when ROADMAP.md checks it, or when it is summarised and verified
    without gaps (or the verifier is off), or when it is fully summarised and a later
    phase holds a SUMMARY. A phase that is still not done but lies before the
    last phase holding a SUMMARY was passed over (the project moved on): it is listed in
    `passed_over`, not routed to.
 4b. the regression gate's last run did not pass (`.planning/.msd/gate/failed`), and the
    current phase (or, with every phase done, the last one holding a SUMMARY) is being
    executed or checked                               -> fix-tests (execute-phase: its gate and fix-up)
 5. every phase done: STATE.md says the milestone is archived / between milestones
                                                   -> new-milestone
                     no `*MILESTONE-AUDIT.md` newer than every SUMMARY
                                                   -> audit-milestone
                     otherwise                     -> complete-milestone

Claims (`.planning/claims.json`, msd_core.planning.claims): a phase another person holds (a
claim that is not stale) is passed by: the route goes to the first phase after it, in number
order, that is not done and nobody else holds (named in `claimed_by_others`, and the reason
says so); when every phase left is held -> claimed (`/msd-progress`). `ignore_claims` routes as
if there were none. Every claim is listed in `claims` (with `stale` and `mine`).

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
import re
from pathlib import Path

from msd_core import paths
from msd_core.lean.record import field, record

MAX_READ = 2 * 1024 * 1024
FINISHED_SUFFIXES = ("-SUMMARY.md", "-VERIFICATION.md", "-UAT.md", "SUMMARY.md", "VERIFICATION.md", "UAT.md")
NONE_WORDS = {"", "none", "n/a", "na", "-", "—", "null", "tbd", "nothing"}
GAP_STATUSES = {"gaps_found", "gaps", "diagnosed", "failed", "issues_found"}
HUMAN_STATUSES = {"human_needed", "needs_human", "human_verification"}
OPEN_UAT_STATUSES = {"testing", "in_progress", "partial"}
ARCHIVED_RE = re.compile(r"archived|between milestones|new[-_ ]milestone|next milestone|no active milestone|milestone[^.\n]{0,40}(shipped|complete)", re.I)
_STATUS_RE = re.compile(r"^\W*status\W*:\W*\s*([A-Za-z_]+)", re.I | re.M)


@record
class CheckFile:
    """The newest VERIFICATION or UAT file of a phase: where, its status word, when written."""

    kind: str  # "verification" | "uat"
    path: Path
    status: str | None
    mtime: float


@record
class PhaseInfo:
    number: str
    name: str = ""
    folder: Path | None = None
    roadmap_done: bool = False
    plans: list[str] = field(default_factory=list)
    unsummarised: list[str] = field(default_factory=list)
    summaries: int = 0
    has_context: bool = False
    verification: CheckFile | None = None
    uat: CheckFile | None = None
    deciding: CheckFile | None = None  # the check file the route was decided on
    newest_summary_mtime: float = 0.0

    def to_json(self, root: Path) -> dict:
        out = {"number": self.number, "name": self.name, "plans": len(self.plans), "summaries": self.summaries}
        if self.folder is not None:
            out["folder"] = str(self.folder.relative_to(root))
        if self.unsummarised:
            out["unsummarised"] = self.unsummarised
        for check in (self.verification, self.uat):
            if check is not None:
                out[check.kind] = str(check.path.relative_to(root))
                if check.status:
                    out[check.kind + "_status"] = check.status
        return out


def _read(path: Path, skipped: list[dict], root: Path) -> str | None:
    from msd_core.files.safe_read import read_regular

    try:
        if path.is_symlink():
            skipped.append({"file": str(path.relative_to(root)), "reason": "symlink not followed"})
            return None
        raw = read_regular(path, MAX_READ, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        skipped.append({"file": str(path.relative_to(root)), "reason": exc.strerror or str(exc)})
        return None
    return raw.decode("utf-8", errors="replace")


def _files(folder: Path) -> list[os.DirEntry]:
    try:
        return sorted((e for e in os.scandir(folder) if e.is_file(follow_symlinks=False)), key=lambda e: e.name)
    except OSError:
        return []


def _scan_phase(info: PhaseInfo, skipped: list[dict], root: Path, listings: dict | None = None) -> None:
    from msd_core.planning.discovery import plan_id_of_name

    entries = _files(info.folder)
    if listings is not None:
        listings[info.folder] = entries
    names = {e.name for e in entries}
    summaries = [e for e in entries if e.name.endswith("-SUMMARY.md") or e.name == "SUMMARY.md"]
    info.summaries = len(summaries)
    summarised = {plan_id_of_name(e.name) or "" for e in summaries}  # a bare SUMMARY.md: "" (no folder in the name)
    for e in entries:
        if e.name.endswith("-PLAN.md") or e.name == "PLAN.md":
            pid = plan_id_of_name(e.name) if e.name != "PLAN.md" else "PLAN"
            info.plans.append(e.name)
            if pid not in summarised and not (e.name == "PLAN.md" and "SUMMARY.md" in names):
                info.unsummarised.append(e.name)
    info.has_context = any(e.name.endswith("CONTEXT.md") for e in entries)
    if summaries:
        info.newest_summary_mtime = max(e.stat(follow_symlinks=False).st_mtime for e in summaries)
    for kind, suffix in (("verification", "VERIFICATION.md"), ("uat", "UAT.md")):
        found = [e for e in entries if e.name.endswith(suffix)]
        if not found:
            continue
        newest = max(found, key=lambda e: e.stat(follow_symlinks=False).st_mtime)
        text = _read(Path(newest.path), skipped, root)
        m = _STATUS_RE.search(text[:4000]) if text is not None else None
        check = CheckFile(kind, Path(newest.path), m.group(1).lower() if m else None,
                          newest.stat(follow_symlinks=False).st_mtime)
        setattr(info, kind, check)


def _verifier_on(cwd: Path, notes: list[str]) -> bool:
    try:
        from msd_core.config import store

        return bool(store.get_value("workflow.verifier", cwd))
    except Exception as exc:  # corrupt config: route on the default and say so
        message = getattr(exc, "message", str(exc))
        notes.append(f"config not read ({message}); assuming workflow.verifier = true")
        return True


def _phase_state(info: PhaseInfo, verifier: bool) -> str:
    if info.roadmap_done:
        return "done"
    if not info.plans:
        return "plan" if info.has_context else "discuss"
    if info.unsummarised:
        return "execute"
    checks = [c for c in (info.verification, info.uat) if c is not None]
    if not checks:
        return "verify" if verifier else "done"
    gaps = [c for c in checks if c.status in GAP_STATUSES]
    if gaps:
        still_open = [c for c in gaps if c.mtime >= info.newest_summary_mtime]
        info.deciding = max(still_open or gaps, key=lambda c: c.mtime)
        return "gaps" if still_open else "reverify"
    v, u = info.verification, info.uat
    if v is not None and v.status in HUMAN_STATUSES and (u is None or u.mtime < v.mtime or u.status in OPEN_UAT_STATUSES):
        info.deciding = v
        return "human"
    if u is not None and u.status in OPEN_UAT_STATUSES:
        info.deciding = u
        return "uat-open"
    return "done"


def _field(text: str, name: str) -> str | None:
    """First `Name: value` / `**Name:** value` / `name_with_underscores: value` line outside code fences,
    under any of the line's labels (state_labels: `Left off` / `Stopped at`)."""
    from msd_core.planning.state_labels import field_names

    label = "(?:" + "|".join(r"[ _]".join(re.escape(w) for w in n.split()) for n in field_names(name)) + ")"
    pattern = re.compile(rf"^[ \t]*(?:[-*][ \t]+)?(?:\*\*{label}(?::\*\*|\*\*:)|{label}:)[ \t]*(?P<val>.*?)[ \t]*$", re.I)
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        m = pattern.match(line)
        if m:
            return m.group("val").strip()
    return None


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


def _gate_failed(root: Path) -> str | None:
    """The failed gate run's line when `.planning/.msd/gate/failed` exists (msd_core.execution.gate)."""
    marker = paths.project_state_dir(root) / "gate" / "failed"
    try:
        if marker.is_symlink() or not marker.is_file():
            return None
        return marker.read_text(encoding="utf-8", errors="replace")[:200].strip() or "failed"
    except OSError:
        return None


def _audit_due(planning: Path, ordered) -> str | None:
    """Why the milestone needs an audit before it completes, or None (an audit newer than every SUMMARY)."""
    audits = [e for e in _files(planning) if e.name.endswith("MILESTONE-AUDIT.md")]
    newest = max((p.newest_summary_mtime for p in ordered), default=0.0)
    if not newest:
        return None
    if not audits:
        return "no milestone audit yet: check cross-phase wiring first"
    if max(e.stat(follow_symlinks=False).st_mtime for e in audits) < newest:
        return "summaries were written after the last milestone audit: audit again"
    return None


def _answer(route: str, command: str, reason: str, **extra) -> dict:
    out = {"route": route, "command": command, "reason": reason}
    out.update({k: v for k, v in extra.items() if v is not None})
    return out


def phase_states(root: Path, roadmap_text: str | None, skipped: list[dict], verifier: bool,
                 listings: dict | None = None):
    """(phases in order, [(phase, state)], passed-over numbers, current (phase, state) or None).

    The phases are ROADMAP.md's list plus the current `phases/` folders (rule 4 above);
    `msd_run next` routes on it and `msd_run state sync` derives STATE.md from it.
    `listings`, when given, receives each scanned folder's files (sorted DirEntry objects,
    which keep the stat results already taken) for a caller that reads the same folders."""
    from msd_core.planning.discovery import phase_dirs
    from msd_core.planning.roadmap import phase_sort_key, roadmap_phases

    planning = paths.planning_dir(root)
    phases: dict[str, PhaseInfo] = {}
    for rp in roadmap_phases(roadmap_text or ""):
        phases[rp.number] = PhaseInfo(rp.number, rp.name, roadmap_done=rp.done)
    unread: list = []
    for pd in phase_dirs(planning, unread):
        if pd.milestone is not None or pd.number is None:
            continue
        info = phases.setdefault(pd.number, PhaseInfo(pd.number, pd.slug))
        if info.folder is None:
            info.folder = pd.path
            info.name = info.name or pd.slug
    skipped.extend(s.to_dict(root) for s in unread if s.milestone is None)  # the same reasons for every reader
    for info in phases.values():
        if info.folder is not None:
            _scan_phase(info, skipped, root, listings)
    ordered = sorted(phases.values(), key=lambda p: phase_sort_key(p.number))
    states = [(p, _phase_state(p, verifier)) for p in ordered]
    last_active = max((i for i, p in enumerate(ordered) if p.summaries), default=-1)
    # before the last phase with a SUMMARY, a fully summarised phase counts as done
    states = [(p, "done" if i < last_active and s in ("verify", "reverify", "gaps", "human", "uat-open") else s)
              for i, (p, s) in enumerate(states)]
    passed_over = [p.number for i, (p, s) in enumerate(states) if s != "done" and i < last_active]
    current = next(((p, s) for i, (p, s) in enumerate(states) if s != "done" and i >= last_active), None)
    return ordered, states, passed_over, current


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


def decide(cwd: str | os.PathLike | None = None, install_root: str | None = None, *,
           ignore_claims: bool = False) -> dict:
    from msd_core.planning.roadmap import phase_sort_key

    base = Path(cwd).expanduser().absolute() if cwd else Path.cwd()
    root = paths.find_project_root(base)
    if root is None:
        return _answer("new-project", "/msd-new-project", f"no .planning/ folder at or above {base}")
    planning = paths.planning_dir(root)
    skipped: list[dict] = []
    notes: list[str] = []
    has_project = (planning / "PROJECT.md").is_file()
    has_roadmap = (planning / "ROADMAP.md").is_file()
    common = {"project_root": str(root)}
    if not has_project and not has_roadmap:
        return _answer("new-project", "/msd-new-project", ".planning/ holds neither PROJECT.md nor ROADMAP.md", **common)

    roadmap_text = _read(planning / "ROADMAP.md", skipped, root) if has_roadmap else None
    ordered, states, passed_over, current = phase_states(root, roadmap_text, skipped, _verifier_on(base, notes))
    unread = [s["file"] for s in skipped if s.get("blocks")]
    if unread:
        notes.append(f"the phase list is incomplete: {len(unread)} folder(s) where phases live could not be read "
                     f"({', '.join(unread[:3])}; see skipped); rename or move them for an exact answer")
    held = current
    current, claimed = _around_claims(root, states, current, common, notes, ignore_claims)
    done_count = sum(1 for _, s in states if s == "done")
    common.update({"phases_total": len(ordered), "phases_done": done_count})
    if passed_over:
        common["passed_over"] = passed_over
    running = flows_in_progress(root, notes)
    if running:
        common["flows_in_progress"] = [{"workflow": r["workflow"], "step": r["step"]} for r in running]
        common["resume"] = resume_of(running, install_root)
    debugging = sorted(e.name[:-3] for e in _files(planning / "debug") if e.name.endswith(".md"))
    if debugging:
        common["debug_open"] = debugging  # open /msd-debug sessions (k-lifecycle2)
    if skipped:
        common["skipped"] = skipped
    if notes:
        common["notes"] = notes

    # paused sessions
    handoffs = [e for e in _files(planning) if e.name.startswith(".continue-here") and e.name.endswith(".md")]
    if current is not None and current[0].folder is not None:
        handoffs += [e for e in _files(current[0].folder) if e.name.startswith(".continue-here") and e.name.endswith(".md")]
    if handoffs:
        rel = str(Path(handoffs[0].path).relative_to(root))
        return _answer("resume-work", "/msd-resume-work", f"a paused session left {rel}", resume_file=rel, **common)
    state_text = _read(planning / "STATE.md", skipped, root)
    if state_text is not None:
        stopped = _field(state_text, "Stopped at")
        target = _resume_target(_field(state_text, "Resume file"), root)
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

    gate_failed = _gate_failed(root)
    if gate_failed is not None:
        target = current[0] if current is not None else (ordered[last_active] if last_active >= 0 else None)
        if target is not None and (current is None or current[1] not in ("discuss", "plan")):
            return _answer("fix-tests", f"/msd-execute-phase {target.number}",
                           f"the regression gate did not pass ({gate_failed}): the suite must pass before phase "
                           f"{target.number} is verified or complete (`msd_run gate status` shows the output)",
                           phase=target.to_json(root), **common)

    if current is None:
        status = (_field(state_text, "Status") or "") if state_text else ""
        fm = re.search(r"^status:\s*(.+)$", state_text or "", re.M)
        parts = [x.strip() for x in (status, fm.group(1) if fm else "") if x and x.strip()]
        signal = " / ".join(dict.fromkeys(parts))
        if not ordered:
            return _answer("new-milestone", "/msd-new-milestone", "ROADMAP.md lists no phases: plan the next milestone", **common)
        tally = f"{done_count} of {len(ordered)} phases done" + (f", {len(passed_over)} passed over" if passed_over else "")
        if signal and ARCHIVED_RE.search(signal):
            return _answer("new-milestone", "/msd-new-milestone",
                           f"no phase is left to do ({tally}) and STATE.md says \"{signal[:100]}\": start the next milestone", **common)
        audit = _audit_due(planning, ordered)
        if audit:
            return _answer("audit-milestone", "/msd-audit-milestone", f"no phase is left to do ({tally}); {audit}", **common)
        return _answer("complete-milestone", "/msd-complete-milestone",
                       f"no phase is left to do ({tally}): complete the milestone", **common)

    info, state = current
    n = info.number
    label = f"phase {n}" + (f" ({info.name})" if info.name else "")
    if claimed:
        label += " (" + "; ".join(f"phase {c['phase']} is claimed by {c.get('by') or c.get('email')}" for c in claimed) + ")"
    previous = [p for p, s in states if s == "done" and phase_sort_key(p.number) < phase_sort_key(n)]
    after = f"; phase {previous[-1].number} is done" if previous and state in ("discuss", "plan") else ""
    extra = {"phase": info.to_json(root), "state": state, **common}
    if state == "discuss":
        return _answer("discuss-phase", f"/msd-discuss-phase {n}", f"{label} has no CONTEXT.md and no plans yet{after}", **extra)
    if state == "plan":
        return _answer("plan-phase", f"/msd-plan-phase {n}", f"{label} has a CONTEXT.md but no PLAN files{after}", **extra)
    if state == "execute":
        left = len(info.unsummarised)
        return _answer("execute-phase", f"/msd-execute-phase {n}",
                       f"{label}: {left} of {len(info.plans)} plans have no SUMMARY ({', '.join(info.unsummarised[:3])}"
                       + (", ..." if left > 3 else "") + ")", **extra)
    if state == "verify":
        return _answer("verify-work", f"/msd-verify-work {n}",
                       f"{label}: all {len(info.plans)} plans are summarised but there is no VERIFICATION or UAT file", **extra)
    check = info.deciding
    what = f"its {check.path.name}" if check is not None else "its verification"
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
        road = root / ".planning" / "ROADMAP.md"
        text = road.read_text(encoding="utf-8", errors="replace") if road.is_file() and not road.is_symlink() else ""
        _, _, _, current = phase_states(root, text, [], True)
    except Exception:  # a todo is never lost because the phase could not be worked out
        return None
    if current is None:
        return None
    from msd_core.planning.phase_ref import canonical_id

    return canonical_id(current[0].number)
