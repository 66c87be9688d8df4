"""`msd_run verify <phase>`: artifacts, stubs, key links, requirement coverage, the machine part (issue 30, item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.execution.test_plan_check import ROADMAP, plan

MUST = ("must_haves:\n  truths: [\"habits can be created\"]\n  artifacts:\n    - src/habits.py\n"
        "    - {path: src/store.py, min_lines: 3, contains: 'def save'}\n"
        "  key_links:\n    - {from: src/app.py, to: src/habits.py, pattern: '^from habits import'}\n")
GOOD = {"src/habits.py": "def create(name):\n    return {'name': name}\n",
        "src/store.py": "import json\n\ndef save(habit):\n    return json.dumps(habit)\n",
        "src/app.py": "from habits import create\nprint(create('x'))\n"}


def project(tmp_path: Path, code: dict[str, str], must: str = MUST, reqs=("HABIT-01", "HABIT-02")) -> Path:
    root = tmp_path / "p"
    phase = root / ".planning" / "phases" / "01-core"
    phase.mkdir(parents=True)
    (root / ".planning" / "ROADMAP.md").write_text(ROADMAP)
    (root / ".planning" / "config.json").write_text('{"testing": {"command": "none"}}')  # the tests: test_verify_tests.py
    (phase / "01-01-PLAN.md").write_text(plan(must=must, reqs=reqs))
    for rel, text in code.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def verify(msd_run, root, *extra):
    r = msd_run(["verify", "1", "--json", *extra], cwd=root)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


def failed(out) -> list[tuple[str, str]]:
    return sorted((c["check"], c["subject"]) for c in out["checks"] if c["result"] == "failed")


def test_a_built_phase_passes_and_the_machine_part_is_written(msd_run, tmp_path):
    root = project(tmp_path, GOOD)
    code, out = verify(msd_run, root)
    assert code == 0 and out["result"] == "passed" and out["checked"] == 6 and failed(out) == []
    text = (root / ".planning/phases/01-core/01-VERIFICATION.md").read_text()
    assert text.startswith("---\nphase: 01-core\nstatus: passed\n---\n<!-- msd:verify:start -->\n")
    assert "result: passed" in text and "| key-link | src/app.py -> src/habits.py | ok | line 1 |" in text


@pytest.mark.parametrize("change,expected", [
    ({"src/habits.py": None}, [("artifact", "src/habits.py"), ("key-link", "src/app.py -> src/habits.py")]),
    ({"src/habits.py": "\n   \n"}, [("artifact", "src/habits.py")]),
    ({"src/store.py": "def save(h):\n    pass\n"}, [("artifact", "src/store.py")]),  # under min_lines
    ({"src/store.py": "def save(h):\n    x = 1\n    raise NotImplementedError\n"}, [("artifact", "src/store.py")]),
    ({"src/habits.py": "def create(n):\n    # TODO: implement the real store later\n    return None\n"}, [("artifact", "src/habits.py")]),
    ({"src/store.py": "import json\n\ndef load(h):\n    return h\n"}, [("artifact", "src/store.py")]),  # contains
    ({"src/app.py": "import os\nprint('habits')\n"}, [("key-link", "src/app.py -> src/habits.py")]),
    ({"src/app.py": None}, [("key-link", "src/app.py -> src/habits.py")]),
])
def test_each_check_fails_on_its_fixture(msd_run, tmp_path, change, expected):
    code_files = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    root = project(tmp_path, code_files)
    code, out = verify(msd_run, root)
    assert code == 1 and out["result"] == "failed" and failed(out) == expected, out["checks"]


def test_an_uncovered_requirement_fails(msd_run, tmp_path):
    root = project(tmp_path, GOOD, reqs=("HABIT-01",))
    code, out = verify(msd_run, root)
    assert code == 1 and failed(out) == [("requirement", "HABIT-02")]


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.py", "src/link.py"])
def test_paths_outside_the_project_are_not_read(msd_run, tmp_path, path):
    (tmp_path / "outside.py").write_text("def a():\n    return 1\n")
    must = f"must_haves:\n  truths: [\"x\"]\n  artifacts: [{path}]\n  key_links: []\n"
    root = project(tmp_path, GOOD, must=must)
    (root / "src/link.py").symlink_to(tmp_path / "outside.py")
    code, out = verify(msd_run, root)
    assert code == 1 and failed(out) == [("artifact", path)]
    assert "outside the project" in out["checks"][0]["detail"]


def test_a_bad_pattern_fails_the_plan_not_the_command(msd_run, tmp_path):
    must = "must_haves:\n  truths: [\"x\"]\n  artifacts: [src/habits.py]\n  key_links:\n    - {from: src/app.py, to: src/habits.py, pattern: '(['}\n"
    root = project(tmp_path, GOOD, must=must)
    code, out = verify(msd_run, root)
    assert code == 1 and failed(out) == [("must-haves", "01-01")]


def test_the_judgement_is_kept_and_a_failed_check_cannot_be_overwritten(msd_run, tmp_path):
    from msd_core.progress.lifecycle import where

    root = project(tmp_path, GOOD)
    (root / ".planning/phases/01-core/01-01-SUMMARY.md").write_text("---\nphase: 01-core\n---\n# done\n")
    vfile = root / ".planning/phases/01-core/01-VERIFICATION.md"
    vfile.write_text("---\nphase: 01-core\nstatus: passed\nscore: 1/1\n---\n# Phase 1: Core — Verification\n\n## Truths\nall good\n")
    (root / "src/habits.py").write_text("")  # the artifact is a stub
    code, out = verify(msd_run, root)
    assert code == 1
    text = vfile.read_text()
    assert "status: passed" in text and "## Truths\nall good\n" in text and "result: failed" in text
    assert where(root, verifier=True).current[1] == "gaps"  # the agent's `passed` does not stand
    # the agent edits the machine part to say passed: the digest no longer matches
    vfile.write_text(text.replace("result: failed", "result: passed"))
    assert where(root, verifier=True).current[1] == "gaps"
    # fixed and verified again: one machine part, replaced in place, and the phase is done
    (root / "src/habits.py").write_text(GOOD["src/habits.py"])
    code, out = verify(msd_run, root)
    text = vfile.read_text()
    assert code == 0 and text.count("<!-- msd:verify:start -->") == 1 and "## Truths\nall good\n" in text
    assert where(root, verifier=True).current is None or where(root, verifier=True).states[0][1] == "done"


def test_no_write_leaves_the_file_alone(msd_run, tmp_path):
    root = project(tmp_path, GOOD)
    code, out = verify(msd_run, root, "--no-write")
    assert code == 0 and "file" not in out
    assert not (root / ".planning/phases/01-core/01-VERIFICATION.md").exists()


def test_bad_usage_and_a_symlinked_verification(msd_run, tmp_path):
    root = project(tmp_path, GOOD)
    r = msd_run(["verify", "9"], cwd=root)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    target = tmp_path / "elsewhere.md"
    target.write_text("x")
    (root / ".planning/phases/01-core/01-VERIFICATION.md").symlink_to(target)
    r = msd_run(["verify", "1"], cwd=root)
    assert r.returncode == 1 and "symlink" in r.stderr and target.read_text() == "x"


def test_concurrent_runs_leave_one_intact_machine_part(tmp_path):
    """Four `msd_run verify` at once (an orchestrator and a verifier): the lock serialises the
    read-modify-write; one block, its digest intact, the judgement kept."""
    import subprocess
    import sys

    from msd_core.planning import check_status

    root = project(tmp_path, GOOD)
    vfile = root / ".planning/phases/01-core/01-VERIFICATION.md"
    vfile.write_text("---\nphase: 01-core\nstatus: passed\n---\n# judgement\nkept\n")
    procs = [subprocess.Popen([sys.executable, "-m", "msd_core.run", "verify", "1"], cwd=root,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    for p in procs:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    text = vfile.read_text()
    assert text.count(check_status.BLOCK_START) == 1 and text.count("<!-- msd:verify:end") == 1
    assert check_status.find_block(text)[3] is True and text.endswith("# judgement\nkept\n")
