"""`msd_run commit`: exactly the named paths, scoped to the plan, recorded; concurrent executors."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tests.kit.gitkit import commits, git, make_project, new_repo, run_msd, start_executor

PLANS = {"02-01": {"wave": 1, "files": ["src/alpha.py", "tests/test_alpha.py"], "tasks": 3},
         "02-02": {"wave": 1, "files": ["src/beta.py", "tests/test_beta.py"], "tasks": 3}}


def _plan(phase, pid):
    return phase / f"{pid}-PLAN.md"


def test_naive_commit_swallows_what_another_executor_staged(tmp_path):
    """The defect the scoped commit exists for: `git commit` without paths takes everything staged."""
    root = tmp_path / "p"
    make_project(root, PLANS)
    (root / "src").mkdir()
    (root / "src" / "alpha.py").write_text("a\n")
    (root / "src" / "beta.py").write_text("b\n")
    git(root, "add", "src/beta.py")  # executor B staged its file
    git(root, "add", "src/alpha.py")
    git(root, "commit", "-q", "-m", "feat(02-01): naive")  # executor A's naive commit
    assert sorted(commits(root)[0]["files"]) == ["src/alpha.py", "src/beta.py"]


def test_scoped_commit_leaves_other_staged_work_alone(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, PLANS)
    (root / "src").mkdir()
    (root / "src" / "alpha.py").write_text("a\n")
    (root / "src" / "beta.py").write_text("b\n")
    git(root, "add", "src/beta.py")
    r = run_msd(["commit", "--plan", str(_plan(phase, "02-01")), "--task", "1", "-m", "feat(02-01): a", "--files", "src/alpha.py"], root)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["files"] == ["src/alpha.py"] and out["committed"] is True
    assert commits(root)[0]["files"] == ["src/alpha.py"]
    assert git(root, "diff", "--cached", "--name-only").split() == ["src/beta.py"]  # still staged, not swallowed
    rec = json.loads(run_msd(["commit", "--plan", str(_plan(phase, "02-01")), "--list"], root).stdout)
    assert rec["commits"][0]["hash"] == out["hash"] and rec["commits"][0]["files"] == ["src/alpha.py"]
    assert rec["tasks_done"] == [1] and rec["completed"] == 1


def test_refusals(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, PLANS)
    plan = str(_plan(phase, "02-01"))
    (root / "src").mkdir()
    (root / "src" / "beta.py").write_text("b\n")
    (root / "src" / "alpha.py").write_text("a\n")
    head = git(root, "rev-parse", "HEAD")
    # a path outside the plan's files_modified
    r = run_msd(["commit", "--plan", plan, "-m", "feat(02-01): x", "--files", "src/beta.py"], root)
    assert r.returncode == 1 and "not in plan 02-01's files_modified: src/beta.py" in r.stderr
    assert r.stderr.count("\n") == 1 and git(root, "diff", "--cached", "--name-only") == ""
    # nothing changed in the named path: no empty commit
    r = run_msd(["commit", "--plan", plan, "-m", "feat(02-01): x", "--files", "tests/test_alpha.py"], root)
    assert r.returncode == 1 and "no such file" in r.stderr
    (root / "tests").mkdir()
    (root / "tests" / "test_alpha.py").write_text("t\n")
    git(root, "add", "tests/test_alpha.py")
    git(root, "commit", "-q", "-m", "pre")
    r = run_msd(["commit", "--plan", plan, "-m", "feat(02-01): x", "--files", "tests/test_alpha.py"], root)
    assert r.returncode == 1 and "nothing to commit" in r.stderr
    # paths that are never committed, and paths outside the tree
    for bad, word in ((".planning/.msd/x", "private"), ("x.compiled.md", "compiled"), ("../outside.py", "outside"),
                      (".git/config", ".git")):
        r = run_msd(["commit", "--plan", plan, "-m", "m", "--files", bad], root)
        assert r.returncode == 2 and word in r.stderr, (bad, r.stderr)
    r = run_msd(["commit", "--plan", plan, "--files", "src/alpha.py"], root)
    assert r.returncode == 2 and "a commit message is required, one line as <type>(<scope>): <what> (pass --message)" in r.stderr
    r = run_msd(["commit", "--plan", plan, "-m", "m"], root)
    assert r.returncode == 2 and "the commit names no file (give the paths of the files to commit: pass --files)" in r.stderr
    for bad in ("0", "two"):
        r = run_msd(["commit", "--plan", plan, "--task", bad, "-m", "m", "--files", "src/alpha.py"], root)
        assert r.returncode == 2 and "task number" in r.stderr
    assert git(root, "rev-list", "--count", "HEAD").strip() == "2" and head != git(root, "rev-parse", "HEAD")


def test_deviation_is_explicit_and_recorded(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, PLANS)
    plan = str(_plan(phase, "02-01"))
    (root / "src").mkdir()
    (root / "src" / "alpha.py").write_text("a\n")
    (root / "src" / "shared_util.py").write_text("u\n")
    r = run_msd(["commit", "--plan", plan, "-m", "fix(02-01): helper", "--deviation", "D1 missing helper",
                 "--", "src/alpha.py", "src/shared_util.py"], root)
    assert r.returncode == 0, r.stderr
    rec = json.loads(run_msd(["commit", "--plan", plan, "--list"], root).stdout)
    assert rec["commits"][0]["deviation"] == "D1 missing helper"
    assert rec["commits"][0]["outside_plan"] == ["src/shared_util.py"]


def test_commit_docs_false_leaves_planning_files_uncommitted(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, PLANS, config={"commit_docs": False})
    summary = phase / "02-01-SUMMARY.md"
    summary.write_text("s\n")
    (root / "src").mkdir()
    (root / "src" / "alpha.py").write_text("a\n")
    before = git(root, "rev-parse", "HEAD")
    r = run_msd(["commit", "--plan", str(_plan(phase, "02-01")), "-m", "docs(02-01): summary", "--files", str(summary)], root)
    assert r.returncode == 0 and json.loads(r.stdout)["committed"] is False
    assert git(root, "rev-parse", "HEAD") == before
    r = run_msd(["commit", "--plan", str(_plan(phase, "02-01")), "-m", "feat(02-01): a", "--files", "src/alpha.py", str(summary)], root)
    out = json.loads(r.stdout)
    assert out["files"] == ["src/alpha.py"] and out["skipped_docs"] == [".planning/phases/02-demo/02-01-SUMMARY.md"]


def test_damaged_run_record_is_reported_not_overwritten(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, PLANS)
    (root / "src").mkdir()
    (root / "src" / "alpha.py").write_text("a\n")
    rec = root / ".planning" / ".msd" / "runs" / "02-demo__02-01.json"
    rec.parent.mkdir(parents=True)
    rec.write_text("{not json")
    r = run_msd(["commit", "--plan", str(_plan(phase, "02-01")), "-m", "feat(02-01): a", "--files", "src/alpha.py"], root)
    assert r.returncode == 1 and "not valid JSON" in r.stderr and "Traceback" not in r.stderr
    assert rec.read_text() == "{not json"


def test_two_executors_commit_concurrently_in_one_tree(tmp_path):
    """Two processes of one wave, one shared working tree: each commit holds exactly its plan's files."""
    root = tmp_path / "p"
    phase = make_project(root, PLANS)
    start = time.time() + 1.0
    procs = {pid: start_executor(root, _plan(phase, pid), spec["files"], tasks=spec["tasks"], start_at=start, delay=0.05)
             for pid, spec in PLANS.items()}
    for pid, p in procs.items():
        _out, err = p.communicate(timeout=180)
        assert p.returncode == 0, (pid, err)
    log = commits(root)[:-1]  # without "init"
    assert len(log) == 2 * (3 + 1)  # 3 tasks + SUMMARY per plan: none lost
    for c in log:
        pid = c["subject"].split("(", 1)[1].split(")", 1)[0]
        allowed = set(PLANS[pid]["files"]) | {f".planning/phases/02-demo/{pid}-SUMMARY.md"}
        assert set(c["files"]) <= allowed, c  # nothing swallowed from the other plan
    for pid, spec in PLANS.items():
        committed = {f for c in log if f"({pid})" in c["subject"] for f in c["files"]}
        assert set(spec["files"]) <= committed
        rec = json.loads(run_msd(["commit", "--plan", str(_plan(phase, pid)), "--list"], root).stdout)
        assert rec["tasks_done"] == [1, 2, 3] and len(rec["commits"]) == 4
    assert git(root, "status", "--porcelain", "--untracked-files=no") == ""


