"""A phase's tests checked and completed (issue 33.2): /msd-validate-phase finds the requirements and
must-haves no test exercises, /msd-add-tests turns them into a gap plan that plan-phase writes and
execute-phase runs, and validate then passes. Compact content off and on, every command from the
installed content (tests/kit/cyclekit.py, tests/kit/cyclewalk.py)."""

from __future__ import annotations

from tests.kit import cyclewalk as walk

P1 = walk.Phase("1", "Core", "core", "habits can be created and checked off", ["HABIT-01", "HABIT-02"])
PLANS = [walk.Plan("01-01", 1, ["src/habits.txt"], "habit list", requirements=["HABIT-01"]),
         walk.Plan("01-02", 1, ["src/checkoff.txt"], "check-off", requirements=["HABIT-02"])]
TEST = ('"""Habits: the list and the check-off (covers HABIT-01, HABIT-02; artifacts src/habits.txt, src/checkoff.txt)."""\n\n\n'
        "def test_habit_list():\n    assert open('src/habits.txt').read()\n\n\n"
        "def test_checking_off():\n    # covers 01-02#1 and 01-03#1\n    assert open('src/checkoff.txt').read()\n")
TESTS = [walk.Plan("01-03", 1, ["tests/test_habits.py"], "tests for the habit list and check-off",
                   requirements=["HABIT-01", "HABIT-02"], closes="V1, V2, V3, V4, V5, V6",
                   adds={"tests/test_habits.py": TEST})]
SETTINGS = {"mode": "yolo", "granularity": "coarse", "parallelization.enabled": "false", "workflow.research": "false",
            "workflow.plan_check": "false", "workflow.verifier": "true", "commit_docs": "true"}


def test_validate_finds_gaps_and_add_tests_closes_them(cycle, compact):
    a = cycle.agent
    v = walk.values(P1)

    with cycle.step("phase 1 built, without tests"):
        walk.seed_repository(a)
        walk.new_project(a, [P1], {**SETTINGS, "workflow.compact_content": "true" if compact == "on" else "false"})
        walk.discuss_phase(a, P1)
        walk.plan_phase(a, P1, PLANS, walk.Checker())
        walk.execute_phase(a, P1, PLANS)
        cycle.check("/msd-audit-milestone")

    with cycle.step("/msd-validate-phase 1 finds the gaps"):
        a.begin("/msd-validate-phase 1")
        out = a.run("validate-phase", "Step 1", "msd_run validate", ok=(1,), **v).stdout
        assert "0 of 6 covered, 6 gaps (0 test files)" in out  # tests/run.sh is the runner, no test file
        assert "wrote .planning/phases/01-core/01-VALIDATION.md" in out
        a.run("validate-phase", "Step 1", "msd_run commit", **v)
        record = (a.project / P1.dir / "01-VALIDATION.md").read_text()
        assert "status: gaps_found" in record and "| HABIT-01 | requirement | gap | — |" in record
        cycle.check("/msd-audit-milestone")  # a test gap does not reopen a verified phase

    with cycle.step("/msd-add-tests 1: the gaps planned through plan-phase --gaps"):
        a.begin("/msd-add-tests 1")
        out = a.run("add-tests", "Step 1", "msd_run validate", ok=(1,), **v).stdout
        assert "unchanged .planning/phases/01-core/01-VALIDATION.md" in out  # nothing new to commit: the step says so
        walk.plan_phase(a, P1, TESTS, walk.Checker(), gaps=True)
        cycle.check("/msd-execute-phase 1")  # the gap plan reopens the phase

    with cycle.step("/msd-add-tests 1: the test plan executed, validate passes"):
        walk.execute_phase(a, P1, TESTS)
        report = a.msd("validate", "1", "--json")
        assert report["ok"] is True and report["counts"] == {"items": 8, "covered": 8, "gaps": 0, "test_files": 1}
        rules = {it["id"]: it["tests"][0]["rules"] for it in report["items"]}
        assert rules["HABIT-01"] == ["id"] and rules["01-01#1"] == ["keywords"] and rules["01-02#1"] == ["ref"]
        assert rules["01-01:src/habits.txt"] == ["artifact"] and rules["01-03:tests/test_habits.py"] == ["artifact"]
        assert report["gate"]["status"] == "passed" and report["gate"]["paths"] == []
        assert "wrote .planning/phases/01-core/01-VALIDATION.md" in a.run("add-tests", "Step 3", "msd_run validate", **v).stdout
        a.run("add-tests", "Step 3", "msd_run commit", **v)
        assert "status: passed" in (a.project / P1.dir / "01-VALIDATION.md").read_text()
        cycle.check("/msd-audit-milestone")

    emitted = {inv: text for inv, text in a.emitted.items() if text and not inv.startswith("/msd-new-project")}
    for inv, text in emitted.items():
        assert text.startswith("<!-- msd:compact -->") if compact == "on" else "<!-- msd:part msd-core/workflows/" in text, inv
    print(f"\nscenario validation (compact {compact}): " + cycle.report())
