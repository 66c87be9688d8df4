"""Two milestones walked end to end, as the user's agent walks them (issue 28).

new project -> roadmap -> discuss -> plan (a revision loop that hits the cap, a checkpoint plan
claiming autonomy) -> execute (a parallel wave in worktrees, a checkpoint plan, a failing gate
fixed up) -> verify with a UAT issue (diagnosed) -> gap plan -> re-verify -> phase 2 whose suite
keeps failing (recorded, routed to fix-tests, fixed) -> audit -> complete milestone (archive
moves, tag) -> new milestone -> insert / remove / move a phase -> phase 3 -> ship -> undo.

Every command comes from the installed content (tests/kit/cyclekit.py, tests/kit/cyclewalk.py).
After every step: nothing uncommitted, STATE.md and ROADMAP.md agree with the files, and
`msd_run next` proposes what a user expects next (written here by hand from docs/CONTRACTS.md).
"""

from __future__ import annotations

import json
from dataclasses import replace

from tests.kit import cyclewalk as walk
from tests.kit.cyclekit import git, roadmap_marks

P1 = walk.Phase("1", "Core", "core", "habits can be created and checked off", ["HABIT-01", "HABIT-02"])
P2 = walk.Phase("2", "Streaks", "streaks", "streaks are shown", ["HABIT-03"])
P3 = walk.Phase("3", "Share", "share", "a habit can be shared by link", ["SHARE-01"])
P4 = walk.Phase("4", "Invite", "invite", "friends can be invited", ["SHARE-02"])
P5 = walk.Phase("5", "Export", "export", "habits can be exported", ["SHARE-03"])

PLANS_1 = [
    # its first draft builds the locked decision "simplified, for now": check plan refuses it
    walk.Plan("01-01", 1, ["src/habits.txt"], "habit list", requirements=["HABIT-01"], cuts_scope=True),
    walk.Plan("01-02", 1, ["src/checkoff.txt"], "check-off", requirements=["HABIT-02"]),
    # a checkpoint plan whose first draft claims autonomy; its last task breaks the suite
    walk.Plan("01-03", 2, ["src/screen.txt"], "main screen", tasks=3, depends_on=["01-01"], checkpoint=2,
              claims_autonomous=True, breaks=True),
]
GAP_1 = [walk.Plan("01-04", 1, ["src/habits.txt"], "keep the list after reload", closes="U2", requirements=["HABIT-01"])]
PLANS_2 = [walk.Plan("02-01", 1, ["src/streaks.txt"], "streak counter", breaks=True)]
PLANS_3 = [walk.Plan("03-01", 1, ["src/share.txt"], "share link")]

SETTINGS = {"mode": "yolo", "granularity": "coarse", "parallelization.enabled": "true", "workflow.research": "false",
            "workflow.plan_check": "true", "workflow.verifier": "true", "commit_docs": "true"}


def _state(cycle) -> dict:
    return cycle.agent.msd("state", "get")["position"]