def test_commit_waits_for_the_lock_then_exits_4(tmp_path, monkeypatch):
    import filelock

    root = tmp_path / "p"
    phase = make_project(root, PLANS)
    (root / "src").mkdir()
    (root / "src" / "alpha.py").write_text("a\n")
    lock = filelock.FileLock(str(root / ".planning" / ".msd" / "runs.lock"))
    head = git(root, "rev-parse", "HEAD")
    monkeypatch.setenv("MSD_LOCK_TIMEOUT", "0.5")
    with lock:
        r = run_msd(["commit", "--plan", str(_plan(phase, "02-01")), "-m", "feat(02-01): a", "--files", "src/alpha.py"], root)
    assert r.returncode == 4 and r.stderr.count("\n") == 1 and "lock" in r.stderr
    assert git(root, "rev-parse", "HEAD") == head and git(root, "diff", "--cached", "--name-only") == ""


def test_commit_imports_nothing_heavy(tmp_path):
    """The hot-path row for `commit` (tests/run/test_hot_path.py): it needs a git repository."""
    from tests.kit.probe import PROBE, denied

    root = tmp_path / "p"
    phase = make_project(root, PLANS)
    (root / "src").mkdir()
    (root / "src" / "alpha.py").write_text("a\n")
    for name, argv in (("commit", ["commit", "--plan", str(_plan(phase, "02-01")), "--task", "1", "-m", "feat(02-01): a",
                                   "--files", "src/alpha.py"]),
                       ("list", ["commit", "--plan", str(_plan(phase, "02-01")), "--list"])):
        out = tmp_path / f"{name}.json"
        r = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv), str(out)], cwd=str(root),
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert r.returncode == 0, r.stderr
        res = json.loads(out.read_text())
        assert res["code"] == 0, res["err"]
        assert denied(res["modules"], set()) == [], name  # git runs through msd_core.lean.spawn


