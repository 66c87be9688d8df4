"""msd_run validate: a phase's requirements and must-haves mapped to the tests that exercise them (docs/CONTRACTS.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.execution import test_files, validate, validation_doc
from msd_core.planning import requirements
from tests.conftest import repo_env

REPO = Path(__file__).resolve().parents[2]

ROADMAP = """# Roadmap
- [ ] **Phase 2: Auth** - login
### Phase 2: Auth
**Goal**: login
**Requirements**: AUTH-01, AUTH-02 (partly: OTH-09)
```
**Requirements**: FENCE-01
```
#### Notes
Requirements: AUTH-03
### Phase 3: Other
**Requirements**: OTH-01
"""
REQS = """# Requirements
- [ ] **AUTH-01**: Users log in with email and password
- [x] **AUTH-02**: Users reset a password
- [ ] **AUTH-03**: Users log out
| ID | Text | Phase |
|---|---|---|
| TRC-01 | traced | Phase 2 |
| TRC-02 | elsewhere | 3 |
"""
PLAN = """---
phase: 02-auth
plan: 01
files_modified: [src/auth.py, tests/test_auth.py]
requirements: [AUTH-01]
must_haves:
  truths: ["A wrong password is refused with an error message", "Sessions survive a restart"]
  artifacts: [src/auth.py]
---
<tasks><task type="auto"><name>x</name><files>src/auth.py</files></task></tasks>
"""
TESTS = """from src.auth import login


def test_login_auth_01():
    assert login


def test_wrong_password_refused():
    # the error message is shown
    pass
