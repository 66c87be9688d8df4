"""`wave merge` stops at a branch commit that `msd_run commit` did not make for its plan, and
reports an msd commit's files outside the plan; `commit` refuses inside a stopped rebase (and a
revert or cherry-pick stop) as it does during a merge."""

from __future__ import annotations

import json

import pytest

from tests.execution.test_exec_waves import TWO, _run_isolated
from tests.kit.gitkit import git, make_project, run_msd


def _merge(root):
    return run_msd(["wave", "merge", "--phase-dir", "02-demo", "--wave", "1"], root)


def test_a_hand_commit_on_an_executors_branch_stops_the_wave_before_it(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, TWO)
    trees = _run_isolated(root, phase, TWO)
    (trees["02-02"] / "src" / "evil.py").write_text("import os\n")
    git(trees["02-02"], "add", "src/evil.py")
    git(trees["02-02"], "commit", "-qm", "chore: sneak a file in")
    sneaked = git(trees["02-02"], "rev-parse", "HEAD").strip()
    r = _merge(root)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and f"{sneaked[:12]} (no Msd-Plan trailer)" in r.stderr and "plan 02-02" in r.stderr
    out = json.loads(r.stdout)
    assert out["refused"]["plan"] == "02-02" and [c["hash"] for c in out["refused"]["commits"]] == [sneaked]
    assert [m["status"] for m in out["merged"]] == ["merged", "refused"]  # 02-01 landed before; 02-02 did not
    assert not (root / "src" / "evil.py").exists() and not (root / "src" / "beta.py").exists()
    assert git(root, "rev-parse", "--verify", "-q", "MERGE_HEAD", check=False) == ""
    assert trees["02-02"].exists()  # kept for the person to review


def test_a_commit_made_for_another_plan_stops_the_wave(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, TWO)
    trees = _run_isolated(root, phase, TWO)
    # 02-01's executor also commits a change through msd for plan 02-02 (its trailer names 02-02)
    wt = trees["02-01"]
    (wt / "src" / "beta.py").write_text("from 02-01's tree\n")
    r = run_msd(["commit", "--plan", str(wt / ".planning/phases/02-demo/02-02-PLAN.md"), "--files", "src/beta.py",
                 "-m", "feat(02-02): wrong tree"], wt)
    assert r.returncode == 0, r.stderr
    m = _merge(root)
    assert m.returncode == 1 and "Msd-Plan: 02-demo/02-02" in m.stderr, m.stderr
    assert json.loads(m.stdout)["refused"]["plan"] == "02-01"


def test_an_msd_commit_outside_the_plan_is_reported_with_its_deviation(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, TWO)
    trees = _run_isolated(root, phase, TWO)
    wt = trees["02-01"]
    (wt / "src" / "extra.py").write_text("x = 1\n")
    plan = str(wt / ".planning/phases/02-demo/02-01-PLAN.md")
    r = run_msd(["commit", "--plan", plan, "--files", "src/extra.py", "--deviation", "D1: a helper was needed",
                 "-m", "feat(02-01): helper"], wt)
    assert r.returncode == 0, r.stderr
    m = _merge(root)
    assert m.returncode == 0, m.stderr
    first = json.loads(m.stdout)["merged"][0]
    assert first["plan"] == "02-01" and first["outside_plan"] == [
        {"commit": json.loads(r.stdout)["hash"], "files": ["src/extra.py"], "deviation": "D1: a helper was needed"}]
    assert "outside_plan" not in json.loads(m.stdout)["merged"][1]


def _stop(repo, how: str) -> None:
    (repo / "x.txt").write_text("base\n")
    git(repo, "add", "x.txt")
    git(repo, "commit", "-qm", "x base")
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "x.txt").write_text("other\n")
    git(repo, "commit", "-qam", "x other")
    git(repo, "checkout", "-q", "main")
    (repo / "x.txt").write_text("main\n")
    git(repo, "commit", "-qam", "x main")
    if how == "rebase-edit":
        git(repo, "-c", "sequence.editor=sed -i 1s/^pick/edit/", "rebase", "-q", "-i", "HEAD~1", check=False)
    elif how == "rebase-break":
        git(repo, "-c", "sequence.editor=sed -i 1ibreak", "rebase", "-q", "-i", "HEAD~1", check=False)
    elif how == "rebase-conflict":
        git(repo, "rebase", "-q", "other", check=False)
    elif how == "cherry-pick":
        git(repo, "cherry-pick", "other", check=False)
    elif how == "merge":
        git(repo, "merge", "-q", "other", check=False)


@pytest.mark.parametrize("how", ["rebase-edit", "rebase-break", "rebase-conflict", "cherry-pick", "merge"])
def test_commit_inside_a_stopped_operation_is_refused(tmp_path, how):
    root = tmp_path / "p"
    phase = make_project(root, TWO)
    _stop(root, how)
    head = git(root, "rev-parse", "HEAD").strip()
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "alpha.py").write_text("mid-operation\n")
    r = run_msd(["commit", "--plan", str(phase / "02-01-PLAN.md"), "--files", "src/alpha.py", "-m", "feat(02-01): x"], root)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "a git operation is in progress" in r.stderr, r.stderr
    assert git(root, "rev-parse", "HEAD").strip() == head
    assert git(root, "diff", "--cached", "--name-only") .strip() in ("", "x.txt")  # nothing of ours staged
