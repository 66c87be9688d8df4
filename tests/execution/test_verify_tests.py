"""`msd_run verify` judges the tests on the tree checked out now (issue 45 item 2).

A phase was executed and ticked; then the bug was put back. Before this, verify checked artifacts,
key links and requirements only and wrote `status: passed`. Now it runs the project's regression
gate (or reuses a gate run made on exactly this tree), and a failing or zero-test suite makes the
verification `gaps_found`, so `next` and ROADMAP.md no longer call the phase done.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from tests.execution.test_plan_check import plan
from tests.kit.gitkit import git, new_repo, run_msd

PYTEST = f"{shlex.quote(sys.executable)} -m pytest -p no:cacheprovider -q tests"
ROADMAP = """# Roadmap

## Phases

- [x] Phase 1: Core — habits

### Phase 1: Core
Goal: habits can be created
Requirements: HABIT-01
Plans: 1 plan
"""
MUST = ("must_haves:\n  truths: [\"habits can be created\"]\n  artifacts: [src/habits.py]\n"
        "  key_links:\n    - {from: tests/test_habits.py, to: src/habits.py, pattern: 'from habits import'}\n")
CODE = "def create(name):\n    return {'name': name.strip()}\n"
BROKEN = "def create(name):\n    return {'name': name}\n"
TESTS = ("import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parents[1] / 'src'))\n"
         "from habits import create\n\n\ndef test_create():\n    assert create('run') == {'name': 'run'}\n\n\n"
         "def test_strip():\n    assert create(' run ') == {'name': 'run'}\n")
PHASE = ".planning/phases/01-core"


def _project(tmp_path: Path, command: str | None = PYTEST, confirm: bool = True) -> Path:
    root = new_repo(tmp_path / "p")
    files = {".gitignore": "__pycache__/\n.planning/.msd/\n", ".planning/PROJECT.md": "# Habits\n",
             ".planning/ROADMAP.md": ROADMAP, ".planning/config.json": "{}",
             ".planning/STATE.md": "# Project State\n\nPhase: 1 of 1\nStatus: Ready to verify\n", "src/habits.py": CODE,
             "tests/test_habits.py": TESTS, f"{PHASE}/01-01-PLAN.md": plan(reqs=("HABIT-01",), must=MUST),
             f"{PHASE}/01-01-SUMMARY.md": "---\nphase: 01-core\nplan: 01\n---\n# done\n"}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    if command is not None:
        if confirm:
            r = run_msd(["gate", "confirm", "--command", command], root)
            assert r.returncode == 0, r.stderr
        else:
            (root / ".planning/config.json").write_text(json.dumps({"testing": {"command": command}}))
    _commit(root, "phase 1 built")
    return root


def _commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def _verify(root: Path, *extra: str) -> tuple[int, dict]:
    r = run_msd(["verify", "1", "--json", *extra], root)
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr
    return r.returncode, json.loads(r.stdout)


def _tests_check(out: dict) -> dict:
    return next(c for c in out["checks"] if c["check"] == "tests")


def _next(root: Path) -> dict:
    r = run_msd(["next"], root)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _runs(root: Path) -> list[dict]:
    log = root / ".planning/.msd/gate/runs.jsonl"
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def test_the_bug_put_back_makes_the_verification_gaps_found_and_the_phase_not_done(tmp_path):
    root = _project(tmp_path)
    head = git(root, "rev-parse", "HEAD").strip()
    code, out = _verify(root)
    assert code == 0 and out["result"] == "passed", out["checks"]
    check = _tests_check(out)
    assert check["result"] == "ok" and check["subject"] == PYTEST and f"on {head[:12]}" in check["detail"]
    assert out["gate"]["source"] == "ran" and out["gate"]["commit"] == head and out["gate"]["clean"]
    assert out["gate"]["tests"] == {"runner": "pytest", "ran": 2, "passed": 2, "failed": 0, "skipped": 0}
    text = (root / PHASE / "01-VERIFICATION.md").read_text()
    assert "status: passed" in text and f"tests_command: {PYTEST}\n" in text
    assert "tests_counts: passed 2 · failed 0 · skipped 0 · runner pytest\n" in text and f"tests_commit: {head}\n" in text
    assert _next(root)["route"] == "audit-milestone"  # phase 1 done: the milestone is next

    # the same tree: the recorded run is reused, the file is left as it was
    code, again = _verify(root)
    assert code == 0 and again["gate"]["source"] == "reused" and len(_runs(root)) == 1
    assert (root / PHASE / "01-VERIFICATION.md").read_text() == text

    # the bug is put back and committed: the suite runs again on the new commit and fails
    (root / "src/habits.py").write_text(BROKEN)
    broken = _commit(root, "simplify create")
    code, out = _verify(root)
    assert code == 1 and out["result"] == "failed" and len(_runs(root)) == 2
    check = _tests_check(out)
    assert check["result"] == "failed" and [c for c in out["checks"] if c["result"] == "failed"] == [check]
    assert "the regression gate failed" in check["detail"] and "1 passed, 1 failed, 0 skipped (pytest)" in check["detail"]
    assert "`msd_run gate run`" in check["detail"] and "/msd-execute-phase 01" in check["detail"]
    assert out["gate"]["commit"] == broken and out["gate"]["tests"]["failed"] == 1
    text = (root / PHASE / "01-VERIFICATION.md").read_text()
    assert "result: failed" in text and "tests_status: failed" in text and f"tests_commit: {broken}\n" in text
    nxt = _next(root)
    assert nxt["route"] == "fix-tests" and nxt["command"] == "/msd-execute-phase 1", nxt
    r = run_msd(["state", "sync"], root)
    assert r.returncode == 0, r.stderr
    assert "- [ ] Phase 1: Core" in (root / ".planning/ROADMAP.md").read_text()  # no longer ticked

    # without the gate's marker (a private record, lost with a fresh clone) the VERIFICATION alone holds the phase
    (root / ".planning/.msd/gate/failed").unlink()
    nxt = _next(root)
    assert nxt["route"] == "plan-gaps" and "gaps_found" in nxt["reason"], nxt


def test_a_change_not_committed_is_run_not_reused(tmp_path):
    root = _project(tmp_path)
    assert _verify(root)[0] == 0
    (root / "src/habits.py").write_text(BROKEN)  # not committed: the same HEAD, another tree
    code, out = _verify(root)
    assert code == 1 and out["gate"]["source"] == "ran" and not out["gate"]["clean"]
    assert "with uncommitted changes" in _tests_check(out)["detail"]
    assert "(uncommitted changes)" in (root / PHASE / "01-VERIFICATION.md").read_text()
    (root / "src/habits.py").write_text(CODE)
    code, out = _verify(root)  # clean again, but the last run was made on a changed tree: run
    assert code == 0 and out["gate"]["source"] == "ran" and len(_runs(root)) == 3
    code, out = _verify(root, "--fresh")
    assert code == 0 and out["gate"]["source"] == "ran" and len(_runs(root)) == 4


def test_a_planning_file_written_after_the_gate_run_does_not_force_a_rerun(tmp_path):
    root = _project(tmp_path)
    r = run_msd(["gate", "run", "--label", "phase 1 wave 1"], root)
    assert r.returncode == 0, r.stderr
    (root / PHASE / "01-02-SUMMARY.md").write_text("# notes\n")  # under .planning/: not the code under test
    code, out = _verify(root)
    assert code == 0 and out["gate"]["source"] == "reused" and len(_runs(root)) == 1


def test_a_suite_that_runs_no_test_is_a_gap(tmp_path):
    root = _project(tmp_path)
    (root / "tests/test_habits.py").write_text("# the tests were deleted\n")
    _commit(root, "drop tests")
    code, out = _verify(root)
    check = _tests_check(out)
    assert code == 1 and check["result"] == "failed" and "no tests ran" in check["detail"]
    assert "0 passed, 0 failed, 0 skipped (pytest)" in check["detail"]


def test_no_test_command_known_is_a_gap_and_nothing_runs(tmp_path):
    root = _project(tmp_path, command=None)
    code, out = _verify(root)
    check = _tests_check(out)
    assert code == 1 and check["result"] == "failed" and "no test command is known" in check["detail"]
    assert "`msd_run gate detect`" in check["detail"] and out["gate"]["status"] == "unconfigured"
    assert _runs(root) == [] and not (root / ".planning/.msd/gate/failed").exists()
    assert "tests_status: unconfigured" in (root / PHASE / "01-VERIFICATION.md").read_text()


def test_a_command_not_confirmed_here_is_a_gap_and_is_not_run(tmp_path):
    root = _project(tmp_path, command=f"{PYTEST} && touch RAN", confirm=False)
    code, out = _verify(root)
    check = _tests_check(out)
    assert code == 1 and "not confirmed on this machine" in check["detail"] and not (root / "RAN").exists()
    assert _runs(root) == []


def test_none_passes_without_running_anything(tmp_path):
    root = _project(tmp_path, command="none")
    code, out = _verify(root)
    check = _tests_check(out)
    assert code == 0 and check["result"] == "ok" and "no test suite" in check["detail"] and _runs(root) == []


def test_no_tests_reads_the_other_checks_without_running_anything_and_never_writes(tmp_path):
    root = _project(tmp_path)
    r = run_msd(["verify", "1", "--json", "--no-write", "--no-tests"], root)
    out = json.loads(r.stdout)
    assert r.returncode == 0 and "gate" not in out and not [c for c in out["checks"] if c["check"] == "tests"]
    assert _runs(root) == [] and not (root / PHASE / "01-VERIFICATION.md").exists()
    for bad in (["--no-tests"], ["--no-write", "--no-tests", "--fresh"]):
        r = run_msd(["verify", "1", *bad], root)
        assert r.returncode == 2 and "--no-tests" in r.stderr and "Traceback" not in r.stderr
    assert not (root / PHASE / "01-VERIFICATION.md").exists()
