"""Parallel executors in a `.planning/` root below the work tree's top: `msd_run wave plan|merge`, the
executors committing with `msd_run commit --plan` inside `.claude/worktrees/…` of the repository."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.kit.gitkit import commits, git, plan_text, run_msd, start_executor
from tests.kit.rootskit import three_roots

TWO = {"01-01": {"files": ["src/alpha.py"]}, "01-02": {"files": ["src/beta.py"]}}


def api_phase(top: Path, *, commit_docs: bool = True) -> Path:
    """services/api's phase 1 (folder 01-part) planned with TWO, all committed."""
    api = top / "services" / "api"
    phase = api / ".planning" / "phases" / "01-part"
    (phase / "01-01-PLAN.md").unlink()
    for pid, spec in TWO.items():
        (phase / f"{pid}-PLAN.md").write_text(plan_text(pid, 1, spec["files"]).replace("01-demo", "01-part"))
    cfg = json.loads((api / ".planning/config.json").read_text())
    (api / ".planning/config.json").write_text(json.dumps({**cfg, "commit_docs": commit_docs}))
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "api planned")
    return phase


def run_wave(top: Path, phase: Path) -> dict[str, Path]:
    """The orchestrator's `wave plan` in services/api, then one isolated executor per plan, each in a worktree
    of the repository (Claude Code's `.claude/worktrees/`), working in the worktree's services/api."""
    planned = run_msd(["wave", "plan", "--phase-dir", phase.name], phase.parents[2])
    assert planned.returncode == 0, planned.stderr
    assert sorted(p["id"] for p in json.loads(planned.stdout)["plans"]) == sorted(TWO)
    trees, procs, start = {}, {}, time.time() + 0.5
    for pid, spec in TWO.items():
        tree = top / ".claude" / "worktrees" / f"agent-{pid}"
        git(top, "worktree", "add", "-q", "-b", f"worktree-agent-{pid}", str(tree), "HEAD")
        trees[pid] = tree
        where = tree / "services" / "api"
        procs[pid] = start_executor(where, where / ".planning/phases/01-part" / f"{pid}-PLAN.md", spec["files"],
                                    tasks=1, start_at=start)
    for pid, p in procs.items():
        _out, err = p.communicate(timeout=180)
        assert p.returncode == 0, (pid, err)
    return trees


def test_a_wave_of_worktree_executors_in_a_subfolder_root_merges_and_is_proven(tmp_path):
    top = three_roots(tmp_path / "mono")
    phase = api_phase(top)
    api = top / "services" / "api"
    trees = run_wave(top, phase)
    # the executors' run records are the api's, in the main checkout (not in a worktree, not the top's)
    assert sorted(p.name for p in (api / ".planning/.msd/runs").iterdir()) == ["01-part__01-01.json", "01-part__01-02.json"]
    assert not (top / ".planning/.msd/runs").exists()
    # inside an executor's worktree the evidence is the main checkout's services/api's (the marker, the run
    # records): its plan reads as proven, a SUMMARY with no commit behind it is not taken on its word
    there = trees["01-01"] / "services/api/.planning/phases/01-part"
    (there / "01-03-PLAN.md").write_text(plan_text("01-03", 1, ["src/gamma.py"]).replace("01-demo", "01-part"))
    (there / "01-03-SUMMARY.md").write_text("---\nphase: 01-part\nplan: 3\n---\n# done, it says\n")
    inside = json.loads(run_msd(["wave", "plan", "--phase-dir", "01-part"], trees["01-01"] / "services/api").stdout)
    assert {p["id"]: p["complete"] for p in inside["plans"]} == {"01-01": True, "01-02": False, "01-03": False}, inside
    assert not (trees["01-01"] / "services/api/.planning/.msd").exists()  # nothing written in the worktree
    (there / "01-03-PLAN.md").unlink()
    (there / "01-03-SUMMARY.md").unlink()
    merged = run_msd(["wave", "merge", "--phase-dir", "01-part", "--wave", "1"], api)
    assert merged.returncode == 0, merged.stderr
    out = json.loads(merged.stdout)
    assert [m["plan"] for m in out["merged"]] == ["01-01", "01-02"], merged.stdout
    assert (api / "src/alpha.py").read_text() == "01-01 task 1\n" and (api / "src/beta.py").read_text() == "01-02 task 1\n"
    assert not any(t.exists() for t in trees.values())
    assert git(top, "status", "--porcelain", "--untracked-files=no") == ""
    nxt = json.loads(run_msd(["next"], api).stdout)
    assert nxt["route"] == "verify-work", nxt