def test_commit_in_a_linked_worktree_names_it_and_records_in_the_main_checkout(tmp_path):
    # repo_paths answers the tree, the main checkout and "linked" from one git call
    root = tmp_path / "p"
    phase = make_project(root, PLANS)
    wt = tmp_path / "wt"
    git(root, "worktree", "add", "-q", "-b", "exec-02-01", str(wt))
    (wt / "src").mkdir()
    (wt / "src" / "alpha.py").write_text("a\n")
    plan = str(wt / ".planning" / "phases" / phase.name / "02-01-PLAN.md")
    r = run_msd(["commit", "--plan", plan, "--task", "1", "-m", "feat(02-01): a", "--", "src/alpha.py"], wt)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["worktree"] == str(wt.resolve()) and out["branch"] == "exec-02-01"
    assert out["hash"] == git(wt, "rev-parse", "HEAD").strip() and out["files"] == ["src/alpha.py"]
    assert str(root / ".planning" / ".msd" / "runs") in out["record"]
    same = run_msd(["commit", "-m", "feat(02-01): again", "--", "src/alpha.py"], wt)
    assert same.returncode == 1 and "nothing to commit" in same.stderr


def test_first_commit_of_a_repository_without_head(tmp_path):
    root = new_repo(tmp_path / "fresh")
    (root / "a.txt").write_text("a\n")
    r = run_msd(["commit", "-m", "chore: first", "--", "a.txt"], root)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["files"] == ["a.txt"] and out["hash"] == git(root, "rev-parse", "HEAD").strip() and out["worktree"] is None


