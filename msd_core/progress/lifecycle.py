"""Where the project stands: the one model `msd_run next`, `state sync`, `step-done` and `commit` ask.

Everything is decided from the project's files; nothing here writes.

Phase lifecycle (`phase_state`), from the files of the phase folder:

    discuss   no PLAN and no CONTEXT.md          plan      no PLAN, a CONTEXT.md
    execute   a PLAN without its SUMMARY          verify    all summarised, no VERIFICATION/UAT (verifier on)
    gaps      a VERIFICATION (gaps_found, ...) or a UAT (issues_found, diagnosed) reports gaps
              and no SUMMARY is newer than it
    reverify  gaps were reported, but SUMMARYs were written after every file that reported them
    human     the VERIFICATION says human_needed and no UAT finished after it
    uat-open  a UAT `testing` or `partial`         done      summarised and verified without gaps
                                                            (or the verifier is off)

  Each step asks one question of the evidence: `planned`, `executed`, `verification`.
  `executed` is "every PLAN has its SUMMARY and, for a SUMMARY written since msd began executing
  the project, its proof" (msd_core.progress.evidence: recorded commits of the plan touching its
  files_modified, or a recorded deviation); a summarised plan without it is `unproven` and keeps
  the phase in `execute` (a ticked phase too: `reopened`), the reason in `next`'s JSON.
  The VERIFICATION and the UAT are read separately: issues a user found in a UAT are open even
  when the automated VERIFICATION passed. A check file's status is its evidence's
  (`evidence_status`, msd_core.planning.check_status): a UAT's is derived from its test rows (a
  row with an issue, pending, skipped or blocked is never `complete`), a VERIFICATION whose
  machine part (`msd_run verify`) failed or was edited reads `gaps_found`, whatever the file's
  own status word says. That part judges the tests too: `msd_run verify` runs the regression
  gate on the tree checked out then (a failing or zero-test suite, or no known test command, fails
  it), so a phase verified while its tests fail is never done.
  A review's file (`<NN>-SECURITY.md`, `<NN>-UI-REVIEW.md`, msd_core.review.findings) reports gaps
  the same way (`status: gaps_found` -> gaps; SUMMARYs written after it -> reverify, which
  `next` routes back to the review: REVIEW_COMMANDS). It counts once a VERIFICATION or UAT
  exists, or on a ticked phase (its gaps reopen it); it never stands in for the verification.

  ROADMAP.md's tick (`- [x] Phase 2`) counts as done, unless the phase's own files reopen it
  (`reopened`): a VERIFICATION or UAT that reports gaps, a UAT whose rows hold a test that did
  not run or pass (`partial`), or a PLAN without its SUMMARY written
  after the newest SUMMARY (gap plans, a review's fix plan), or plans none of which has a
  SUMMARY (an undone phase). A ticked phase that the
  evidence reopens is routed like any other (so UAT issues found after execute-phase
  ticked the phase are not lost).

Project position (`where`): ROADMAP.md's phase list plus the current `phases/` folders, in
number order; a ticked roadmap phase without a current folder whose number is an archived
milestone's folder belongs to that milestone, not to this one. The current phase is the first
not done at or after the last phase holding a SUMMARY; a phase before it that is not done was
passed over (the project moved on): listed, never routed to. Fully summarised phases before it
count as done. A phase before it that was worked on after every later phase's newest SUMMARY (a UAT
reporting issues, gap plans, their SUMMARYs: `_taken_up_again`) is neither: the project came back
to it, and it is routed (the first such phase is the current one).

Gate outcome: `.planning/.msd/gate/failed` (msd_core.execution.gate) exists exactly while the
regression gate's last run did not pass. While it does, the phase whose work the suite judged
(the current one when it is being executed or checked, else the last one holding a SUMMARY:
the next phase is not started, or every phase is done) is `gate_target`: its status is
"Tests failing", its roadmap line is not ticked, and `next` routes to its execute-phase.

Milestone lifecycle (`Where.milestone`):

    open      a phase is left
    audit     every phase is done and no `*MILESTONE-AUDIT.md` is newer than every SUMMARY
    complete  every phase is done and audited: complete-milestone is next
    between   ROADMAP.md lists no current phase (the milestone was archived, or none is planned),
              or STATE.md, written by another tool, says the milestone is archived or shipped

Statuses (`status`): STATE.md's `Status:` line is derived from this model by `state sync`.
A workflow sets a status itself (`msd_run state patch --status`) only when it is one of
`KEPT_STATUSES`, which the model derives too, so the next sync keeps it; any other status
a workflow set would be replaced by the next sync (`msd check content` refuses it in content).

Standard library only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from msd_core import paths
from msd_core.lean.record import field, record

MAX_READ = 2 * 1024 * 1024
GAP_STATUSES = {"gaps_found", "gaps", "diagnosed", "failed", "issues_found"}
HUMAN_STATUSES = {"human_needed", "needs_human", "human_verification"}
OPEN_UAT_STATUSES = {"testing", "in_progress", "partial"}
ARCHIVED_RE = re.compile(r"archived|between milestones|new[-_ ]milestone|next milestone|no active milestone|"
                         r"milestone[^.\n]{0,40}(shipped|complete)", re.I)
_STATUS_RE = re.compile(r"^\W*status\W*:\W*\s*([A-Za-z_]+)", re.I | re.M)
# reviews whose findings become gaps (msd_core.review.findings): (kind, file suffix), and the
# command that reviews again once the gap plans ran
REVIEW_FILES = (("security", "SECURITY.md"), ("ui-review", "UI-REVIEW.md"))
REVIEW_COMMANDS = {"security": "secure-phase", "ui-review": "ui-review"}

# STATE.md's Status line, per phase state and milestone state
PHASE_STATUS = {
    "discuss": "Ready to discuss",
    "plan": "Ready to plan",
    "execute": "Ready to execute",  # "In progress" once a plan of the phase has a SUMMARY
    "verify": "Ready to verify",
    "reverify": "Ready to verify the fixes",
    "gaps": "Gaps found",
    "human": "Needs human verification",
    "uat-open": "Acceptance testing",
}
IN_PROGRESS = "In progress"
PLANNING = "Planning"
TESTS_FAILING = "Tests failing"
MILESTONE_STATUS = {
    "audit": "Ready to audit the milestone",
    "complete": "Ready to complete the milestone",
    "between": "Between milestones",
}
MILESTONE_FOCUS = {"audit": "Milestone audit", "complete": "Milestone completion", "between": "Next milestone"}
# statuses a workflow may set with `state patch --status`: the model derives each of them too,
# so the next `state sync` keeps it (value: when it holds)
KEPT_STATUSES = {TESTS_FAILING: "the regression gate's last run did not pass (.planning/.msd/gate/failed)"}
# what earlier versions of `state sync` wrote when every phase was done: not a sign of an archive
_LEGACY_DERIVED = {"milestone complete"}
DERIVED_STATUSES = frozenset({*PHASE_STATUS.values(), IN_PROGRESS, PLANNING, TESTS_FAILING, *MILESTONE_STATUS.values()})


@record
class CheckFile:
    """The newest VERIFICATION or UAT file of a phase: where, its status word, when written."""

    kind: str  # "verification" | "uat" | a review's (REVIEW_FILES)
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
    deciding: CheckFile | None = None  # the check file the state was decided on
    newest_summary_mtime: float = 0.0
    newest_open_plan_mtime: float = 0.0  # the newest PLAN without its SUMMARY
    evidence: str = ""  # the state from the phase's own files, the roadmap's tick not counted
    reviews: list = field(default_factory=list)  # CheckFile per review file found (REVIEW_FILES)
    unproven: list = field(default_factory=list)  # summarised plans without their evidence (progress.evidence)

    def to_json(self, root: Path) -> dict:
        out = {"number": self.number, "name": self.name, "plans": len(self.plans), "summaries": self.summaries}
        if self.folder is not None:
            out["folder"] = str(self.folder.relative_to(root))
        if self.unsummarised:
            out["unsummarised"] = self.unsummarised
        if self.unproven:
            out["unproven"] = self.unproven
        for check in (self.verification, self.uat, *self.reviews):
            if check is not None:
                out[check.kind] = str(check.path.relative_to(root))
                if check.status:
                    out[check.kind + "_status"] = check.status
        return out


@record
class Where:
    """The project's position: phases in order with their states, the current one, the gate, the milestone."""

    root: Path
    phases: list  # PhaseInfo, in number order
    states: list  # (PhaseInfo, state) in the same order
    passed_over: list  # numbers of phases not done that lie before the last one holding a SUMMARY
    current: tuple | None  # (PhaseInfo, state) or None: no phase left
    last_active: int  # index of the last phase holding a SUMMARY (-1: none)
    verifier: bool
    gate_failed: str | None  # the failed gate run's line
    gate_target: PhaseInfo | None  # the phase the failing suite holds back
    milestone: str  # open | audit | complete | between
    milestone_reason: str = ""
    state_text: str | None = None  # STATE.md, when read
    skipped: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    roadmap_text: str | None = None  # ROADMAP.md, as the model read it
    shared: dict = field(default_factory=dict)  # {number: names} of phases ROADMAP.md lists twice (a merge of two clones)

    @property
    def done_count(self) -> int:
        return sum(1 for _p, s in self.states if s == "done")