def test_commit_docs_false_in_a_subfolder_root_keeps_its_planning_files_out_of_git(tmp_path):
    top = three_roots(tmp_path / "mono")
    phase = api_phase(top, commit_docs=False)
    api = top / "services" / "api"
    run_wave(top, phase)
    merged = run_msd(["wave", "merge", "--phase-dir", "01-part", "--wave", "1"], api)
    assert merged.returncode == 0, merged.stderr
    assert json.loads(merged.stdout)["kept"] == []
    # each SUMMARY came back from its worktree uncommitted, and no commit holds a planning file of the api
    assert (phase / "01-01-SUMMARY.md").is_file() and (phase / "01-02-SUMMARY.md").is_file()
    assert not [f for c in commits(top) for f in c["files"] if f.startswith("services/api/") and "SUMMARY" in f]
    assert json.loads(run_msd(["next"], api).stdout)["route"] == "verify-work"


def test_commit_docs_false_in_a_subfolder_root_skips_its_planning_files(tmp_path):
    top = three_roots(tmp_path / "mono")
    api = top / "services" / "api"
    cfg = json.loads((api / ".planning/config.json").read_text())
    (api / ".planning/config.json").write_text(json.dumps({**cfg, "commit_docs": False}))
    (api / "src").mkdir()
    (api / "src/a.py").write_text("a\n")
    (api / ".planning/notes.md").write_text("notes\n")
    before = git(top, "rev-parse", "HEAD").strip()
    proc = run_msd(["commit", "--files", ".planning/notes.md", "src/a.py", "-m", "feat: a"], api)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["skipped_docs"] == ["services/api/.planning/notes.md"] and out["files"] == ["services/api/src/a.py"], out
    assert git(top, "rev-parse", "HEAD").strip() != before
    assert "services/api/.planning/notes.md" not in git(top, "ls-files")
    # only planning files named: nothing committed, and the STATE sync still runs
    (api / ".planning/STATE.md").write_text("# Project State\n\n## Current Position\nPhase: 1 of 2 (Part 1)\n"
                                             "Status: Ready to plan\n")
    proc = run_msd(["commit", "--files", ".planning/notes.md", ".planning/STATE.md", "-m", "docs: notes"], api)
    out = json.loads(proc.stdout)
    assert proc.returncode == 0 and out["committed"] is False and "state_sync" in out, proc.stdout
    assert out["skipped_docs"] == ["services/api/.planning/notes.md", "services/api/.planning/STATE.md"], out
    assert "services/api/.planning/STATE.md" not in git(top, "ls-files")
    # the top's own setting (commit_docs true) does not decide for the api, nor the api's for the top
    (top / ".planning/notes.md").write_text("top notes\n")
    proc = run_msd(["commit", "--files", ".planning/notes.md", "-m", "docs: top notes"], top)
    assert proc.returncode == 0 and json.loads(proc.stdout)["committed"] is True, proc.stdout


def test_a_subfolder_roots_private_folder_is_never_committed(tmp_path):
    top = three_roots(tmp_path / "mono")
    api = top / "services" / "api"
    (api / ".planning/.msd").mkdir()
    (api / ".planning/.msd/x.json").write_text("{}\n")
    proc = run_msd(["commit", "--files", ".planning/.msd/x.json", "-m", "nope"], api)
    assert proc.returncode == 2 and "msd's private folder" in proc.stderr, proc.stderr