def test_two_milestones_end_to_end(cycle, compact, tmp_path):
    a = cycle.agent
    remote = tmp_path / "origin.git"

    with cycle.step("new project"):
        walk.seed_repository(a, remote)
        seen = walk.new_project(a, [P1, P2], {**SETTINGS, "workflow.compact_content": "true" if compact == "on" else "false"})
        assert seen == ["detect-existing", "questioning", "ask-settings", "write-project", "write-requirements", "roadmap",
                        "confirm-roadmap", "commit", "done"]
        cycle.check("/msd-discuss-phase 1")
        assert json.loads((a.project / ".planning/config.json").read_text())["workflow"]["compact_content"] is (compact == "on")
        assert _state(cycle)["Status"] == "Ready to discuss"

    with cycle.step("discuss phase 1"):
        walk.discuss_phase(a, P1)
        cycle.check("/msd-plan-phase 1")

    with cycle.step("plan phase 1 (revision cap)"):
        seen = walk.plan_phase(a, P1, PLANS_1, walk.Checker([2, 1, 1, 1]))
        assert seen == ["load-context", "plan", "check", "revise", "check", "revise", "check", "revise", "check",
                        "issues-left", "commit", "done"]
        cycle.check("/msd-execute-phase 1")
        assert "Phase 1 plans: 01-01: issue 4.0" in a.msd("state", "get", "Blockers")["content"]
        plan3 = (a.project / P1.dir / "01-03-PLAN.md").read_text()
        assert "autonomous: false" in plan3  # the planner fixed the frontmatter check plan refused
        assert "for now" not in (a.project / P1.dir / "01-01-PLAN.md").read_text()  # and the scope cut

    with cycle.step("execute phase 1 (worktrees, checkpoint, failing gate)"):
        seen = walk.execute_phase(a, P1, PLANS_1)
        assert seen == ["discover-plans", "execute-wave", "gate", "execute-wave", "gate", "fix-up", "gate", "verify",
                        "update-state", "done"]
        cycle.check("/msd-discuss-phase 2")
        marks = roadmap_marks(a.project)
        assert marks == {"Phase 1": "x", "Phase 2": " ", "01-01": "x", "01-02": "x", "01-03": "x"}
        merges = [m for m in git(a.project, "log", "--format=%s").splitlines() if m.startswith("merge(")]
        assert len(merges) == 2  # the two isolated executors of wave 1, merged back
        assert "worktree-agent" not in git(a.project, "branch")

    with cycle.step("verify phase 1 (UAT issue, diagnosed)"):
        slug = walk.verify_work(a, P1, issue="the list is empty after reload")
        cycle.check("/msd-plan-phase 1 --gaps", route="plan-gaps")
        assert roadmap_marks(a.project)["Phase 1"] == " "  # the UAT reopened the ticked phase
        assert _state(cycle)["Status"] == "Gaps found"

    with cycle.step("plan the gaps of phase 1"):
        walk.plan_phase(a, P1, GAP_1, walk.Checker([0]), gaps=True)
        cycle.check("/msd-execute-phase 1")

    with cycle.step("execute the gap plan"):
        walk.execute_phase(a, P1, GAP_1)
        cycle.check("/msd-verify-work 1")  # the UAT issue predates the fix: test again
        assert _state(cycle)["Status"] == "Ready to verify the fixes"

    with cycle.step("re-verify phase 1, close the debug session"):
        walk.verify_work(a, P1)
        walk.close_debug(a, slug)
        cycle.check("/msd-discuss-phase 2")
        assert roadmap_marks(a.project)["Phase 1"] == "x"
        assert "Phase 1 UAT" not in a.msd("state", "get", "Blockers")["content"]

    with cycle.step("phase 2 until its suite keeps failing"):
        walk.discuss_phase(a, P2)
        walk.plan_phase(a, P2, PLANS_2, walk.Checker([0]))
        seen = walk.execute_phase(a, P2, PLANS_2, gate=walk.Gate([False, False]))
        assert seen[-4:] == ["gate", "tests-failing", "update-state", "done"]
        cycle.check("/msd-execute-phase 2", route="fix-tests")
        assert _state(cycle)["Status"] == "Tests failing"  # kept through step-done's own sync

    with cycle.step("phase 2 fixed"):
        walk.execute_phase(a, P2, PLANS_2, gate=walk.Gate([True]))
        cycle.check("/msd-audit-milestone", route="audit-milestone")
        assert _state(cycle)["Status"] == "Ready to audit the milestone"

    with cycle.step("audit milestone v1.0"):
        walk.audit_milestone(a, "v1.0")
        cycle.check("/msd-complete-milestone", route="complete-milestone")

    with cycle.step("complete milestone v1.0"):
        walk.complete_milestone(a, "v1.0", "Habits", [P1, P2])
        cycle.check("/msd-new-milestone", route="new-milestone")
        assert _state(cycle)["Status"] == "Between milestones"
        tagged = git(a.project, "ls-tree", "-r", "--name-only", "v1.0").splitlines()
        assert ".planning/milestones/v1.0-phases/01-core/01-01-PLAN.md" in tagged
        assert ".planning/milestones/v1.0-REQUIREMENTS.md" in tagged
        # the audit is archived with the milestone, and the move is committed (issue 45)
        assert ".planning/milestones/v1.0-MILESTONE-AUDIT.md" in tagged and ".planning/v1.0-MILESTONE-AUDIT.md" not in tagged
        assert git(a.project, "status", "--porcelain", ".planning").strip() == ""
        assert not any(p.startswith(".planning/phases/") for p in tagged)  # the tag holds the archived tree
        assert git(a.project, "rev-parse", "v1.0^{commit}") == git(a.project, "rev-parse", "HEAD")

    with cycle.step("new milestone v1.1"):
        seen = walk.new_milestone(a, "v1.1", "Sharing", [P3, P4, P5], last_phase="2")
        assert seen.count("roadmap") == 2  # the first roadmap was sent back
        cycle.check("/msd-discuss-phase 3")
        assert _state(cycle)["Status"] == "Ready to discuss"

    with cycle.step("insert, remove and move phases"):
        out = walk.phase_change(a, "insert", "3", "Hotfix sync", goal="sync works again")
        assert out["phase"]["number"] == "3.1"
        road = (a.project / ".planning/ROADMAP.md").read_text()
        assert "### Phase 3.1: Hotfix sync\nGoal: sync works again\nDepends on: Phase 3\n" in road and "**Goal**" not in road
        cycle.check("/msd-discuss-phase 3")
        walk.phase_change(a, "remove", "5")
        cycle.check("/msd-discuss-phase 3")
        out = walk.phase_change(a, "move", "3.1", "4")
        assert out["phase"]["number"] == "4.1"
        cycle.check("/msd-discuss-phase 3")
        assert [n for n in roadmap_marks(a.project)] == ["Phase 3", "Phase 4", "Phase 4.1"]

    with cycle.step("phase 3"):
        walk.discuss_phase(a, P3)
        walk.plan_phase(a, P3, PLANS_3, walk.Checker([0]))
        walk.execute_phase(a, P3, PLANS_3)
        walk.verify_work(a, P3)
        cycle.check("/msd-discuss-phase 4")

    with cycle.step("ship phase 3"):
        out = walk.ship(a, P3)
        assert out["branch"] == "msd/phase-03-share" and out["commits"] > 0
        carried = git(remote, "rev-list", "main..msd/phase-03-share").split()
        assert len(carried) == out["commits"]  # the pushed branch carries the phase's work
        cycle.check("/msd-discuss-phase 4")

    with cycle.step("undo plan 03-01"):
        done = walk.undo(a, "03-01")
        assert done["revert_commit"]
        cycle.check("/msd-execute-phase 3")
        assert roadmap_marks(a.project)["03-01"] == " " and roadmap_marks(a.project)["Phase 3"] == " "

    # compact content: every split workflow ran on its spine alone (on) or with its parts (off)
    # (new-project runs before the project's setting exists: the schema default holds there)
    emitted = {inv: text for inv, text in a.emitted.items() if text and not inv.startswith("/msd-new-project")}
    assert any(inv.startswith("/msd-plan-phase") for inv in emitted)
    for inv, text in emitted.items():
        assert text.startswith("<!-- msd:compact -->") if compact == "on" else "<!-- msd:part msd-core/workflows/" in text, inv
    print(f"\nscenario two-milestones (compact {compact}): " + cycle.report())


