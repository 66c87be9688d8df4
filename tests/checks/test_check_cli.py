"""`msd check content` and scripts/check_content.py: exit codes, output, JSON, --write; the shipped tree."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from msd_core.checks import run_checks
from msd_core.checks.report import violation_line

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "content"
SCRIPT = REPO / "scripts" / "check_content.py"


def script(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_clean_tree_exits_0(msd):
    r = msd(["check", "content", "--root", str(FIXTURES / "pass")])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "content check passed: 11 files" in r.stdout


def test_violations_exit_1_with_file_line_rule_and_fix(msd):
    r = msd(["check", "content", "--root", str(FIXTURES / "commit-scope")])
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert "msd-core/workflows/plan/detail/02-commit.md:6: [commit-scope] `git add -A` stages every change, not named files" in lines
    assert sum(1 for line in lines if "[commit-scope]" in line) == 5  # every violation, not the first
    assert sum(1 for line in lines if line.strip().startswith("fix:")) == 5
    assert r.stderr.count("\n") == 1 and "5 content violation(s)" in r.stderr


def test_json_envelope(msd):
    r = msd(["check", "content", "--root", str(FIXTURES / "includes"), "--json"])
    assert r.returncode == 1
    data = json.loads(r.stdout)
    assert data["schema_version"] == 1 and data["ok"] is False and data["exit_code"] == 1
    assert data["counts"] == {"includes": 3}
    v = data["violations"][0]
    assert set(v) == {"rule", "file", "line", "message", "fix"}
    assert (v["rule"], v["file"], v["line"]) == ("includes", "commands/msd/plan.md", 9)


def test_missing_root_exits_2(msd, tmp_path):
    r = msd(["check", "content", "--root", str(tmp_path / "nope")])
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "is not a folder" in r.stderr


def test_write_regenerates_and_reports(msd, tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES / "generated", tree)
    r = msd(["check", "content", "--root", str(tree), "--write"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "wrote msd-core/registry.json" in r.stdout and "wrote INVENTORY.md" in r.stdout
    assert (tree / "msd-core/registry.json").read_bytes() == (FIXTURES / "pass/msd-core/registry.json").read_bytes()
    assert (tree / "INVENTORY.md").read_bytes() == (FIXTURES / "pass/INVENTORY.md").read_bytes()


def test_script_calls_the_same_code(tmp_path):
    ok = script(["--root", str(FIXTURES / "pass")])
    assert ok.returncode == 0 and "content check passed" in ok.stdout
    bad = script(["--root", str(FIXTURES / "shell-context"), "--json"])
    assert bad.returncode == 1
    assert json.loads(bad.stdout)["counts"] == {"shell-context": 6}
    usage = script(["--root", str(tmp_path / "missing")])
    assert usage.returncode == 2 and usage.stderr.count("\n") == 1


def test_shipped_tree_passes():
    """The shipped content obeys every rule, and its registry.json and docs/INVENTORY.md are current."""
    report = run_checks()
    assert report.files_checked > 0
    assert report.violations == [], "\n".join(violation_line(v) for v in report.violations)


def test_write_waits_for_the_lock_and_exits_4(msd, tmp_path):
    import filelock

    from msd_core.checks.generated import _lock_path

    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES / "pass", tree)
    with filelock.FileLock(str(_lock_path(tree))):
        r = msd(["check", "content", "--root", str(tree), "--write"], env={"MSD_LOCK_TIMEOUT": "0.2"})
    assert r.returncode == 4
    assert r.stderr.count("\n") == 1 and "could not lock" in r.stderr


def test_msd_check_content_prints_its_human_report(msd):
    r = msd(["check", "content"])
    assert (r.returncode, r.stdout.strip().splitlines()[-1]) == (0, f"content check passed: {run_checks().files_checked} files")
    assert r.stderr == ""
