"""The one model of where the project is (msd_core.progress.lifecycle): `next`, `state sync`,
step-done's sync and commit agree, seam by seam (issue 28).

Each test builds a small project by hand, writes what a workflow writes, and asks the
runtime as the content does (`msd_run next`, `msd_run state sync`, `msd_run state get`).
Expected routes and lines are written from docs/CONTRACTS.md, never produced by the code.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.kit.flowkit import Walker, fake_install

ROADMAP = """# Roadmap: Demo

## Phases

- [{m1}] Phase 1: Core — the core works
- [{m2}] Phase 2: Extra — more works

### Phase 1: Core
Goal: core
Plans: 1 plans
- [{p1}] 01-01-PLAN.md — build the core

### Phase 2: Extra
Goal: extra
Plans: TBD
"""

STATE = """# Demo: where the work stands

## Position
Focus: Phase 1 (Core)
Phase: 1 of 2 (Core)
Plan: Not planned yet
Status: Ready to discuss
Last change: 2026-11-30 (roadmap updated)
Progress: [----------] 0%

## Decisions
None yet.

## Blockers
None yet.

## Session
Last worked: 2026-11-30 10:00
Left off: Roadmap created
Handoff: None
"""


class Project:
    def __init__(self, root: Path, m1=" ", m2=" ", p1=" "):
        self.root = root
        self.t = time.time() - 10_000
        self.write(".planning/PROJECT.md", "# Demo\n")
        self.write(".planning/ROADMAP.md", ROADMAP.format(m1=m1, m2=m2, p1=p1))
        self.write(".planning/STATE.md", STATE)

    def write(self, rel: str, text: str) -> Path:
        """Files written in order get increasing modification times (one minute apart)."""
        self.t += 60
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        os.utime(p, (self.t, self.t))
        return p

    def plan(self, pid: str, folder: str = "01-core") -> None:
        self.write(f".planning/phases/{folder}/{pid}-PLAN.md", "---\nwave: 1\n---\n")

    def summary(self, pid: str, folder: str = "01-core") -> None:
        self.write(f".planning/phases/{folder}/{pid}-SUMMARY.md", f"---\nphase: {folder}\n---\n")

    def executed_phase_1(self, verification="passed"):
        self.write(".planning/phases/01-core/01-CONTEXT.md", "# ctx\n")
        self.plan("01-01")
        self.summary("01-01")
        if verification:
            self.write(".planning/phases/01-core/01-VERIFICATION.md", f"---\nstatus: {verification}\n---\n")

    def roadmap(self) -> str:
        return (self.root / ".planning/ROADMAP.md").read_text()

    def status(self, msd_run) -> str:
        return json.loads(msd_run(["state", "get", "Status", "--cwd", str(self.root)]).stdout)["value"]


def _next(msd_run, root: Path) -> dict:
    r = msd_run(["next", "--cwd", str(root)])
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _sync(msd_run, root: Path) -> dict:
    r = msd_run(["state", "sync", "--cwd", str(root)])
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    return json.loads(r.stdout)


def test_sync_ticks_the_executed_phase_and_its_plan_and_nothing_else(tmp_path, msd_run):
    p = Project(tmp_path / "p")
    p.executed_phase_1()
    report = _sync(msd_run, p.root)
    assert [c["what"] for c in report["roadmap"]["changed"]] == ["phase 1", "plan 01-01"]
    assert p.roadmap() == ROADMAP.format(m1="x", m2=" ", p1="x")  # only the two marks changed
    assert _next(msd_run, p.root)["command"] == "/msd-discuss-phase 2"
    assert p.status(msd_run) == "Ready to discuss"
    again = msd_run(["state", "sync", "--check", "--cwd", str(p.root)])
    assert again.returncode == 0 and json.loads(again.stdout)["in_sync"] is True


def test_uat_issues_after_the_tick_reopen_the_phase(tmp_path, msd_run):
    """Seam 2: execute-phase ticked phase 1 when the verifier passed; verify-work then found
    issues. `next` plans the gaps, state sync says so and unticks the phase."""
    p = Project(tmp_path / "p")
    p.executed_phase_1()
    _sync(msd_run, p.root)
    assert "- [x] Phase 1" in p.roadmap()
    p.write(".planning/phases/01-core/01-UAT.md", "---\nstatus: issues_found\n---\n# UAT\n")
    out = _next(msd_run, p.root)
    assert (out["route"], out["command"]) == ("plan-gaps", "/msd-plan-phase 1 --gaps")
    report = _sync(msd_run, p.root)
    assert [c["what"] for c in report["roadmap"]["changed"]] == ["phase 1"]
    assert "- [ ] Phase 1: Core" in p.roadmap() and "- [x] 01-01-PLAN.md" in p.roadmap()
    assert p.status(msd_run) == "Gaps found"
    # the gap plan is executed: test again before moving on
    p.plan("01-02")
    assert _next(msd_run, p.root)["command"] == "/msd-execute-phase 1"
    p.summary("01-02")
    assert _next(msd_run, p.root)["command"] == "/msd-verify-work 1"
    assert _sync(msd_run, p.root) and p.status(msd_run) == "Ready to verify the fixes"
    p.write(".planning/phases/01-core/01-UAT.md", "---\nstatus: complete\n---\n# UAT\n")
    _sync(msd_run, p.root)
    assert "- [x] Phase 1: Core" in p.roadmap()
    assert _next(msd_run, p.root)["command"] == "/msd-discuss-phase 2"


def test_a_plan_added_to_a_ticked_phase_is_executed(tmp_path, msd_run):
    """A review's fix plan (code-review) lands in a phase ticked long ago: it runs."""
    p = Project(tmp_path / "p", m1="x", p1="x")
    p.executed_phase_1()
    p.plan("01-02")
    assert _next(msd_run, p.root)["command"] == "/msd-execute-phase 1"