# ------------------------------------------------------------------ reading files


def read_text(path: Path, skipped: list[dict], root: Path) -> str | None:
    """The file as text; None when absent; a symlink or an unreadable file is named in `skipped`."""
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


def files_of(folder: Path) -> list[os.DirEntry]:
    """The regular files of a folder (symlinks not followed), by name; [] when it cannot be listed."""
    try:
        return sorted((e for e in os.scandir(folder) if e.is_file(follow_symlinks=False)), key=lambda e: e.name)
    except OSError:
        return []


def verifier_on(cwd: Path, notes: list[str]) -> bool:
    try:
        from msd_core.config import store

        return bool(store.get_value("workflow.verifier", cwd))
    except Exception as exc:  # corrupt config: decide on the default and say so
        message = getattr(exc, "message", str(exc))
        notes.append(f"config not read ({message}); assuming workflow.verifier = true")
        return True


def _scan_phase(info: PhaseInfo, skipped: list[dict], root: Path, listings: dict | None = None,
                proof=None) -> None:
    """`proof`: the evidence reading (progress.evidence.Reading) when SUMMARYs written since msd began executing need it."""
    from msd_core.planning.discovery import plan_id_of_name

    entries = files_of(info.folder)
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
                info.newest_open_plan_mtime = max(info.newest_open_plan_mtime, e.stat(follow_symlinks=False).st_mtime)
            elif proof is not None:
                _prove(info, e, proof, skipped, root)
    info.has_context = any(e.name.endswith("CONTEXT.md") for e in entries)
    if summaries:
        info.newest_summary_mtime = max(e.stat(follow_symlinks=False).st_mtime for e in summaries)
    for kind, suffix in (("verification", "VERIFICATION.md"), ("uat", "UAT.md"), *REVIEW_FILES):
        found = [e for e in entries if e.name.endswith(suffix)]
        if not found:
            continue
        newest = max(found, key=lambda e: e.stat(follow_symlinks=False).st_mtime)
        text = read_text(Path(newest.path), skipped, root)
        m = _STATUS_RE.search(text[:4000]) if text is not None else None
        check = CheckFile(kind, Path(newest.path), evidence_status(kind, text, m.group(1).lower() if m else None),
                          newest.stat(follow_symlinks=False).st_mtime)
        if kind in REVIEW_COMMANDS:
            info.reviews.append(check)
        else:
            setattr(info, kind, check)