LEAN = {"mode": "interactive", "granularity": "coarse", "parallelization.enabled": "false", "workflow.research": "true",
        "workflow.plan_check": "false", "workflow.verifier": "false", "commit_docs": "false"}
PLANS_LEAN = [walk.Plan("01-01", 1, ["src/habits.txt"], "habit list", requirements=["HABIT-01"]),
              # its first executor commits by hand and claims the plan done (issue 30: done means proven)
              walk.Plan("01-02", 1, ["src/checkoff.txt"], "check-off", requirements=["HABIT-02"], hand_commits=1)]


def test_a_lean_milestone_without_committed_docs(cycle, compact):
    """Research on, plan check and verifier off, one executor at a time, `.planning/` kept out of
    git (commit_docs false): the code is committed, the planning files stay the user's, declared."""
    a = cycle.agent
    cycle.declared = (".planning/",)

    with cycle.step("new project"):
        walk.seed_repository(a)
        seen = walk.new_project(a, [P1], {**LEAN, "workflow.compact_content": "true" if compact == "on" else "false"})
        assert seen == ["detect-existing", "questioning", "ask-settings", "write-project", "research", "write-requirements",
                        "roadmap", "confirm-roadmap", "commit", "done"]  # commit runs; it commits nothing
        cycle.check("/msd-discuss-phase 1")
        assert git(a.project, "log", "--format=%s").splitlines() == ["initial code"]

    with cycle.step("discuss phase 1"):
        walk.discuss_phase(a, P1)
        cycle.check("/msd-plan-phase 1")

    with cycle.step("plan phase 1 (research, no check)"):
        assert walk.plan_phase(a, P1, PLANS_LEAN, walk.Checker()) == ["load-context", "research", "plan", "commit", "done"]
        cycle.check("/msd-execute-phase 1")

    with cycle.step("execute phase 1 (one at a time, no verifier; a claim without commits runs again)"):
        nexts: list = []
        seen = walk.execute_phase(a, P1, [replace(p) for p in PLANS_LEAN], after_wave=nexts)  # a fresh hand_commits
        assert seen == ["discover-plans", "execute-wave", "gate", "execute-wave", "gate", "update-state", "done"]
        claimed = nexts[0]  # after the first wave: 01-02 has a SUMMARY and a hand-made commit only
        assert (claimed["route"], claimed["command"]) == ("execute-phase", "/msd-execute-phase 1")
        assert "01-02 has a SUMMARY but no commit recorded" in claimed["reason"]
        assert [u["plan"] for u in claimed["phase"]["unproven"]] == ["01-02"]
        assert nexts[1]["command"] == "/msd-audit-milestone"  # recorded commits now prove it
        cycle.check("/msd-audit-milestone")  # the verifier is off: summarised is done
        assert roadmap_marks(a.project) == {"Phase 1": "x", "01-01": "x", "01-02": "x"}
        code = [m for m in git(a.project, "log", "--format=%s").splitlines() if m.startswith("feat(")]
        assert len(code) == 4  # two tasks per plan, committed; no docs commit at all
        assert "wip: 01-02 by hand" in git(a.project, "log", "--format=%s")
        assert git(a.project, "ls-files", ".planning").strip() == ""

    with cycle.step("verify phase 1 (UAT passes)"):
        walk.verify_work(a, P1)
        cycle.check("/msd-audit-milestone")

    with cycle.step("audit and complete milestone v1.0"):
        walk.audit_milestone(a, "v1.0")
        cycle.check("/msd-complete-milestone")
        walk.complete_milestone(a, "v1.0", "Habits", [P1])
        cycle.check("/msd-new-milestone")
        assert git(a.project, "tag", "--list", "v1.0").strip() == "v1.0"

    print(f"\nscenario lean-milestone (compact {compact}): " + cycle.report())
