"""The gate counts tests (msd_core.execution.test_counts, issue 30 item 2).

Fixtures in tests/execution/fixtures/gate_output/ (`<runner>_<case>.rc<exit code>.txt`):
pytest 9.2, node 20 (`node --test`) and cargo 1.x outputs were produced by running those tools
on small suites on this machine (paths shortened); go, jest and vitest are not installed here,
so their files are written from the formats their documentation shows. Expected counts are
written by hand from each file. The gate itself is also run end to end on real pytest and node
suites.
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
    ("node_pass", "node", 1, 1, 0, 0, False),
    ("node_fail", "node", 3, 2, 1, 2, False),  # 5 tests: 1 skipped and 1 todo did not run
    ("node_none", "node", 0, 0, 0, 0, True),  # exit 0: only the count says nothing ran
    ("cargo_pass", "cargo", 3, 3, 0, 1, False),  # unit tests and doc tests summed
    ("cargo_fail", "cargo", 3, 2, 1, 1, False),
    ("cargo_none", "cargo", 0, 0, 0, 0, True),  # every test filtered out, exit 0
    ("jest_pass", "jest", 3, 3, 0, 0, False),
    ("jest_fail", "jest", 5, 4, 1, 1, False),
    ("jest_none_passwithnotests", "jest", 0, 0, 0, 0, True),
    ("vitest_pass", "vitest", 3, 3, 0, 0, False),
    ("vitest_fail", "vitest", 5, 4, 1, 1, False),
    ("vitest_none", "vitest", 0, 0, 0, 0, True),
    ("go_verbose_fail", "go", 5, 4, 1, 1, False),  # TestTable's two subtests counted
]


@pytest.mark.parametrize("name,runner,ran,passed,failed,skipped,empty", CASES, ids=[c[0] for c in CASES])
def test_the_runners_own_summary_is_counted(name, runner, ran, passed, failed, skipped, empty):
    text, code = _fixture(name)
    got = count(text)
    assert got == {"runner": runner, "ran": ran, "passed": passed, "failed": failed, "skipped": skipped}
    assert (verdict(code, got) is not None) is empty


def test_go_without_verbose_knows_packages_not_tests():
    ok = count(_fixture("go_pass")[0])
    assert ok["runner"] == "go" and ok["ran"] is None and ok["packages_failed"] == 0
    assert verdict(0, ok) is None  # packages passed: the exit code decides
    none = count(_fixture("go_none")[0])
    assert none["ran"] == 0 and "0 tests executed" in verdict(0, none)


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
