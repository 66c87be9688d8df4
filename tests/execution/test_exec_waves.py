"""Isolated parallel executors: `msd_run wave plan|check|sync|merge` on real repositories."""

from __future__ import annotations

import json
import time

from tests.kit.gitkit import commits, git, make_project, run_msd, start_executor

TWO = {"02-01": {"wave": 1, "files": ["src/alpha.py"], "tasks": 2},
       "02-02": {"wave": 1, "files": ["src/beta.py"], "tasks": 2}}


def _worktree(root, pid):
    """What Claude Code's Agent tool does for `isolation: "worktree"`: a new branch in .claude/worktrees/."""
    path = root / ".claude" / "worktrees" / f"agent-{pid}"
    git(root, "worktree", "add", "-q", "-b", f"worktree-agent-{pid}", str(path), "HEAD")
    return path


def _run_isolated(root, phase, plans, *, plan_in_main=False):
    start = time.time() + 1.0
    trees = {pid: _worktree(root, pid) for pid in plans}
    procs = {}
    for pid, spec in plans.items():
        plan = (phase / f"{pid}-PLAN.md") if plan_in_main else trees[pid] / ".planning" / "phases" / phase.name / f"{pid}-PLAN.md"
        procs[pid] = start_executor(trees[pid], plan, spec["files"], tasks=spec["tasks"], start_at=start,
                                    tag=spec.get("tag", ""))
    for pid, p in procs.items():
        _out, err = p.communicate(timeout=180)
        assert p.returncode == 0, (pid, err)
    return trees


def test_isolated_wave_merges_in_plan_order_and_cleans_up(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, TWO)
    trees = _run_isolated(root, phase, TWO)
    r = run_msd(["wave", "merge", "--phase-dir", "02-demo", "--wave", "1"], root)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [m["plan"] for m in out["merged"]] == ["02-01", "02-02"]
    merges = [c["subject"] for c in commits(root, first_parent=True) if c["subject"].startswith("merge(")]
    assert merges == ["merge(02-02): worktree-agent-02-02 (wave 1)", "merge(02-01): worktree-agent-02-01 (wave 1)"]
    for pid, spec in TWO.items():
        assert (root / spec["files"][0]).read_text() == f"{pid} task 1\n{pid} task 2\n"
        assert (phase / f"{pid}-SUMMARY.md").is_file()
        assert not trees[pid].exists()
    assert "worktree-agent" not in git(root, "branch")
    assert git(root, "status", "--porcelain", "--untracked-files=no") == ""
    # the plan order holds whatever order the executors finished in; a second merge changes nothing
    again = run_msd(["wave", "merge", "--phase-dir", "02-demo", "--wave", "1"], root)
    assert again.returncode == 0 and git(root, "rev-parse", "HEAD").strip() == out["head"]


def test_planted_conflict_stops_the_wave_naming_both_plans(tmp_path):
    plans = {"02-01": {"wave": 1, "files": ["src/shared.py"], "tasks": 1, "tag": "one"},
             "02-02": {"wave": 1, "files": ["src/shared.py"], "tasks": 1, "tag": "two"},
             "02-03": {"wave": 1, "files": ["src/gamma.py"], "tasks": 1}}
    root = tmp_path / "p"
    phase = make_project(root, plans)
    check = run_msd(["wave", "check", "--phase-dir", "02-demo"], root)
    assert check.returncode == 1 and "02-01 and 02-02 of wave 1 both modify src/shared.py" in check.stderr
    trees = _run_isolated(root, phase, plans)
    r = run_msd(["wave", "merge", "--phase-dir", "02-demo", "--wave", "1"], root)
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "plan 02-02" in r.stderr and "plan 02-01" in r.stderr and "src/shared.py" in r.stderr
    out = json.loads(r.stdout)
    assert out["conflict"]["plan"] == "02-02" and out["conflict"]["with"] == "02-01"
    # nothing half-merged: no merge in progress, no conflict markers, the tree is clean
    assert git(root, "rev-parse", "--verify", "-q", "MERGE_HEAD", check=False) == ""
    assert git(root, "status", "--porcelain", "--untracked-files=no") == ""
    assert "<<<<<<<" not in (root / "src" / "shared.py").read_text()
    assert (root / "src" / "shared.py").read_text() == "one task 1\n"
    assert not (root / "src" / "gamma.py").exists()  # the wave stopped: 02-03 not merged
    for pid in plans:  # nothing removed: the fixer needs the branches
        assert trees[pid].exists()