def evidence_status(kind: str, text: str | None, written: str | None) -> str | None:
    """The status a check file's evidence supports (msd_core.planning.check_status): a UAT's from
    its rows, a VERIFICATION's `gaps_found` while its machine part failed or was edited."""
    if text is None:
        return written
    from msd_core.planning import check_status

    if kind == "uat":
        return check_status.uat_status(text, written)
    return check_status.verification_status(text, written)


def _prove(info: PhaseInfo, plan: os.DirEntry, proof, skipped: list[dict], root: Path) -> None:
    """Add the summarised `plan` to `info.unproven` when its SUMMARY is one msd must see proven and is not."""
    from msd_core.planning.discovery import plan_id

    if not proof.asks():
        return
    lack = proof.unproven(info.folder, plan_id(Path(plan.path)), read_text(Path(plan.path), skipped, root))
    if lack is not None:
        info.unproven.append(lack)


# ------------------------------------------------------------------ the phase lifecycle


def planned(info: PhaseInfo) -> bool:
    """The phase has plans."""
    return bool(info.plans)


def executed(info: PhaseInfo) -> bool:
    """Every plan of the phase ran: it has its SUMMARY and, when msd executed it, its evidence
    (recorded commits touching its files_modified: progress.evidence)."""
    return bool(info.plans) and not info.unsummarised and not info.unproven