def test_a_ticked_phase_without_contrary_files_stays_done(tmp_path, msd_run):
    """Older projects tick by hand: a tick with no reopening evidence is never undone (a plan
    left without SUMMARY that is older than a SUMMARY of the phase is an abandoned draft)."""
    p = Project(tmp_path / "p", m1="x")
    p.plan("01-02")
    p.plan("01-01")
    p.summary("01-01")
    _sync(msd_run, p.root)
    assert "- [x] Phase 1: Core" in p.roadmap()
    assert _next(msd_run, p.root)["command"] == "/msd-discuss-phase 2"


def test_a_ticked_phase_whose_every_summary_is_gone_is_executed_again(tmp_path, msd_run):
    """`msd_run undo` moved the only SUMMARY aside: the phase's plans have none, it runs again."""
    p = Project(tmp_path / "p", m1="x", p1="x")
    p.plan("01-01")
    assert _next(msd_run, p.root)["command"] == "/msd-execute-phase 1"
    _sync(msd_run, p.root)
    assert "- [ ] Phase 1: Core" in p.roadmap() and "- [ ] 01-01-PLAN.md" in p.roadmap()


def test_a_failing_suite_keeps_the_phase_unticked(tmp_path, msd_run):
    """Verifier off: summarised is done, but not while the regression gate fails."""
    p = Project(tmp_path / "p")
    (p.root / ".planning/config.json").write_text('{"workflow": {"verifier": false}}\n')
    p.executed_phase_1(verification=None)
    p.write(".planning/.msd/gate/failed", "phase 1: exit 1\n")
    _sync(msd_run, p.root)
    assert "- [ ] Phase 1: Core" in p.roadmap() and p.status(msd_run) == "Tests failing"
    # phase 2 is not started: the failing suite is phase 1's, fixed before phase 2 is discussed
    out = _next(msd_run, p.root)
    assert (out["route"], out["command"]) == ("fix-tests", "/msd-execute-phase 1")
    (p.root / ".planning/.msd/gate/failed").unlink()
    _sync(msd_run, p.root)
    assert "- [x] Phase 1: Core" in p.roadmap()


def test_milestone_end_is_audit_then_complete_then_between(tmp_path, msd_run):
    """Seam 1: the status the last sync wrote never routes past audit and completion."""
    p = Project(tmp_path / "p")
    p.executed_phase_1()
    p.plan("02-01", "02-extra")
    p.summary("02-01", "02-extra")
    p.write(".planning/phases/02-extra/02-VERIFICATION.md", "---\nstatus: passed\n---\n")
    _sync(msd_run, p.root)
    assert p.status(msd_run) == "Ready to audit the milestone"
    assert _next(msd_run, p.root)["route"] == "audit-milestone"
    # the status an earlier msd wrote at this point is not an archive either
    state = p.root / ".planning/STATE.md"
    state.write_text(state.read_text().replace("Status: Ready to audit the milestone", "Status: Milestone complete"))
    assert _next(msd_run, p.root)["route"] == "audit-milestone"
    p.write(".planning/v1.0-MILESTONE-AUDIT.md", "---\nstatus: passed\n---\n")
    assert _next(msd_run, p.root)["route"] == "complete-milestone"
    _sync(msd_run, p.root)
    assert p.status(msd_run) == "Ready to complete the milestone"
    # complete-milestone archives: folders moved, the roadmap's list collapsed
    archive = p.root / ".planning/milestones/v1.0-phases"
    archive.mkdir(parents=True)
    for folder in ("01-core", "02-extra"):
        (p.root / ".planning/phases" / folder).rename(archive / folder)
    p.write(".planning/ROADMAP.md", "# Roadmap: Demo\n\n## Completed Milestones\n\n- **v1.0** (Phases 1-2) - shipped\n")
    _sync(msd_run, p.root)
    assert p.status(msd_run) == "Between milestones"
    assert _next(msd_run, p.root)["route"] == "new-milestone"