def test_uncommitted_summary_comes_back_when_commit_docs_is_false(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, TWO, config={"commit_docs": False})
    trees = _run_isolated(root, phase, TWO, plan_in_main=True)
    r = run_msd(["wave", "merge", "--phase-dir", "02-demo", "--wave", "1"], root)
    assert r.returncode == 0, r.stderr
    assert (phase / "02-01-SUMMARY.md").is_file() and (phase / "02-02-SUMMARY.md").is_file()
    assert not any("SUMMARY" in f for c in commits(root) for f in c["files"])
    # the uncommitted SUMMARY, now in the main checkout byte for byte, does not keep the worktree
    out = json.loads(r.stdout)
    assert out["kept"] == [] and not any(tree.exists() for tree in trees.values()), out


def test_a_worktree_holding_more_than_copied_planning_files_is_kept(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, TWO, config={"commit_docs": False})
    trees = _run_isolated(root, phase, TWO, plan_in_main=True)
    (trees["02-01"] / "notes.txt").write_text("an executor's file nobody committed\n")
    summary = trees["02-02"] / ".planning" / "phases" / phase.name / "02-02-SUMMARY.md"
    r = run_msd(["wave", "merge", "--phase-dir", "02-demo", "--wave", "1"], root)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [k["plan"] for k in out["kept"]] == ["02-01"] and (trees["02-01"] / "notes.txt").is_file()
    assert not trees["02-02"].exists() and (phase / summary.name).is_file()


def test_sync_moves_a_fresh_worktree_to_the_base_and_refuses_otherwise(tmp_path):
    root = tmp_path / "p"
    make_project(root, TWO)
    old = git(root, "rev-parse", "HEAD").strip()
    (root / "wave1.txt").write_text("merged by wave 1\n")
    git(root, "add", "wave1.txt")
    git(root, "commit", "-q", "-m", "wave 1 merged")
    base = git(root, "rev-parse", "HEAD").strip()
    # a worktree started from the remote's default branch (older than the local HEAD)
    wt = root / ".claude" / "worktrees" / "a"
    git(root, "worktree", "add", "-q", "-b", "wt-a", str(wt), old)
    r = run_msd(["wave", "sync", "--base", base], wt)
    assert r.returncode == 0 and json.loads(r.stdout)["action"] == "fast-forward"
    assert (wt / "wave1.txt").is_file()
    # a worktree on a diverged line that holds no commit of its own is reset
    git(root, "branch", "upstream-main", old)
    git(root, "commit", "-q", "--allow-empty", "-m", "x")
    wt2 = root / ".claude" / "worktrees" / "b"
    git(root, "worktree", "add", "-q", "-b", "wt-b", str(wt2), old)
    git(wt2, "commit", "-q", "--allow-empty", "-m", "upstream-only")
    git(root, "branch", "-f", "upstream-main", "wt-b")
    r = run_msd(["wave", "sync", "--base", base], wt2)
    assert r.returncode == 0 and json.loads(r.stdout)["action"] == "reset"
    # a worktree with a commit of its own is never reset
    wt3 = root / ".claude" / "worktrees" / "c"
    git(root, "worktree", "add", "-q", "-b", "wt-c", str(wt3), old)
    git(wt3, "commit", "-q", "--allow-empty", "-m", "own work")
    r = run_msd(["wave", "sync", "--base", base], wt3)
    assert r.returncode == 1 and "of its own" in r.stderr
    # never in the main checkout
    r = run_msd(["wave", "sync", "--base", base], root)
    assert r.returncode == 1 and "main checkout" in r.stderr