def verification(info: PhaseInfo, verifier: bool) -> str:
    """The outcome of the checks of an executed phase: done | verify | gaps | reverify | human | uat-open.
    Sets `info.deciding` to the file the outcome was read from. A review's file counts once a
    VERIFICATION or UAT exists, or on a ticked phase: it never stands in for the verification."""
    checks = [c for c in (info.verification, info.uat) if c is not None]
    if not checks and not (info.roadmap_done and info.reviews):
        return "verify" if verifier else "done"
    checks += info.reviews
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


def evidence_state(info: PhaseInfo, verifier: bool) -> str:
    """The phase's state from its own files (the roadmap's tick not counted)."""
    if not planned(info):
        return "plan" if info.has_context else "discuss"
    if not executed(info):
        return "execute"
    return verification(info, verifier)


def reopened(info: PhaseInfo) -> bool:
    """A ticked phase its own files reopen: a check or a review reports gaps, or a plan without its
    SUMMARY that is newer than every SUMMARY (a gap or fix plan; every plan, when no SUMMARY is left: undone)."""
    if any(c is not None and c.status in GAP_STATUSES for c in (info.verification, info.uat, *info.reviews)):
        return True
    if info.uat is not None and info.uat.status == "partial":  # its rows say a test did not run or pass
        return True
    if info.unproven:
        return True  # a SUMMARY msd must see proven, without its commits
    return bool(info.unsummarised and (not info.summaries or info.newest_open_plan_mtime > info.newest_summary_mtime))


def phase_state(info: PhaseInfo, verifier: bool) -> str:
    info.evidence = evidence_state(info, verifier)
    if info.roadmap_done and not (info.folder is not None and reopened(info)):
        return "done"
    return info.evidence


# ------------------------------------------------------------------ the project


def _activity(info: PhaseInfo, state: str) -> float:
    """When the work that puts a phase in `state` was written: the check file that reports its gaps
    or asks for a person, its newest open PLAN, or its newest SUMMARY (to verify, to verify again)."""
    if state in ("gaps", "human", "uat-open"):
        return info.deciding.mtime if info.deciding is not None else 0.0
    if state == "execute":
        return info.newest_open_plan_mtime
    if state in ("verify", "reverify"):
        return info.newest_summary_mtime
    return 0.0


def _taken_up_again(states: list, last_active: int) -> set[int]:
    """Indexes of phases before the last one holding a SUMMARY that were worked on after every later
    phase's newest SUMMARY: the project came back to them (issues a person found, gap plans, their
    SUMMARYs), so they are routed again instead of being passed over or counted done."""
    out: set[int] = set()
    later = 0.0
    for i in range(len(states) - 1, -1, -1):
        info, state = states[i]
        if i < last_active and state != "done" and later and _activity(info, state) > later:
            out.add(i)
        later = max(later, info.newest_summary_mtime)
    return out


def gate_failed(root: Path) -> str | None:
    """The failed gate run's line when `.planning/.msd/gate/failed` exists (msd_core.execution.gate)."""
    marker = paths.project_state_dir(root) / "gate" / "failed"
    try:
        if marker.is_symlink() or not marker.is_file():
            return None
        from msd_core.files.safe_read import read_head

        return read_head(marker, 800, follow_symlinks=False).decode("utf-8", "replace")[:200].strip() or "failed"
    except OSError:
        return None


def _audit_due(planning: Path, ordered) -> str | None:
    """Why the milestone needs an audit before it completes, or None (an audit newer than every SUMMARY)."""
    audits = [e for e in files_of(planning) if e.name.endswith("MILESTONE-AUDIT.md")]
    newest = max((p.newest_summary_mtime for p in ordered), default=0.0)
    if not newest:
        return None
    if not audits:
        return "no milestone audit yet: check cross-phase wiring first"
    if max(e.stat(follow_symlinks=False).st_mtime for e in audits) < newest:
        return "summaries were written after the last milestone audit: audit again"
    return None