def test_archived_phases_still_listed_in_the_roadmap_belong_to_their_milestone(tmp_path, msd_run):
    """A roadmap that keeps the finished milestone's ticked lines: phases 1-2 are archived
    folders, so the new milestone's phase 3 is current, not a milestone to complete again."""
    p = Project(tmp_path / "p", m1="x", m2="x")
    for folder in ("01-core", "02-extra"):
        p.write(f".planning/milestones/v1.0-phases/{folder}/{folder[:2]}-01-SUMMARY.md", "---\n---\n")
    p.write(".planning/ROADMAP.md", p.roadmap() + "\n## v1.1\n\n- [ ] Phase 3: Share — sharing\n")
    out = _next(msd_run, p.root)
    assert out["command"] == "/msd-discuss-phase 3" and out["phases_total"] == 1


def test_a_failing_gate_with_every_phase_done_routes_to_its_phase(tmp_path, msd_run):
    """The gate branch of `next` with no current phase (a NameError before issue 28)."""
    p = Project(tmp_path / "p", m1="x", m2="x")
    p.executed_phase_1()
    p.write(".planning/.msd/gate/failed", "phase 1 wave 1: exit 1\n")
    out = _next(msd_run, p.root)
    assert (out["route"], out["command"]) == ("fix-tests", "/msd-execute-phase 1")
    _sync(msd_run, p.root)
    assert p.status(msd_run) == "Tests failing"


def test_a_kept_status_survives_the_sync_inside_step_done(tmp_path, msd_run):
    """Seam 4: execute-phase's tests-failing step sets "Tests failing"; the automatic sync of the
    step-done that follows keeps it, because the model derives it from the gate's marker."""
    p = Project(tmp_path / "p")
    p.executed_phase_1(verification=None)
    p.write(".planning/.msd/gate/failed", "phase 1: exit 1\n")
    root = fake_install(tmp_path / "cfg")
    w = Walker("execute-phase", p.root, flows_dir=None, root=str(root))
    w.next("phase=01")
    w.done("discover-plans", {"phase": "01", "phase_dir": "01-core", "plans_remaining": 0})
    assert w.done("gate", {"status": "failed"})["next_step"] == "fix-up"
    msd_run(["state", "patch", "--status", "Tests failing", "--cwd", str(p.root)])
    out = w.done("fix-up", {"fixed": False})
    assert p.status(msd_run) == "Tests failing" and "Status" not in out["state_sync"]["changed"]
    # the gate passes: the next sync derives the phase's status again
    (p.root / ".planning/.msd/gate/failed").unlink()
    _sync(msd_run, p.root)
    assert p.status(msd_run) == "Ready to verify"


def test_a_status_the_runtime_does_not_keep_is_replaced(tmp_path, msd_run):
    """The guard behind rule `statuses`: new-milestone used to set "Ready to plan" while the first
    new phase had no CONTEXT.md; the next sync writes what the files say."""
    p = Project(tmp_path / "p")
    out = json.loads(msd_run(["state", "patch", "--status", "Ready to plan", "--cwd", str(p.root)]).stdout)
    assert p.status(msd_run) == "Ready to plan"
    assert "not one the runtime keeps" in out["notes"][0]  # the caller is told at once
    kept = json.loads(msd_run(["state", "patch", "--status", "Tests failing", "--cwd", str(p.root)]).stdout)
    assert "notes" not in kept
    msd_run(["state", "patch", "--status", "Ready to plan", "--cwd", str(p.root)])
    _sync(msd_run, p.root)
    assert p.status(msd_run) == "Ready to discuss"


def test_a_flow_running_for_a_later_phase_does_not_set_the_status():
    """Planning ahead: a plan-phase flow for phase 2 while phase 1 waits to be planned. STATE.md's
    Status is phase 1's (the walker, seed 1, found the status flip between the commit and the
    flow's end that left STATE.md modified)."""
    from types import SimpleNamespace

    from msd_core.progress import lifecycle

    info = SimpleNamespace(number="1", plans=[], unsummarised=[])
    w = SimpleNamespace(gate_target=None, current=(info, "plan"), milestone="open")
    assert lifecycle.status(w, {"plan-phase": "02"}) == lifecycle.PHASE_STATUS["plan"]
    assert lifecycle.status(w, {"plan-phase": "01"}) == lifecycle.PLANNING
    assert lifecycle.status(w, {"plan-phase": None}) == lifecycle.PLANNING
