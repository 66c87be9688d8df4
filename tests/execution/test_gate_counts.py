"""The gate counts tests (msd_core.execution.test_counts, issues 30 item 2 and 45 item 2).

Fixtures in tests/execution/fixtures/gate_output/ (`<runner>_<case>.rc<exit code>.txt`); NOTES.md
there says, file by file, which come from real runs on a development machine (runner version and
command) and which are written from a runner's documented output (dotnet, gradle, maven: they do
not install here). Expected counts are written by hand from each file. The gate itself is also run
end to end on real pytest and node suites, and on the recorded zero-test outputs.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from msd_core.execution.test_counts import count, no_tests_flag, verdict
from tests.kit.gitkit import run_msd

FIX = Path(__file__).parent / "fixtures" / "gate_output"


def _fixture(name: str) -> tuple[str, int]:
    path = next(FIX.glob(f"{name}.rc*.txt"))
    return path.read_text(encoding="utf-8"), int(path.name.split(".rc")[1].split(".")[0])


CASES = [
    # name, runner, ran, passed, failed, skipped, fails the gate for lack of tests
    ("pytest_pass", "pytest", 2, 2, 0, 0, False),
    ("pytest_fail", "pytest", 3, 2, 1, 1, False),
    ("pytest_fail_q", "pytest", 3, 2, 1, 1, False),
    ("pytest_none", "pytest", 0, 0, 0, 0, True),
    ("unittest_pass", "unittest", 2, 2, 0, 1, False),
    ("unittest_fail", "unittest", 2, 1, 1, 1, False),
    ("unittest_none", "unittest", 0, 0, 0, 0, True),  # `Ran 0 tests` then `OK`, exit 0 (Python 3.11)
    ("node_pass", "node", 1, 1, 0, 0, False),
    ("node_fail", "node", 3, 2, 1, 2, False),  # 5 tests: 1 skipped and 1 todo did not run
    ("node_none", "node", 0, 0, 0, 0, True),  # exit 0: only the count says nothing ran
    ("jest_pass", "jest", 2, 2, 0, 1, False),
    ("jest_fail", "jest", 2, 1, 1, 1, False),
    ("jest_none", "jest", 0, 0, 0, 0, True),
    ("jest_none_passwithnotests", "jest", 0, 0, 0, 0, True),
    ("vitest_pass", "vitest", 2, 2, 0, 1, False),
    ("vitest_fail", "vitest", 2, 1, 1, 1, False),
    ("vitest_none", "vitest", 0, 0, 0, 0, True),
    ("mocha_pass", "mocha", 2, 2, 0, 1, False),
    ("mocha_fail", "mocha", 2, 1, 1, 1, False),
    ("mocha_none", "mocha", 0, 0, 0, 0, True),  # `0 passing`, exit 0: the bug of issue 45
    ("mocha_nofiles", "mocha", 0, 0, 0, 0, True),
    ("jasmine_pass", "jasmine", 2, 2, 0, 1, False),
    ("jasmine_fail", "jasmine", 2, 1, 1, 1, False),
    ("jasmine_none", "jasmine", 0, 0, 0, 0, True),
    ("ava_pass", "ava", 2, 2, 0, 1, False),
    ("ava_fail", "ava", 2, 1, 1, 1, False),  # the summary leaves the passed one out: its tick counts
    ("ava_none", "ava", 0, 0, 0, 0, True),
    ("tap_pass", "tap", 2, 2, 0, 1, False),
    ("tap_fail", "tap", 2, 1, 1, 1, False),
    ("tap_none", "tap", 0, 0, 0, 1, True),  # the file without tests is reported as one skipped
    ("cargo_pass", "cargo", 3, 3, 0, 1, False),  # unit tests and doc tests summed
    ("cargo_fail", "cargo", 3, 2, 1, 1, False),
    ("cargo_none", "cargo", 0, 0, 0, 0, True),  # every test filtered out, exit 0
    ("go_pass_v", "go", 2, 2, 0, 1, False),
    ("go_fail_v", "go", 2, 0, 2, 1, False),
    ("rspec_pass", "rspec", 2, 2, 0, 1, False),
    ("rspec_fail", "rspec", 2, 1, 1, 1, False),
    ("rspec_none", "rspec", 0, 0, 0, 0, True),  # `0 examples, 0 failures`, exit 0
    ("minitest_pass", "minitest", 2, 2, 0, 1, False),
    ("minitest_fail", "minitest", 2, 1, 1, 1, False),
    ("minitest_none", "minitest", 0, 0, 0, 0, True),  # `0 runs, ...`, exit 0
    ("phpunit_pass", "phpunit", 2, 2, 0, 1, False),
    ("phpunit_fail", "phpunit", 2, 1, 1, 1, False),
    ("phpunit_none", "phpunit", 0, 0, 0, 0, True),  # `No tests executed!`, exit 0
    ("dotnet_pass", "dotnet", 2, 2, 0, 1, False),
    ("dotnet_fail", "dotnet", 6, 5, 1, 1, False),  # two test assemblies summed
    ("dotnet_legacy_pass", "dotnet", 5, 5, 0, 0, False),
    ("dotnet_none", "dotnet", 0, 0, 0, 0, True),
    ("gradle_fail", "gradle", 2, 1, 1, 1, False),
    ("gradle_none", "gradle", 0, 0, 0, 0, True),
    ("gradle_none_filtered", "gradle", 0, 0, 0, 0, True),
    ("maven_pass", "maven", 2, 2, 0, 1, False),  # the Results line, not the per-class one as well
    ("maven_fail", "maven", 2, 1, 1, 1, False),
    ("maven_none", "maven", 0, 0, 0, 0, True),
]


def test_every_fixture_is_in_a_case_and_described():
    names = {p.name.split(".rc")[0] for p in FIX.glob("*.txt")}
    covered = {c[0] for c in CASES} | {"go_pass", "go_none", "go_none_v", "go_fail", "gradle_pass"}
    assert names == covered
    notes = (FIX / "NOTES.md").read_text()
    assert all(p.name in notes for p in FIX.glob("*.txt"))


@pytest.mark.parametrize("name,runner,ran,passed,failed,skipped,empty", CASES, ids=[c[0] for c in CASES])
def test_the_runners_own_summary_is_counted(name, runner, ran, passed, failed, skipped, empty):
    text, code = _fixture(name)
    got = count(text)
    assert got == {"runner": runner, "ran": ran, "passed": passed, "failed": failed, "skipped": skipped}
    assert (verdict(code, got) is not None) is empty


def test_a_passing_gradle_build_has_no_counts_and_its_exit_code_decides():
    text, code = _fixture("gradle_pass")
    assert count(text) is None and verdict(code, None) is None


def test_go_without_verbose_knows_packages_and_failures_not_passes():
    ok = count(_fixture("go_pass")[0])
    assert ok["runner"] == "go" and ok["ran"] is None and ok["packages_failed"] == 0
    assert verdict(0, ok) is None  # packages passed: the exit code decides
    for name in ("go_none", "go_none_v"):  # `[no test files]`, with or without -v
        none = count(_fixture(name)[0])
        assert none["ran"] == 0 and "0 tests executed" in verdict(0, none)
    fail = count(_fixture("go_fail")[0])
    assert fail == {"runner": "go", "ran": None, "passed": None, "failed": 2, "skipped": None}


ZERO_EXIT_0 = sorted(p.name for p in FIX.glob("*.rc0.txt") if "_none" in p.name)


@pytest.mark.parametrize("fixture", ZERO_EXIT_0)
def test_a_run_that_exits_0_without_running_a_test_fails_the_gate(tmp_path, fixture):
    """The gate, end to end, over each recorded zero-test output whose runner exited 0 (mocha's `0 passing`,
    rspec's `0 examples`, ...): the command prints the recorded output and exits 0."""
    shutil.copy(FIX / fixture, tmp_path / "out.txt")
    root = _project(tmp_path, f"{shlex.quote(sys.executable)} -c \"print(open('../out.txt').read())\"")
    code, entry, err = _gate(root)
    assert entry["exit_code"] == 0 and code == 1 and entry["status"] == "failed"
    assert entry["tests"]["ran"] == 0 and "0 tests executed" in entry["reason"] and "0 tests executed" in err


def test_unittest_of_python_3_12_says_no_tests_ran():
    # written from CPython 3.12's documented output (unittest exits 5 then); 3.11 is captured above
    got = count("\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nNO TESTS RAN\n")
    assert got == {"runner": "unittest", "ran": 0, "passed": 0, "failed": 0, "skipped": 0}
    assert verdict(5, got) is not None


def test_output_no_parser_knows_leaves_the_exit_code_to_decide():
    assert count("ok: all tests passed\n") is None
    assert count("") is None
    assert verdict(0, None) is None


@pytest.mark.parametrize("command,flag", [
    ("npx jest --passWithNoTests", "--passWithNoTests"),
    ("vitest run --passWithNoTests=true", "--passWithNoTests=true"),
    ("npm test -- --pass-with-no-tests", "--pass-with-no-tests"),
    ("cargo nextest run --no-tests=pass", "--no-tests=pass"),
    ("pytest --suppress-no-test-exit-code", "--suppress-no-test-exit-code"),
    ("npx jest", None),
    ("npx jest --passWithNoTestsX", None),
])
def test_flags_that_let_a_suite_pass_without_tests(command, flag):
    assert no_tests_flag(command) == flag


# ---------------------------------------------------------------- the gate, end to end


def _project(tmp_path: Path, command: str) -> Path:
    root = tmp_path / "p"
    (root / ".planning").mkdir(parents=True, exist_ok=True)
    (root / ".planning" / "config.json").write_text("{}")
    r = run_msd(["gate", "confirm", "--command", command], root)
    assert r.returncode == 0, r.stderr
    return root


def _gate(root: Path) -> tuple[int, dict, str]:
    r = run_msd(["gate", "run", "--label", "t"], root)
    assert "Traceback" not in r.stderr
    return r.returncode, json.loads(r.stdout), r.stderr


PYTEST = f"{shlex.quote(sys.executable)} -m pytest -p no:cacheprovider tests"


def test_a_pytest_gate_records_its_counts_and_fails_when_no_test_runs(tmp_path):
    root = _project(tmp_path, PYTEST)
    (root / "tests").mkdir()
    (root / "tests" / "test_a.py").write_text("import pytest\ndef test_a(): pass\n"
                                              "@pytest.mark.skip\ndef test_b(): pass\n")
    code, entry, _err = _gate(root)
    assert code == 0 and entry["status"] == "passed"
    assert entry["tests"] == {"runner": "pytest", "ran": 1, "passed": 1, "failed": 0, "skipped": 1}
    assert not (root / ".planning/.msd/gate/failed").exists()
    (root / "tests" / "test_a.py").write_text("# the tests were deleted\n")
    code, entry, err = _gate(root)
    assert code == 1 and entry["status"] == "failed" and entry["exit_code"] == 5
    assert entry["reason"] == "no tests ran (pytest exit code 5)" and "no tests ran" in err
    assert (root / ".planning/.msd/gate/failed").exists()
    (root / "tests" / "test_a.py").write_text("import pytest\n@pytest.mark.skip\ndef test_b(): pass\n")
    code, entry, _err = _gate(root)  # everything skipped: exit 0, nothing executed
    assert code == 1 and entry["exit_code"] == 0 and entry["tests"]["ran"] == 0 and "0 tests executed" in entry["reason"]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_node_gate_that_finds_no_test_fails_although_node_exits_0(tmp_path):
    root = _project(tmp_path, "node --test")
    code, entry, _err = _gate(root)
    assert entry["exit_code"] == 0 and code == 1 and entry["status"] == "failed"
    assert entry["tests"]["runner"] == "node" and entry["tests"]["ran"] == 0
    (root / "a.test.js").write_text("const test = require('node:test');\ntest('a', () => {});\n")
    code, entry, _err = _gate(root)
    assert code == 0 and entry["tests"] == {"runner": "node", "ran": 1, "passed": 1, "failed": 0, "skipped": 0}


def test_a_command_allowed_to_pass_without_tests_is_neither_confirmed_nor_run(tmp_path):
    root = _project(tmp_path, f"{shlex.quote(sys.executable)} -c 'pass'")
    r = run_msd(["gate", "confirm", "--command", "npx jest --passWithNoTests"], root)
    assert r.returncode == 2 and "--passWithNoTests" in r.stderr and "Traceback" not in r.stderr
    # a command the config carries with the flag (confirmed by an older msd): the run fails, nothing runs
    planted = f"{shlex.quote(sys.executable)} -c \"open('RAN', 'w')\" --passWithNoTests"
    from msd_core.execution import gate

    gate.confirm(root, planted)
    (root / ".planning/config.json").write_text(json.dumps({"testing": {"command": planted}}))
    code, entry, err = _gate(root)
    assert code == 1 and entry["status"] == "failed" and "--passWithNoTests" in entry["reason"]
    assert not (root / "RAN").exists() and "--passWithNoTests" in err