def state_field(text: str, name: str) -> str | None:
    """First `Name: value` / `**Name:** value` / `name_with_underscores: value` line outside code fences,
    under any of the line's labels (state_labels: `Left off` / `Stopped at`)."""
    from msd_core.planning.md_lines import prose_lines
    from msd_core.planning.state_labels import field_names

    label = "(?:" + "|".join(r"[ _]".join(re.escape(w) for w in n.split()) for n in field_names(name)) + ")"
    pattern = re.compile(rf"^[ \t]*(?:[-*][ \t]+)?(?:\*\*{label}(?::\*\*|\*\*:)|{label}:)[ \t]*(?P<val>.*?)[ \t]*$", re.I)
    for _, line in prose_lines(text):
        m = pattern.match(line)
        if m:
            return m.group("val").strip()
    return None


def archive_signal(state_text: str | None) -> str | None:
    """What STATE.md says when another tool marked the milestone archived or shipped (msd's own derived
    statuses are not such a sign: the model derived them from the files)."""
    if not state_text:
        return None
    status = state_field(state_text, "Status") or ""
    fm = re.search(r"^status:\s*(.+)$", state_text, re.M)
    words = [x.strip() for x in (status, fm.group(1) if fm else "") if x and x.strip()]
    words = [w for w in words if w not in DERIVED_STATUSES and w.lower() not in _LEGACY_DERIVED]
    signal = " / ".join(dict.fromkeys(words))
    return signal if signal and ARCHIVED_RE.search(signal) else None


def _archived_numbers(dirs) -> set[str]:
    return {d.number for d in dirs if d.milestone is not None and d.number is not None}


def where(root: Path, *, verifier: bool | None = None, listings: dict | None = None, roadmap_text: str | None = None,
          read_state: bool = True) -> Where:
    """The project's position (see the module docstring). `listings`, when given, receives each scanned
    folder's files (sorted DirEntry objects, which keep the stat results already taken)."""
    from msd_core.planning.discovery import phase_dirs
    from msd_core.planning.roadmap import listed_twice, phase_sort_key, roadmap_phases

    root = Path(root)
    planning = paths.planning_dir(root)
    skipped: list[dict] = []
    notes: list[str] = []
    if roadmap_text is None:
        roadmap_text = read_text(planning / "ROADMAP.md", skipped, root)
    if verifier is None:
        verifier = verifier_on(root, notes)
    unread: list = []
    dirs = phase_dirs(planning, unread)
    skipped.extend(u.to_dict(root) for u in unread if u.milestone is None)  # the same reasons for every reader
    blocked = [s["file"] for s in skipped if s.get("blocks")]
    if blocked:
        notes.append(f"the phase list is incomplete: {len(blocked)} folder(s) where phases live could not be read "
                     f"({', '.join(blocked[:3])}; see skipped); rename or move them for an exact answer")
    current_numbers = {d.number for d in dirs if d.milestone is None and d.number is not None}
    archived = _archived_numbers(dirs) - current_numbers
    phases: dict[str, PhaseInfo] = {}
    for rp in roadmap_phases(roadmap_text or ""):
        if rp.done and rp.number in archived:
            continue  # an archived milestone's phase, still listed in ROADMAP.md
        phases[rp.number] = PhaseInfo(rp.number, rp.name, roadmap_done=rp.done)
    for pd in dirs:
        if pd.milestone is not None or pd.number is None:
            continue
        info = phases.setdefault(pd.number, PhaseInfo(pd.number, pd.slug))
        if info.folder is None:
            info.folder = pd.path
            info.name = info.name or pd.slug
    from msd_core.progress import evidence

    reading = evidence.Reading(evidence.main_root(root))
    proof = reading  # its `asks` reads, once, whether any SUMMARY needs its evidence
    for info in phases.values():
        if info.folder is not None:
            _scan_phase(info, skipped, root, listings, proof)
    ordered = sorted(phases.values(), key=lambda p: phase_sort_key(p.number))
    states = [(p, phase_state(p, verifier)) for p in ordered]
    last_active = max((i for i, p in enumerate(ordered) if p.summaries), default=-1)
    back = _taken_up_again(states, last_active)
    # before the last phase with a SUMMARY, a fully summarised phase counts as done, unless it was
    # taken up again after the project moved on (a UAT with issues, gap plans, their SUMMARYs)
    states = [(p, "done" if i < last_active and i not in back and s in ("verify", "reverify", "gaps", "human", "uat-open")
               else s) for i, (p, s) in enumerate(states)]
    passed_over = [p.number for i, (p, s) in enumerate(states) if s != "done" and i < last_active and i not in back]
    current = next(((p, s) for i, (p, s) in enumerate(states) if s != "done" and (i >= last_active or i in back)), None)

    failed = gate_failed(root)
    target = None
    if failed is not None:
        # the suite fails for work that ran: the phase being executed or checked, else (the next
        # phase not started, or none left) the last one holding a SUMMARY
        if current is not None and current[1] not in ("discuss", "plan"):
            target = current[0]
        elif last_active >= 0:
            target = ordered[last_active]

    state_text = read_text(planning / "STATE.md", skipped, root) if read_state else None
    milestone, why = "open", ""
    if not ordered:
        milestone, why = "between", "ROADMAP.md lists no phases: plan the next milestone"
    elif current is None:
        done = sum(1 for _p, s in states if s == "done")
        tally = f"{done} of {len(ordered)} phases done" + (f", {len(passed_over)} passed over" if passed_over else "")
        signal = archive_signal(state_text)
        audit = _audit_due(planning, ordered)
        if signal:
            milestone, why = "between", f"no phase is left to do ({tally}) and STATE.md says \"{signal[:100]}\""
        elif audit:
            milestone, why = "audit", f"no phase is left to do ({tally}); {audit}"
        else:
            milestone, why = "complete", f"no phase is left to do ({tally})"
    return Where(root, ordered, states, passed_over, current, last_active, verifier, failed, target, milestone, why,
                 state_text, skipped, notes, roadmap_text, listed_twice(roadmap_text or ""))