"""


def _project(tmp_path: Path, tests: str = TESTS, plan: str = PLAN) -> Path:
    return write_project(tmp_path / "p", tests, plan)


def write_project(root: Path, tests: str = TESTS, plan: str = PLAN) -> Path:
    """A phase 02-auth with one plan, its code and one test file (the host test uses it too)."""
    (root / ".planning/phases/02-auth").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "src").mkdir()
    (root / ".planning/ROADMAP.md").write_text(ROADMAP)
    (root / ".planning/REQUIREMENTS.md").write_text(REQS)
    (root / ".planning/phases/02-auth/02-01-PLAN.md").write_text(plan)
    (root / "src/auth.py").write_text("def login():\n    pass\n")
    (root / "tests/test_auth.py").write_text(tests)
    return root


def _run(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = repo_env()
    return subprocess.run([sys.executable, "-m", "msd_core.run", "validate", *args, "--cwd", str(root)], env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def _items(report: dict) -> dict:
    return {it["id"]: it for it in report["items"]}


# ------------------------------------------------------------------------------- requirements


def test_definitions_read_list_items_and_table_rows():
    defs = requirements.definitions(REQS)
    assert defs["AUTH-01"] == "Users log in with email and password"
    assert defs["TRC-01"] == "traced"
    assert list(defs) == ["AUTH-01", "AUTH-02", "AUTH-03", "TRC-01", "TRC-02"]


def test_phase_requirements_from_its_roadmap_section_and_traceability_rows():
    # the section's Requirements line (a note in parentheses is no id; a fenced example is no line),
    # a sub-heading of the section still belongs to it, the next phase's does not; then the traced rows
    assert requirements.phase_requirements(ROADMAP, REQS, "2") == ["AUTH-01", "AUTH-02", "AUTH-03", "TRC-01"]
    assert requirements.phase_requirements(ROADMAP, REQS, "3") == ["OTH-01", "TRC-02"]
    assert requirements.phase_requirements("### Phase 4: X\nRequirements: TBD\n", "", "4") == []


def test_must_haves_truths_and_artifacts():
    assert requirements.must_haves({"must_haves": {"truths": ["a  b", 3], "artifacts": [{"path": "src/x.py"}, "y"]}}) \
        == (["a b", "3"], ["src/x.py", "y"])
    assert requirements.must_haves({"must_haves": "nonsense"}) == ([], [])
    assert requirements.must_haves({}) == ([], [])
    assert requirements.plan_requirements({"requirements": "AUTH-01, x, AUTH-02"}) == ["AUTH-01", "AUTH-02"]


def test_the_planning_guard_reads_requirement_ids_through_the_same_reader():
    """The guard's loss check (planning.requirements.mapped_lost, called by hooks/planning_guard.py)
    reads the ids with definition_ids: a draft dropping them all loses exactly those ROADMAP maps."""
    import inspect

    from msd_core.hooks import planning_guard

    ids = requirements.definition_ids(REQS)
    assert ids and requirements.mapped_lost(REQS, "", " ".join(ids)) == ids
    assert "mapped_lost" in inspect.getsource(planning_guard)


# ------------------------------------------------------------------------------- test files


@pytest.mark.parametrize("rel,expected", [
    ("tests/test_a.py", True), ("a_test.py", True), ("pkg/a_test.go", True), ("src/a.test.ts", True),
    ("src/a.spec.jsx", True), ("spec/a_spec.rb", True), ("src/FooTest.java", True), ("tests/helpers.py", True),
    ("src/__tests__/a.js", True), ("src/a.py", False), ("tests/data.json", False), ("testing.py", False),
])
def test_which_files_are_test_files(rel, expected):
    assert test_files.is_test_path(tuple(rel.split("/"))) is expected


def test_blocks_of_each_language():
    py = test_files.split_blocks("import x\n\ndef test_a():\n  pass\nasync def test_b():\n  pass\n", "t.py")
    assert [b.name for b in py] == [None, "test_a", "test_b"] and "import x" in py[0].text
    js = test_files.split_blocks("describe('x', () => {\n  it('logs in', () => {});\n  test.skip(\"logs out\", f)\n})", "a.test.js")
    assert [b.name for b in js] == [None, "logs in", "logs out"]
    go = test_files.split_blocks("package a\nfunc TestLogin(t *testing.T) {}\nfunc helper() {}\n", "a_test.go")
    assert [b.name for b in go] == [None, "TestLogin"]
    rs = test_files.split_blocks("#[test]\nfn logs_in() {}\n#[tokio::test]\nasync fn logs_out() {}\nfn helper() {}\n", "t.rs")
    assert [b.name for b in rs] == [None, "logs_in", "logs_out"]


def test_imports_of_python_and_js():
    assert test_files.imports("from src.auth import login, Session\nimport a.b, c\nfrom . import d\n", "t.py") == \
        ["src/auth", "src/auth/login", "src/auth/Session", "a/b", "c", "d"]
    assert test_files.imports("import { a } from '../src/auth.js'\nconst b = require(\"./lib/b\")\n", "t.test.js") == \
        ["src/auth", "lib/b"]


def test_imports_file_rule():
    assert validate.imports_file(["src/auth"], "src/auth.py")
    assert validate.imports_file(["auth"], "src/auth.py")
    assert validate.imports_file(["pkg"], "pkg/__init__.py")
    assert not validate.imports_file(["auth/extra"], "src/auth.py")
    assert not validate.imports_file(["author"], "src/auth.py")


def test_scan_skips_links_large_binary_hidden_and_package_folders(tmp_path):
    root = tmp_path
    (root / "tests").mkdir()
    (root / "tests/test_ok.py").write_text("def test_ok():\n  pass\n")
    (root / "tests/test_big.py").write_bytes(b"#" * (test_files.MAX_FILE_BYTES + 1))
    (root / "tests/test_bin.py").write_bytes(b"\x00\x01def test_x(): pass")
    (root / "outside.py").write_text("def test_outside(): pass\n")
    os.symlink(root / "outside.py", root / "tests/test_link.py")
    os.symlink(root / "tests", root / "linked_dir")
    for hidden in (".venv/lib", "node_modules/x"):
        (root / hidden).mkdir(parents=True)
        (root / hidden / "test_hidden.py").write_text("def test_h(): pass\n")
    os.mkfifo(root / "tests/test_fifo.py")
    found, skipped = test_files.scan(root)
    assert [t.rel for t in found] == ["tests/test_ok.py"]
    reasons = {s["file"]: s["reason"] for s in skipped}
    assert reasons["tests/test_link.py"] == "a symlink, not followed"
    assert reasons["linked_dir"] == "a symlink, not followed"
    assert reasons["tests/test_big.py"].startswith("larger than")
    assert reasons["tests/test_bin.py"] == "binary, not read"
    assert reasons["tests/test_fifo.py"].startswith("unreadable")  # a FIFO never blocks the scan


def test_scan_stops_at_its_entry_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(test_files, "MAX_ENTRIES", 5)
    for i in range(10):
        (tmp_path / f"test_{i}.py").write_text("def test_a(): pass\n")
    found, skipped = test_files.scan(tmp_path)
    assert len(found) < 10 and any("entries" in s["reason"] for s in skipped)


# ------------------------------------------------------------------------------- the rules


def test_keyword_rule_needs_its_share_of_key_terms():
    terms = validate.key_terms("A wrong password is refused with an error message")
    assert terms == ["wrong", "password", "refused", "error", "message"]
    assert validate.keywords_match(terms, "def test_wrong_password_refused():\n  # error\n")  # 4 of 5
    assert not validate.keywords_match(terms, "def test_password():\n  # error\n")  # 2 of 5 < 60%
    assert validate.key_terms("`GlobalState` counters update") == ["globalstate", "counter", "update"]


def test_a_truth_a_test_says_word_for_word_is_covered(tmp_path):
    """Issue 45: a truth of short or common words only ("Add works") has no key terms, so the
    keyword rule could never cover it, not even by a test that asserts it word for word."""
    plan = PLAN.replace('"Sessions survive a restart"', '"Add works"')
    assert validate.key_terms("Add works") == []
    tests = TESTS + '\n\ndef test_add():\n    assert add(1, 2) == 3, "add works"\n\n\ndef test_other():\n    """Add.   Works!"""\n'
    items = _items(validate.validate(_project(tmp_path, tests=tests, plan=plan), "2"))
    assert items["02-01#2"]["status"] == "covered"
    assert items["02-01#2"]["tests"] == [{"file": "tests/test_auth.py", "names": ["test_add", "test_other"], "rules": ["text"]}]


@pytest.mark.parametrize("block, says", [
    ("def test_x():\n    # Add works\n", True), ("def test_x():\n    # add  WORKS.\n", True),
    ("def test_x():\n    # add it works\n", False), ("def test_x():\n    # padding works\n", False),
    ("def test_x():\n    # add workshop\n", False),
])
def test_the_text_rule_takes_whole_words_in_order(block, says):
    assert validate.says_truth("Add works", test_files.TestBlock("test_x", block)) is says
    assert not validate.says_truth("Works", test_files.TestBlock("test_x", "# works\n"))  # one word is too little


def test_id_rule_accepts_underscores_and_any_case_but_not_a_longer_number():
    rx = validate.id_pattern("AUTH-01")
    assert rx.search("def test_auth_01_login") and rx.search("covers AUTH-01.")
    assert not rx.search("AUTH-011") and not rx.search("OAUTH-01")


def test_a_gap_is_reported_and_covered_items_name_their_tests(tmp_path):
    root = _project(tmp_path)
    report = validate.validate(root, "2")
    items = _items(report)
    assert report["ok"] is False
    assert items["AUTH-01"]["status"] == "covered"
    assert items["AUTH-01"]["tests"] == [{"file": "tests/test_auth.py", "names": ["test_login_auth_01"], "rules": ["id"]}]
    assert items["AUTH-01"]["text"] == "Users log in with email and password"
    assert items["02-01#1"]["tests"][0]["rules"] == ["keywords"]
    assert items["02-01:src/auth.py"]["tests"][0]["rules"] == ["artifact"]  # the test imports it
    assert set(report["gaps"]) == {"AUTH-02", "AUTH-03", "TRC-01", "02-01#2"}
    assert items["02-01#2"]["reason"] == "no test names it or holds its key terms"
    assert items["02-01#2"]["related"] == ["tests/test_auth.py"]  # it imports src/auth.py, which the plan modified
    assert "related" not in items["AUTH-01"]  # a covering test is not listed twice
    proc = _run(root, "2", "--json")
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["gaps"] == report["gaps"]
    text = _run(root, "02")
    assert text.returncode == 1 and "gap      02-01#2: no test names it or holds its key terms" in text.stdout


def test_importing_a_modified_file_is_related_not_coverage(tmp_path):
    root = _project(tmp_path, tests="from src.auth import login\n\ndef test_something_else():\n    pass\n")
    items = _items(validate.validate(root, "2"))
    assert items["02-01#2"]["status"] == "gap" and items["02-01#2"]["related"] == ["tests/test_auth.py"]
    assert items["AUTH-01"]["status"] == "gap" and items["AUTH-01"]["related"] == ["tests/test_auth.py"]


def test_all_covered_exits_0(tmp_path):
    tests = TESTS + "\n\ndef test_rest():\n    # AUTH-02 AUTH_03 trc-01, 02-01#2\n    pass\n"
    root = _project(tmp_path, tests=tests)
    report = validate.validate(root, "2")
    assert report["ok"] is True and report["gaps"] == []
    assert _items(report)["02-01#2"]["tests"][0]["rules"] == ["ref"]
    assert _run(root, "2").returncode == 0


def test_a_failing_gate_is_a_finding_and_its_paths_limit_coverage(tmp_path):
    from msd_core.execution import gate

    tests = TESTS + "\n\ndef test_rest():\n    # AUTH-02 AUTH_03 trc-01, 02-01#2\n    pass\n"
    root = _project(tmp_path, tests=tests)
    (root / "tests/unit").mkdir()
    entry = {"label": "phase 02", "command": "pytest -q tests/unit", "status": "failed", "exit_code": 1,
             "duration_s": 0.1, "at": "2026-01-01T00:00:00Z", "tail": ""}
    gate.record(root, entry)  # the gate's own writer: its record format, unchanged
    report = validate.validate(root, "2")
    assert report["gate"]["paths"] == ["tests/unit"] and report["gate"]["status"] == "failed"
    assert [f["code"] for f in report["findings"]] == ["gate"]
    item = _items(report)["AUTH-01"]
    assert item["status"] == "gap" and item["outside_gate"] == ["tests/test_auth.py"]
    assert item["reason"] == "its tests are outside the paths the gate runs (tests/unit)"
    gate.record(root, {**entry, "command": "sh tests/run.sh tests/test_auth.py", "status": "passed"})
    (root / "tests/run.sh").write_text("pytest \"$@\"\n")
    assert validate.gate_paths("sh tests/run.sh tests/test_auth.py -k x", root) == ["tests/test_auth.py"]  # a runner selects nothing
    gate.record(root, {**entry, "command": "pytest -q", "status": "passed"})
    assert validate.validate(root, "2")["ok"] is True


def test_unknown_phase_and_bad_usage_exit_2(tmp_path):
    root = _project(tmp_path)
    for args in (["9"], ["not a phase"], []):
        proc = _run(root, *args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 2


def test_malformed_plan_frontmatter_is_skipped_with_its_reason(tmp_path):
    root = _project(tmp_path, plan="---\nmust_haves: [unclosed\n  truths: {\n---\nbody\n")
    report = validate.validate(root, "2")
    assert {"file": ".planning/phases/02-auth/02-01-PLAN.md",
            "reason": "plan frontmatter unreadable: its must-haves not read"} in report["skipped"]
    assert not any(it["kind"] == "truth" for it in report["items"])
    assert _run(root, "2").returncode == 1  # the roadmap's requirements are still checked


def test_unreadable_and_linked_planning_files_are_skipped(tmp_path):
    root = _project(tmp_path)
    (root / ".planning/REQUIREMENTS.md").unlink()
    os.mkfifo(root / ".planning/REQUIREMENTS.md")
    outside = tmp_path / "elsewhere-PLAN.md"
    outside.write_text(PLAN.replace("02-01", "02-02"))
    os.symlink(outside, root / ".planning/phases/02-auth/02-02-PLAN.md")
    report = validate.validate(root, "2")
    assert any(s["file"] == ".planning/REQUIREMENTS.md" and "not read" in s["reason"] for s in report["skipped"])
    assert not any(it.get("plan") == "02-02" for it in report["items"])  # a linked plan is not read
    assert _items(report)["AUTH-01"]["text"] == ""


def test_write_keeps_the_text_after_the_machine_part(tmp_path):
    root = _project(tmp_path)
    proc = _run(root, "2", "--write", "--json")
    assert proc.returncode == 1, proc.stderr
    doc = root / ".planning/phases/02-auth/02-VALIDATION.md"
    out = json.loads(proc.stdout)
    assert (out["written"], out["changed"]) == (".planning/phases/02-auth/02-VALIDATION.md", True)
    same = _run(root, "2", "--write")
    assert same.returncode == 1 and "unchanged .planning/phases/02-auth/02-VALIDATION.md" in same.stdout
    text = doc.read_text()
    assert "status: gaps_found" in text and "| 02-01#2 | truth | gap | — |" in text
    assert '02-01#2 (plan 02-01): "Sessions survive a restart"' in text
    doc.write_text(text + "Notes a person wrote.\n")
    (root / "tests/test_more.py").write_text("def test_rest():\n    # AUTH-02 AUTH_03 trc-01, 02-01#2\n    pass\n")
    assert _run(root, "2", "--write").returncode == 0
    again = doc.read_text()
    assert "status: passed" in again and again.count(validation_doc.START) == 1
    assert again.endswith("Notes a person wrote.\n")


def test_write_refuses_a_symlink(tmp_path):
    root = _project(tmp_path)
    target = tmp_path / "victim.md"
    target.write_text("keep")
    os.symlink(target, root / ".planning/phases/02-auth/02-VALIDATION.md")
    proc = _run(root, "2", "--write")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and proc.stderr.strip()
    assert target.read_text() == "keep"


def test_validate_imports_nothing_heavy(tmp_path):
    from tests.kit.probe import denied, probe

    root = _project(tmp_path)
    res = probe(["validate", "2", "--json", "--cwd", str(root)], root, tmp_path / "probe.json")
    assert res["code"] == 1, res["err"]
    assert denied(res["modules"], set()) == []


# ------------------------------------------------------------------------------- the corpus


def _corpus_trees() -> list[Path]:
    base = REPO.parent / "shared/corpus/planning"
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if (p / ".planning").is_dir())


def test_every_phase_of_every_corpus_tree(tmp_path):
    trees = _corpus_trees()
    if not trees:
        pytest.skip("the corpus ../shared/corpus/planning/ is absent")
    from msd_core.planning.discovery import phase_dirs

    checked = 0
    for tree in trees:
        copy = tmp_path / tree.name
        shutil.copytree(tree, copy, symlinks=True)
        for pd in phase_dirs(copy / ".planning")[:40]:
            if pd.milestone is not None:
                continue
            try:
                report = validate.validate(copy, pd.name)
            except validate_errors() as exc:  # an ambiguous number is a usage error, one line
                assert "\n" not in str(exc)
                continue
            assert report["counts"]["items"] == len(report["items"])
            checked += 1
    assert checked > 0


def validate_errors():
    from msd_core.errors import UsageError

    return UsageError


def test_a_phase_on_the_roadmap_without_a_folder(tmp_path):
    root = _project(tmp_path)
    report = validate.validate(root, "3")
    assert report["phase"]["folder"] is None and report["gaps"] == ["OTH-01", "TRC-02"]
    proc = _run(root, "3", "--write")
    assert proc.returncode == 1 and "has no folder yet" in proc.stderr and "Traceback" not in proc.stderr