def test_wave_plan_batches_sequential_stuck(tmp_path):
    plans = {"02-01": {"wave": 1, "files": ["a.py"]}, "02-02": {"wave": 1, "files": ["b.py"]},
             "02-03": {"wave": 1, "files": ["c.py"]}, "02-04": {"wave": 2, "files": ["d.py"], "depends_on": ["02-01"]}}
    root = tmp_path / "p"
    phase = make_project(root, plans, config={"parallelization": {"enabled": True, "max_concurrent_agents": 2}})
    out = json.loads(run_msd(["wave", "plan", "--phase-dir", "02-demo"], root).stdout)
    assert out["mode"] == "parallel"
    assert out["batches"] == [{"plans": ["02-01", "02-02"], "isolation": "worktree"}, {"plans": ["02-03"], "isolation": "worktree"}]
    assert out["next_wave"] == 1 and out["plans_remaining"] == 4 and out["base"] == git(root, "rev-parse", "HEAD").strip()
    # skipping 02-01 leaves 02-02, 02-03; after they complete, 02-04 waits on 02-01: stuck
    for pid in ("02-02", "02-03"):
        (phase / f"{pid}-SUMMARY.md").write_text("s\n")
    # summarised before msd took the project: its cutoff lists them, no recorded commits asked (evidence)
    (root / ".planning" / ".msd" / "evidence.json").unlink()
    assert json.loads(run_msd(["evidence", "adopt"], root).stdout)["cutoff"] == ["02-demo/02-02", "02-demo/02-03"]
    out = json.loads(run_msd(["wave", "plan", "--phase-dir", "02-demo", "--skip", "02-01"], root).stdout)
    assert out["next_wave"] == 2 and out["runnable"] == [] and out["stuck"] is True
    assert out["blocked"] == [{"plan": "02-04", "waiting_on": ["02-01"]}]
    # isolation off (or parallelization off): one at a time
    run_msd(["config", "set", "parallelization.isolation", "none"], root)
    (phase / "02-02-SUMMARY.md").unlink()
    (phase / "02-03-SUMMARY.md").unlink()
    out = json.loads(run_msd(["wave", "plan", "--phase-dir", "02-demo"], root).stdout)
    assert out["mode"] == "sequential"
    assert out["batches"] == [{"plans": [p], "isolation": "none"} for p in ("02-01", "02-02", "02-03")]
    # parallelization off: one at a time as well
    run_msd(["config", "set", "parallelization.isolation", "worktree"], root)
    run_msd(["config", "set", "parallelization.enabled", "false"], root)
    out = json.loads(run_msd(["wave", "plan", "--phase-dir", "02-demo"], root).stdout)
    assert out["mode"] == "sequential" and all(b["isolation"] == "none" for b in out["batches"])
    r = run_msd(["wave", "plan", "--phase-dir", "nope"], root)
    assert r.returncode == 2 and "no phase folder" in r.stderr


def test_plans_with_checkpoints_run_alone_in_the_project_after_the_isolated_batch(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, {"02-01": {"wave": 1, "files": ["a.py"]}, "02-02": {"wave": 1, "files": ["b.py"]},
                                "02-03": {"wave": 1, "files": ["c.py"]}})
    text = (phase / "02-02-PLAN.md").read_text().replace("autonomous: true", "autonomous: false")
    (phase / "02-02-PLAN.md").write_text(text)
    out = json.loads(run_msd(["wave", "plan", "--phase-dir", "02-demo"], root).stdout)
    assert out["batches"] == [{"plans": ["02-01", "02-03"], "isolation": "worktree"},
                              {"plans": ["02-02"], "isolation": "none"}]