def status(w: Where, flows_running: dict | set | frozenset = frozenset()) -> str:
    """STATE.md's Status line for this position. A flow running for the current phase refines it;
    one running for another phase (planning ahead) does not. `flows_running`: {workflow: its
    phase or None} (a set of names: phase unknown, taken as the current one)."""
    if w.gate_target is not None:
        return TESTS_FAILING
    if w.current is None:
        return MILESTONE_STATUS[w.milestone]
    info, state = w.current

    def runs(name: str) -> bool:
        if name not in flows_running:
            return False
        from msd_core.planning.discovery import normalize_phase

        phase = flows_running.get(name) if isinstance(flows_running, dict) else None
        return phase is None or normalize_phase(phase) == info.number

    if state == "execute" and (len(info.plans) > len(info.unsummarised) or runs("execute-phase")):
        return IN_PROGRESS
    if state in ("discuss", "plan") and runs("plan-phase"):
        return PLANNING
    return PHASE_STATUS.get(state, state)


def roadmap_marks(w: Where, roadmap_text: str) -> list[dict]:
    """ROADMAP.md's checkboxes that disagree with the model: [{line (1-based), what, old, new}].

    A phase line is ticked when its own files say it is done and its suite does not fail (it is not
    `gate_target`); a ticked current phase that its files reopen, or whose suite fails, is unticked;
    any other phase line is left as it is (an older project ticks by hand). A
    plan line (`- [ ] 02-01-PLAN.md`) of a current phase folder is ticked exactly when the plan has
    its SUMMARY."""
    from msd_core.planning.discovery import normalize_phase
    from msd_core.planning.roadmap import checkbox_lines

    by_number = {p.number: p for p in w.phases}
    current = w.current[0] if w.current is not None else None
    folders = {p.folder.name: p for p in w.phases if p.folder is not None}
    out: list[dict] = []
    for box in checkbox_lines(roadmap_text):
        want = box.ticked
        if box.kind == "phase":
            info = by_number.get(normalize_phase(box.key))
            if info is None or info.folder is None:
                continue
            if info is w.gate_target:
                want = False  # not complete while its suite fails
            elif info.evidence == "done":
                want = True
            elif box.ticked and info is current:
                want = False
        else:
            info = next((p for p in folders.values() if f"{box.key}-PLAN.md" in p.plans), None)
            if info is None:
                continue
            want = f"{box.key}-PLAN.md" not in info.unsummarised and not any(u["plan"] == box.key for u in info.unproven)
        if want != box.ticked:
            out.append({"line": box.line, "what": f"{box.kind} {box.key}", "old": box.mark, "new": "x" if want else " "})
    return out