def test_plan_scope_reads_files_modified_in_either_spelling_and_ignores_other_keys(tmp_path):
    """Only files_modified (or files-modified) decides the scope: a broken unrelated key, which
    the whole-frontmatter parse reports, does not stop the commit."""
    root = tmp_path / "p"
    phase = make_project(root, PLANS)
    plan = _plan(phase, "02-01")
    text = plan.read_text()
    broken = text.replace("---\n", "---\nmust_haves: [unclosed, `tick\n  : : :\n", 1)
    plan.write_text(broken.replace("files_modified:", "files-modified:"))
    from msd_core.planning.frontmatter import split_frontmatter

    assert split_frontmatter(plan.read_text())[2]  # the whole block has a problem
    (root / "src").mkdir()
    (root / "src" / "alpha.py").write_text("a\n")
    r = run_msd(["commit", "--plan", str(plan), "-m", "feat(02-01): a", "--files", "src/alpha.py"], root)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["files"] == ["src/alpha.py"]
    (root / "src" / "beta.py").write_text("b\n")  # not declared: still refused
    r = run_msd(["commit", "--plan", str(plan), "-m", "feat(02-01): b", "--files", "src/beta.py"], root)
    assert r.returncode == 1 and "not in plan 02-01's files_modified" in r.stderr


# --- moves and deletions are legal paths (issue 28, seam 3) --------------------------------


def _archive_repo(tmp_path):
    """A committed project with one phase folder, STATE.md and a handoff, plus other work staged."""
    root = tmp_path / "p"
    new_repo(root)
    files = {".planning/phases/01-core/01-01-PLAN.md": "plan\n", ".planning/phases/01-core/01-01-SUMMARY.md": "done\n",
             ".planning/.continue-here.md": "handoff\n", "src/other.py": "o = 1\n"}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    (root / "src/other.py").write_text("o = 2\n")
    git(root, "add", "src/other.py")  # someone else's staged work: never swallowed
    return root


def _committed(root) -> list[str]:
    return sorted(git(root, "show", "--no-renames", "--name-status", "--format=", "HEAD").strip().splitlines())


def test_a_moved_folder_is_committed_whole_when_its_new_path_is_named(tmp_path):
    root = _archive_repo(tmp_path)
    (root / ".planning/milestones/v1.0-phases").mkdir(parents=True)
    git(root, "mv", ".planning/phases/01-core", ".planning/milestones/v1.0-phases/01-core")
    git(root, "rm", "-q", ".planning/.continue-here.md")
    r = run_msd(["commit", "-m", "chore: archive", "--files", ".planning/milestones", ".planning/.continue-here.md"], root)
    assert r.returncode == 0, r.stderr
    # the old side of the move and the deleted handoff are in the commit: nothing stays staged of them
    assert sorted(json.loads(r.stdout)["files"]) == [
        ".planning/.continue-here.md", ".planning/milestones/v1.0-phases/01-core/01-01-PLAN.md",
        ".planning/milestones/v1.0-phases/01-core/01-01-SUMMARY.md",
        ".planning/phases/01-core/01-01-PLAN.md", ".planning/phases/01-core/01-01-SUMMARY.md"]
    assert git(root, "diff", "--cached", "--name-only").split() == ["src/other.py"]
    assert git(root, "ls-tree", "-r", "--name-only", "HEAD", ".planning/phases").strip() == ""


def test_naming_the_old_and_new_paths_of_a_plain_move_commits_both(tmp_path):
    root = _archive_repo(tmp_path)
    (root / ".planning/milestones/v1.0-phases").mkdir(parents=True)
    (root / ".planning/phases/01-core").rename(root / ".planning/milestones/v1.0-phases/01-core")  # plain mv
    r = run_msd(["commit", "-m", "chore: archive", "--files", ".planning/phases", ".planning/milestones"], root)
    assert r.returncode == 0, r.stderr
    assert _committed(root) == ["A\t.planning/milestones/v1.0-phases/01-core/01-01-PLAN.md",
                                "A\t.planning/milestones/v1.0-phases/01-core/01-01-SUMMARY.md",
                                "D\t.planning/phases/01-core/01-01-PLAN.md", "D\t.planning/phases/01-core/01-01-SUMMARY.md"]
    assert git(root, "diff", "--cached", "--name-only").split() == ["src/other.py"]


def test_a_path_neither_on_disk_nor_known_to_git_is_still_refused(tmp_path):
    root = _archive_repo(tmp_path)
    before = git(root, "rev-parse", "HEAD")
    r = run_msd(["commit", "-m", "docs: x", "--files", ".planning/never-existed.md"], root)
    assert r.returncode == 1 and "no such file" in r.stderr and "never-existed.md" in r.stderr
    assert git(root, "rev-parse", "HEAD") == before