def test_a_checkpoint_task_keeps_a_plan_out_of_the_parallel_batch_whatever_its_frontmatter_says(tmp_path):
    """Issue 28, seam 7: `autonomous: true` with a `checkpoint:*` task is a planning error that
    `wave check` names (exit 1), and `wave plan` runs that plan alone in the project."""
    root = tmp_path / "p"
    phase = make_project(root, {"02-01": {"wave": 1, "files": ["a.py"]}, "02-02": {"wave": 1, "files": ["b.py"]},
                                "02-03": {"wave": 1, "files": ["c.py"]}})
    text = (phase / "02-02-PLAN.md").read_text()
    assert "autonomous: true" in text
    (phase / "02-02-PLAN.md").write_text(text.replace(
        "</tasks>", '<task type="checkpoint:human-verify" gate="blocking">\n  <name>Task 3: look</name>\n</task>\n</tasks>'))
    r = run_msd(["wave", "check", "--phase-dir", "02-demo"], root)
    assert r.returncode == 1 and "02-02" in r.stderr and "autonomous: false" in r.stderr
    assert json.loads(r.stdout)["contradictions"] == [{"plan": "02-02", "problem": "a task is a checkpoint but autonomous is not false"}]
    out = json.loads(run_msd(["wave", "plan", "--phase-dir", "02-demo"], root).stdout)
    assert out["batches"] == [{"plans": ["02-01", "02-03"], "isolation": "worktree"},
                              {"plans": ["02-02"], "isolation": "none"}]
    # the planner sets autonomous: false: nothing to report, the same batches
    (phase / "02-02-PLAN.md").write_text((phase / "02-02-PLAN.md").read_text().replace("autonomous: true", "autonomous: false"))
    r = run_msd(["wave", "check", "--phase-dir", "02-demo"], root)
    assert r.returncode == 0 and json.loads(r.stdout)["contradictions"] == []


def test_phase_dir_outside_planning_is_refused(tmp_path):
    root = tmp_path / "p"
    make_project(root, TWO)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / ".planning" / "phases" / "03-link").symlink_to(outside)
    for bad in ("../../elsewhere", str(outside), "03-link"):
        for action in (["plan"], ["check"], ["merge", "--wave", "1"]):
            r = run_msd(["wave", action[0], "--phase-dir", bad, *action[1:]], root)
            assert r.returncode == 2 and r.stderr.count("\n") == 1, (bad, action, r.stderr)


FOUR = {"02-01": {"wave": 1, "files": ["src/alpha.py"], "tasks": 1},
        "02-02": {"wave": 1, "files": ["src/beta.py"], "tasks": 1},
        "02-03": {"wave": 2, "files": ["src/gamma.py"], "tasks": 1},
        "02-04": {"wave": 2, "files": ["src/delta.py"], "tasks": 1}}


def test_a_stale_wave_number_does_not_answer_already_merged_over_the_next_waves_branches(tmp_path):
    """issue 45: wave 1 merged, wave 2's executors done; `--wave 1` (the number the last visit ran)
    used to exit 0 "already merged" and leave wave 2 unmerged. It now names the wave to merge."""
    root = tmp_path / "p"
    phase = make_project(root, FOUR)
    first = {k: v for k, v in FOUR.items() if v["wave"] == 1}
    _run_isolated(root, phase, first)
    assert run_msd(["wave", "merge", "--phase-dir", "02-demo", "--wave", "1"], root).returncode == 0
    second = {k: v for k, v in FOUR.items() if v["wave"] == 2}
    _run_isolated(root, phase, second)
    stale = run_msd(["wave", "merge", "--phase-dir", "02-demo", "--wave", "1"], root)
    assert stale.returncode == 1
    refused = json.loads(stale.stdout)["refused"]
    assert refused["waves"] == [2] and {b["plan"] for b in refused["branches"]} == {"02-03", "02-04"}
    assert "run `msd_run wave merge --phase-dir 02-demo --wave 2`" in stale.stderr
    assert "worktree-agent-02-03" in git(root, "branch")  # nothing merged, nothing removed
    right = run_msd(["wave", "merge", "--phase-dir", "02-demo", "--wave", "2"], root)
    assert right.returncode == 0, right.stderr
    assert [m["plan"] for m in json.loads(right.stdout)["merged"]] == ["02-03", "02-04"]
    assert run_msd(["wave", "merge", "--phase-dir", "02-demo", "--wave", "1"], root).returncode == 0  # now truly all merged
