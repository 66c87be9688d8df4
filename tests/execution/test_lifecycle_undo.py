"""`msd_run undo`: reverts only recorded commits, refuses what it cannot do cleanly, puts the phase back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kit.lifecyclekit import as_json, commit, git, head, msd_run, project, tree_state


@pytest.fixture()
def repo(tmp_path):
    return project(tmp_path / "proj")


def _two_plans_with_a_stranger(repo):
    """02-01 records two commits; between them a commit msd did not record touches another file."""
    c1 = commit(repo, {"src/a.py": "A = 2\n"}, "feat(02-01): a", plan="02-01", task=1)
    stranger = commit(repo, {"src/b.py": "B = 2  # by hand\n"}, "chore: hand edit")
    c2 = commit(repo, {"src/a.py": "A = 3\n", ".planning/phases/02-auth/02-01-SUMMARY.md": "---\nphase: 02\n---\nDone.\n"},
                "docs(02-01): summary", plan="02-01", task=2)
    return c1, stranger, c2


def test_dry_run_lists_and_changes_nothing(repo):
    c1, _stranger, c2 = _two_plans_with_a_stranger(repo)
    before = tree_state(repo)
    proc = msd_run(["undo", "--plan", "02-01", "--dry-run"], repo)
    assert proc.returncode == 0, proc.stderr
    out = as_json(proc)
    assert out["ok"] and out["dry_run"] and [c["hash"] for c in out["commits"]] == [c1, c2]
    # the committed SUMMARY goes with the revert: nothing to move, nothing left
    assert out["would_move"] == [] and out["would_leave"] == []
    assert tree_state(repo) == before


def test_undo_never_touches_a_commit_it_did_not_record(repo):
    c1, stranger, c2 = _two_plans_with_a_stranger(repo)
    old_head = head(repo)
    proc = msd_run(["undo", "--plan", ".planning/phases/02-auth/02-01-PLAN.md"], repo)
    assert proc.returncode == 0, proc.stderr
    out = as_json(proc)
    assert out["ok"] and out["revert_commit"] == head(repo)
    # one new commit on top; every old commit, the stranger's too, is still in history
    assert git(repo, "rev-parse", "HEAD^").strip() == old_head
    for h in (c1, stranger, c2):
        assert git(repo, "merge-base", "--is-ancestor", h, "HEAD", check=False) == ""
    # the revert changed only the recorded files; the stranger's change stays
    changed = set(git(repo, "diff", "--name-only", old_head, "HEAD").split())
    assert changed <= {"src/a.py", ".planning/phases/02-auth/02-01-SUMMARY.md", ".planning/STATE.md"}
    assert (repo / "src/a.py").read_text() == "A = 1\n"
    assert (repo / "src/b.py").read_text() == "B = 2  # by hand\n"
    assert not (repo / ".planning/phases/02-auth/02-01-SUMMARY.md").exists()
    # the record is retired: a second undo finds nothing to do
    again = msd_run(["undo", "--plan", "02-01"], repo)
    assert again.returncode == 1 and "no recorded commits" in again.stderr


def test_conflict_with_an_unrecorded_later_commit_is_refused_and_nothing_changes(repo):
    commit(repo, {"src/a.py": "A = 2\n"}, "feat(02-01): a", plan="02-01")
    commit(repo, {"src/a.py": "A = 99  # later, by hand\n"}, "fix: hand edit of a")
    before = tree_state(repo)
    proc = msd_run(["undo", "--plan", "02-01"], repo)
    assert proc.returncode == 1
    out = as_json(proc)
    assert not out["ok"] and "conflicts" in out["refused"] and "src/a.py" in out["refused"]
    assert tree_state(repo) == before
    assert (repo / "src/a.py").read_text() == "A = 99  # later, by hand\n"
    assert not (repo / ".git/REVERT_HEAD").exists()


def test_dirty_tree_is_refused(repo):
    commit(repo, {"src/a.py": "A = 2\n"}, "feat(02-01): a", plan="02-01")
    (repo / "src/c.py").write_text("C = 'uncommitted'\n")
    proc = msd_run(["undo", "--plan", "02-01"], repo)
    assert proc.returncode == 1 and "uncommitted changes" in as_json(proc)["refused"]
    assert (repo / "src/c.py").read_text() == "C = 'uncommitted'\n"
    assert (repo / "src/a.py").read_text() == "A = 2\n"


def test_recorded_commit_not_an_ancestor_is_refused(repo):
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, {"src/c.py": "C = 2\n"}, "feat(02-01): on a side branch", plan="02-01")
    git(repo, "checkout", "-q", "main")
    before = tree_state(repo)
    proc = msd_run(["undo", "--plan", "02-01"], repo)
    assert proc.returncode == 1 and "not an ancestor of HEAD" in as_json(proc)["refused"]
    assert tree_state(repo) == before


def test_recorded_hash_missing_from_repository_is_refused(repo):
    from msd_core.execution import run_record

    run_record.append_commit(repo, "02-auth", "02-01", "x", {"hash": "0" * 40, "files": ["src/a.py"], "message": "m"})
    proc = msd_run(["undo", "--plan", "02-01"], repo)
    assert proc.returncode == 1 and "not in this repository" in as_json(proc)["refused"]


def test_phase_undo_reverts_every_plan_moves_untracked_leftovers_and_syncs_state(repo):
    commit(repo, {"src/a.py": "A = 2\n"}, "feat(02-01): a", plan="02-01")
    commit(repo, {"src/c.py": "C = 2\n"}, "feat(02-02): c", plan="02-02")
    # commit_docs false: summaries and verification were never committed
    phase = repo / ".planning/phases/02-auth"
    for name in ("02-01-SUMMARY.md", "02-02-SUMMARY.md"):
        (phase / name).write_text("---\nphase: 02\n---\nDone.\n")
    (phase / "02-VERIFICATION.md").write_text("---\nstatus: passed\n---\n")
    dry = as_json(msd_run(["undo", "--phase", "2", "--dry-run"], repo))
    assert sorted(dry["would_move"]) == sorted(f".planning/phases/02-auth/{n}" for n in
                                                ("02-01-SUMMARY.md", "02-02-SUMMARY.md", "02-VERIFICATION.md"))
    proc = msd_run(["undo", "--phase", "02-auth"], repo)
    assert proc.returncode == 0, proc.stderr
    out = as_json(proc)
    assert sorted(out["plans"]) == ["02-01", "02-02"] and len(out["moved"]) == 3
    assert (repo / "src/a.py").read_text() == "A = 1\n" and (repo / "src/c.py").read_text() == "C = 1\n"
    assert not list(phase.glob("*SUMMARY.md")) and not (phase / "02-VERIFICATION.md").exists()
    kept = list((repo / ".planning/.msd/undone").rglob("02-VERIFICATION.md"))
    assert len(kept) == 1  # moved aside, never deleted
    assert out["state"] in ("synced", "in sync")
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""
    # what next says now: the phase has plans without summaries again
    nxt = as_json(msd_run(["next"], repo))
    assert nxt["route"] == "execute-phase"


def test_damaged_record_is_reported_and_kept(repo):
    from msd_core.execution import run_record

    path = run_record.record_path(repo, "02-auth", "02-01")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json")
    before = tree_state(repo)
    proc = msd_run(["undo", "--plan", "02-01"], repo)
    assert proc.returncode == 1 and "not valid JSON" in proc.stderr and "Traceback" not in proc.stderr
    assert path.read_text() == "{not json" and tree_state(repo) == before


@pytest.mark.parametrize("args, code", [([], 2), (["--plan", "02-01", "--phase", "2"], 2),
                                        (["--plan", "notaplan"], 2), (["--phase", "9"], 2)])
def test_bad_usage_is_exit_2(repo, args, code):
    proc = msd_run(["undo", *args], repo)
    assert proc.returncode == code and len(proc.stderr.strip().splitlines()) == 1


def test_outside_git_is_one_line_exit_1(tmp_path):
    (tmp_path / ".planning").mkdir()
    proc = msd_run(["undo", "--plan", "02-01"], tmp_path)
    assert proc.returncode == 1 and "not inside a git repository" in proc.stderr


def test_recorded_lists_the_commits_for_review(repo):
    c1, _stranger, c2 = _two_plans_with_a_stranger(repo)
    out = as_json(msd_run(["recorded", "--phase", "2"], repo))
    assert [c["hash"] for c in out["commits"]] == [c1, c2]
    assert out["files"] == [".planning/phases/02-auth/02-01-SUMMARY.md", "src/a.py"]
    assert out["show"].startswith("git show") and c1[:12] in out["show"] and _stranger[:12] not in out["show"]


def test_git_commands_import_nothing_heavy(repo, tmp_path):
    """undo, recorded and ship in a git repository: nothing beyond the light set (not even subprocess)."""
    from tests.kit.probe import denied, probe

    git(repo, "checkout", "-q", "-b", "feature")  # the work on its own branch: ship has a pull request to plan
    commit(repo, {"src/a.py": "A = 2\n"}, "feat(02-01): a", plan="02-01")
    for i, argv in enumerate((["recorded", "--phase", "2"], ["undo", "--plan", "02-01", "--dry-run"],
                              ["ship", "--phase", "2"], ["undo", "--plan", "02-01"])):
        res = probe(argv, repo, tmp_path / f"probe-{i}.json")
        assert res["code"] == 0, res["err"]
        assert denied(res["modules"], set()) == [], argv  # git runs through msd_core.lean.spawn


def test_record_naming_a_path_outside_the_phases_is_refused(repo, tmp_path):
    """A planted record cannot make undo move a file outside .planning/phases/."""
    import json as _json

    from msd_core.execution import run_record

    c = commit(repo, {"src/a.py": "A = 2\n"}, "feat(02-01): a", plan="02-01")
    victim = repo / "outside-SUMMARY.md"
    victim.write_text("keep me")
    path = run_record.record_path(repo, "02-auth", "02-01")
    data = _json.loads(path.read_text())
    data["phase_dir"], data["plan"] = "../..", "outside"
    path.write_text(_json.dumps(data))
    before = tree_state(repo)
    proc = msd_run(["undo", "--plan", "outside"], repo)
    assert proc.returncode in (1, 2) and "Traceback" not in proc.stderr
    proc = msd_run(["undo", "--plan", "02-01"], repo)
    assert proc.returncode == 1 and "no safe phase folder" in proc.stderr
    assert victim.read_text() == "keep me" and tree_state(repo) == before and c


def test_state_goes_back_with_the_revert_in_the_same_commit(repo):
    commit(repo, {"src/a.py": "A = 2\n", ".planning/phases/02-auth/02-01-SUMMARY.md": "---\nphase: 02\n---\nDone.\n"},
           "feat(02-01): a", plan="02-01")
    # 02-02 declares src/a.py (files_modified): its recorded commit touches it, the evidence a tree msd wrote asks for
    commit(repo, {"src/a.py": "A = 3\n", "src/c.py": "C = 2\n",
                  ".planning/phases/02-auth/02-02-SUMMARY.md": "---\nphase: 02\n---\nDone.\n"},
           "feat(02-02): c", plan="02-02")
    assert msd_run(["state", "sync"], repo).returncode == 0
    git(repo, "commit", "-qam", "docs: state")
    assert "Status: Ready to verify" in (repo / ".planning/STATE.md").read_text()
    out = as_json(msd_run(["undo", "--phase", "2"], repo))
    assert out["ok"] and out["state"] == "synced"
    state = (repo / ".planning/STATE.md").read_text()
    assert "Status: Ready to execute" in state and "Plan: 1 of 2 in current phase" in state
    assert ".planning/STATE.md" in git(repo, "show", "--name-only", "--format=", "HEAD").split()
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""


def _git_runs(trace: Path) -> list[str]:
    """The git commands a GIT_TRACE file shows started from outside git (one per process)."""
    return [ln.split("built-in: git ", 1)[1] for ln in trace.read_text().splitlines()
            if "built-in: git " in ln and "maintenance run" not in ln]


def test_dry_run_asks_git_a_fixed_number_of_times_whatever_the_commit_count(repo, tmp_path):
    for i in range(6):
        commit(repo, {"src/a.py": f"A = {i + 2}\n"}, f"feat(02-01): a{i}", plan="02-01", task=i + 1)
    (repo / ".planning/phases/02-auth/02-01-SUMMARY.md").write_text("---\nphase: 02\n---\nDone.\n")
    trace = tmp_path / "git.trace"
    proc = msd_run(["undo", "--plan", "02-01", "--dry-run"], repo, env_extra={"GIT_TRACE": str(trace)})
    assert proc.returncode == 0, proc.stderr
    out = as_json(proc)
    assert len(out["commits"]) == 6 and out["would_move"] == [".planning/phases/02-auth/02-01-SUMMARY.md"]
    runs = _git_runs(trace)
    # status, one rev-list for every commit's ancestry, one log for what every commit holds (provenance),
    # one ls-files for every leftover
    assert [r.split()[0] for r in runs] == ["status", "rev-list", "log", "ls-files"], runs


def _conflict(repo, how: str) -> str:
    """Leave `how` (merge, cherry-pick, revert, rebase) stopped at a conflict; the pseudo-ref it leaves."""
    base = head(repo)
    git(repo, "checkout", "-q", "-b", "side")
    side = commit(repo, {"src/b.py": "B = 'side'\n"}, "side: b")
    git(repo, "checkout", "-q", "main")
    mine = commit(repo, {"src/b.py": "B = 'main'\n"}, "main: b")
    if how == "merge":
        git(repo, "merge", "-q", "--no-edit", "side", check=False)
        return "MERGE_HEAD"
    if how == "cherry-pick":
        git(repo, "cherry-pick", side, check=False)
        return "CHERRY_PICK_HEAD"
    if how == "revert":
        commit(repo, {"src/b.py": "B = 'later'\n"}, "main: b again")
        git(repo, "revert", "--no-edit", mine, check=False)
        return "REVERT_HEAD"
    git(repo, "rebase", "side", check=False)
    assert base
    return "REBASE_HEAD"


@pytest.mark.parametrize("how", ["merge", "cherry-pick", "revert", "rebase"])
@pytest.mark.parametrize("ask_git", [False, True], ids=["from-files", "git-asked"])
def test_an_unfinished_git_operation_is_refused(repo, how, ask_git):
    commit(repo, {"src/a.py": "A = 2\n"}, "feat(02-01): a", plan="02-01")
    ref = _conflict(repo, how)
    gitdir = Path(git(repo, "rev-parse", "--absolute-git-dir").strip())
    assert (gitdir / ref).exists(), f"{how} left no {ref}"
    before = tree_state(repo)
    # GIT_CONFIG_COUNT=0 changes nothing for git, but msd_core.git.repo_files is unsure: git is asked
    proc = msd_run(["undo", "--plan", "02-01", "--dry-run"], repo, env_extra={"GIT_CONFIG_COUNT": "0"} if ask_git else None)
    assert proc.returncode == 1, proc.stderr
    assert as_json(proc)["refused"] == f"a git operation is in progress ({ref} exists); finish or abort it first"
    assert tree_state(repo) == before


def test_in_progress_and_tracked_read_the_checkout_asked(repo, tmp_path):
    from msd_core.git.runner import operation_in_progress, tracked

    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "wt-branch", str(wt))
    (wt / "src/b.py").write_text("B = 'wt'\n")
    git(wt, "commit", "-qam", "wt: b")
    commit(repo, {"src/b.py": "B = 'main'\n"}, "main: b")
    git(wt, "merge", "-q", "--no-edit", "main", check=False)
    assert operation_in_progress(wt) == "MERGE_HEAD"
    assert operation_in_progress(repo) is None  # the merge is the worktree's own
    (repo / "src/new.py").write_text("N = 1\n")
    assert tracked(repo, ["src/a.py", "src/new.py", "src/none.py", ".planning/STATE.md"]) == {
        "src/a.py", ".planning/STATE.md"}
    assert tracked(repo, []) == set()


def test_undo_says_so_in_states_session_line_and_commits_it(repo):
    """Issue 45: after an undo STATE.md still said the undone work was done ("Left off: Quick task
    001 done"); the undo now sets the session line and commits it with the revert."""
    msd_run(["state", "patch", "--set-session", "Plan 02-01 done: a"], repo)
    git(repo, "commit", "-qam", "docs: session")
    commit(repo, {"src/a.py": "A = 2\n"}, "feat(02-01): a", plan="02-01", task=1)
    proc = msd_run(["undo", "--plan", "02-01"], repo)
    assert proc.returncode == 0, proc.stderr
    committed = git(repo, "show", "HEAD:.planning/STATE.md")
    assert "Stopped at: Undid plan 02-01" in committed and "Plan 02-01 done" not in committed
    assert git(repo, "status", "--porcelain") == ""