def test_a_move_out_of_a_plans_scope_needs_a_deviation(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, PLANS, extra_files={"src/old_name.py": "x = 1\n"})
    (root / "src/alpha.py").parent.mkdir(exist_ok=True)
    git(root, "mv", "src/old_name.py", "src/alpha.py")
    plan = str(_plan(phase, "02-01"))
    r = run_msd(["commit", "--plan", plan, "-m", "refactor(02-01): rename", "--files", "src/alpha.py"], root)
    assert r.returncode == 1 and "src/old_name.py" in r.stderr
    r = run_msd(["commit", "--plan", plan, "--deviation", "the old module is replaced", "-m", "refactor(02-01): rename",
                 "--files", "src/alpha.py"], root)
    assert r.returncode == 0, r.stderr
    assert sorted(json.loads(r.stdout)["files"]) == ["src/alpha.py", "src/old_name.py"]


def test_committing_state_md_syncs_it_first(tmp_path):
    root = tmp_path / "p"
    make_project(root, PLANS)
    state = root / ".planning/STATE.md"
    state.write_text(state.read_text() + "Focus: Phase 9 (stale)\n")
    r = run_msd(["commit", "-m", "docs: state", "--files", ".planning/STATE.md"], root)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert "Current focus" in out["state_sync"]["changed"]  # the stale focus line follows the phase folders
    committed = git(root, "show", "HEAD:.planning/STATE.md")
    assert "Focus: Phase 2 (demo)" in committed and "stale" not in committed


def test_outside_git_commit_docs_false_commits_nothing_and_says_so(tmp_path):
    """A flow's commit step runs whatever commit_docs says; outside git with commit_docs false
    there is nothing to commit (exit 0), with commit_docs true git's refusal stands (exit 1)."""
    root = tmp_path / "nogit"
    (root / ".planning").mkdir(parents=True)
    (root / ".planning/PROJECT.md").write_text("# P\n")
    (root / ".planning/config.json").write_text('{"commit_docs": false}\n')
    r = run_msd(["commit", "-m", "docs: init", "--files", ".planning/PROJECT.md"], root)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["committed"] is False and out["skipped_docs"] == [".planning/PROJECT.md"]
    (root / "src.py").write_text("x = 1\n")
    r = run_msd(["commit", "-m", "feat: x", "--files", "src.py"], root)  # code outside .planning/: git is needed
    assert r.returncode == 1 and "not inside a git repository" in r.stderr
    (root / ".planning/config.json").write_text('{"commit_docs": true}\n')
    r = run_msd(["commit", "-m", "docs: init", "--files", ".planning/PROJECT.md"], root)
    assert r.returncode == 1 and "not inside a git repository" in r.stderr


@pytest.mark.parametrize("empty", [False, True], ids=["unset", "set-empty"])
def test_a_commit_git_refuses_for_want_of_an_identity_says_so(tmp_path, monkeypatch, empty):
    """Not "a hook failed": git names no identity (a fresh machine, a CI runner), and the hint says how to set one."""
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "p"
    make_project(root, PLANS)
    git(root, "config", "--unset", "user.name")
    git(root, "config", "--unset", "user.email")
    (root / "notes.txt").write_text("n\n")
    no_identity = {"HOME": str(tmp_path), "GIT_CONFIG_GLOBAL": str(tmp_path / "none"), "GIT_CONFIG_NOSYSTEM": "1",
                   "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "user.useConfigOnly", "GIT_CONFIG_VALUE_0": "true",
                   **({"GIT_AUTHOR_NAME": "", "GIT_COMMITTER_NAME": ""} if empty else {})}
    r = run_msd(["commit", "-m", "docs: notes", "--files", "notes.txt"], root, env_extra=no_identity)
    assert r.returncode == 1, r.stderr
    assert "git commit failed" in r.stderr and "git config user.name" in r.stderr and "hook" not in r.stderr
    assert "notes.txt" in git(root, "status", "--porcelain")  # nothing lost: the file is still there to commit


ROADMAP_2 = "# Roadmap\n\n- [ ] Phase 2: Demo\n\n### Phase 2: Demo\nGoal: demo\nPlans:\n- [ ] 02-01-PLAN.md\n- [ ] 02-02-PLAN.md\n"


def _boxes_due(tmp_path):
    """A project whose ROADMAP.md boxes the next `state sync` ticks (02-01 has its SUMMARY)."""
    root = tmp_path / "p"
    phase = make_project(root, PLANS, extra_files={".planning/ROADMAP.md": ROADMAP_2})
    (phase / "02-01-SUMMARY.md").write_text("---\nphase: 02-demo\nplan: 01\n---\n# done\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "summary")
    state = root / ".planning/STATE.md"
    state.write_text(state.read_text() + "Focus: Phase 9 (stale)\n")
    return root


def test_committing_state_md_commits_only_what_is_named(tmp_path):
    """Issue 45: the sync before a commit of STATE.md ticks ROADMAP.md's boxes; an unnamed
    ROADMAP.md stays out of the commit (the helper commits exactly the named paths)."""
    root = _boxes_due(tmp_path)
    r = run_msd(["commit", "-m", "docs: state", "--files", ".planning/STATE.md"], root)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["files"] == [".planning/STATE.md"] and "derived" not in json.loads(r.stdout)
    assert commits(root)[0]["files"] == [".planning/STATE.md"]
    assert "[x] 02-01-PLAN.md" in (root / ".planning/ROADMAP.md").read_text()  # ticked, and left to be named


def test_naming_roadmap_beside_state_as_the_content_does_leaves_the_tree_clean(tmp_path):
    root = _boxes_due(tmp_path)
    r = run_msd(["commit", "-m", "docs: state", "--files", ".planning/STATE.md", ".planning/ROADMAP.md"], root)
    assert r.returncode == 0, r.stderr
    assert sorted(commits(root)[0]["files"]) == [".planning/ROADMAP.md", ".planning/STATE.md"]
    assert git(root, "status", "--porcelain") == ""
    (root / ".planning/STATE.md").write_text((root / ".planning/STATE.md").read_text() + "\nnote\n")
    r = run_msd(["commit", "-m", "docs: note", "--files", ".planning/STATE.md", ".planning/ROADMAP.md"], root)
    assert r.returncode == 0, r.stderr  # an unchanged ROADMAP.md named beside it is no refusal
    assert commits(root)[0]["files"] == [".planning/STATE.md"]


def test_a_plan_only_the_main_checkout_holds_is_named_from_a_worktree(tmp_path):
    # commit_docs false: a phase planned after the last commit is not in an executor's worktree;
    # the refusal names the main checkout's plan (execute-phase briefs isolated executors with it)
    root = tmp_path / "p"
    make_project(root, PLANS, config={"commit_docs": False})
    late = root / ".planning" / "phases" / "03-late"
    late.mkdir()
    (late / "03-01-PLAN.md").write_text((root / ".planning/phases/02-demo/02-01-PLAN.md").read_text())
    wt = root / ".claude" / "worktrees" / "agent-03-01"
    git(root, "worktree", "add", "-q", "-b", "worktree-agent-03-01", str(wt))
    (wt / "src").mkdir()
    (wt / "src" / "alpha.py").write_text("a\n")
    rel = ".planning/phases/03-late/03-01-PLAN.md"
    for argv in (["commit", "--plan", rel, "--task", "1", "-m", "feat(03-01): a", "--files", "src/alpha.py"],
                 ["commit", "--plan", rel, "--list"]):
        r = run_msd(argv, wt)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert f"the main checkout's plan is {late / '03-01-PLAN.md'}: pass --plan" in r.stderr, r.stderr
        assert "not committed" in r.stderr, r.stderr
    assert git(wt, "status", "--porcelain") == "?? src/\n"  # nothing staged or committed
    r = run_msd(["commit", "--plan", str(late / "03-01-PLAN.md"), "--task", "1", "-m", "feat(03-01): a",
                 "--files", "src/alpha.py"], wt)
    assert r.returncode == 0, r.stderr
    # a plan in neither tree is still the plain missing plan
    r = run_msd(["commit", "--plan", ".planning/phases/03-late/03-09-PLAN.md", "--list"], wt)
    assert r.returncode == 2 and "no plan at" in r.stderr and "main checkout's plan" not in r.stderr
