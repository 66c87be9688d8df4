"""Undo reverts only what msd committed, told by git and not by the run record.

A run record is project data anyone (a person, an agent) can edit. Each test forges or tampers
with one in one way; undo and its dry run refuse with one line and change nothing. The commits
are made with the real `msd_run commit --plan`, so the trailer it writes is the one checked."""

from __future__ import annotations

import json

import pytest

from msd_core.execution import run_record
from tests.kit.lifecyclekit import as_json, git, head, msd_run, project, tree_state

PLAN = ".planning/phases/02-auth/02-01-PLAN.md"


@pytest.fixture()
def repo(tmp_path):
    root = project(tmp_path / "proj")
    (root / ".planning/phases/02-auth/02-01-PLAN.md").write_text(
        "---\nphase: 02-auth\nplan: 01\nfiles_modified: [src/a.py, src/c.py]\n---\nplan\n")
    git(root, "commit", "-qam", "plan declares src/c.py")
    return root


def msd_commit(repo, files: dict[str, str], message: str, plan: str = PLAN) -> str:
    for rel, text in files.items():
        (repo / rel).write_text(text)
    proc = msd_run(["commit", "--plan", plan, "--files", *files, "-m", message], repo)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hash"]


def hand_commit(repo, files: dict[str, str], message: str) -> str:
    for rel, text in files.items():
        (repo / rel).write_text(text)
    git(repo, "commit", "-qm", message, "--", *files)
    return head(repo)


def record(repo) -> dict:
    return json.loads(run_record.record_path(repo, "02-auth", "02-01").read_text())


def rewrite(repo, data: dict) -> None:
    run_record.record_path(repo, "02-auth", "02-01").write_text(json.dumps(data))


def refused(repo, *extra) -> str:
    before = tree_state(repo)
    for dry in ([], ["--dry-run"]):
        proc = msd_run(["undo", "--plan", "02-01", *dry, *extra], repo)
        assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("msd_run undo: refused: "), proc.stderr
        assert not as_json(proc)["ok"]
        assert tree_state(repo) == before
    return proc.stderr


def test_msd_commit_marks_its_commit_for_its_plan(repo):
    h = msd_commit(repo, {"src/a.py": "A = 2\n"}, "feat(02-01): a")
    assert git(repo, "log", "-1", "--format=%(trailers:key=Msd-Plan,valueonly)", h).strip() == "02-auth/02-01"
    assert git(repo, "log", "-1", "--format=%s", h).strip() == "feat(02-01): a"  # the subject is the message given
    proc = msd_run(["undo", "--plan", "02-01"], repo)
    assert proc.returncode == 0, proc.stderr
    assert (repo / "src/a.py").read_text() == "A = 1\n"


def test_a_forged_record_naming_a_hand_commit_is_refused(repo):
    msd_commit(repo, {"src/a.py": "A = 2\n"}, "feat(02-01): a")
    stranger = hand_commit(repo, {"src/b.py": "B = 2  # by hand\n"}, "chore: mine")
    data = record(repo)
    data["commits"].append({"hash": stranger, "files": ["src/b.py"], "message": "chore: mine"})
    rewrite(repo, data)
    err = refused(repo)
    assert f"{stranger[:12]} was not made by `msd_run commit` for 02-01" in err and "no Msd-Plan trailer" in err
    assert (repo / "src/b.py").read_text() == "B = 2  # by hand\n"


def test_a_record_naming_another_plans_commit_is_refused(repo):
    (repo / ".planning/phases/02-auth/02-02-PLAN.md").write_text(
        "---\nphase: 02-auth\nplan: 02\nfiles_modified: [src/b.py]\n---\nplan\n")
    git(repo, "commit", "-qam", "plan 02")
    other = msd_commit(repo, {"src/b.py": "B = 2\n"}, "feat(02-02): b", plan=".planning/phases/02-auth/02-02-PLAN.md")
    run_record.append_commit(repo, "02-auth", "02-01", PLAN, {"hash": other, "files": ["src/b.py"], "message": "x"})
    assert "it says Msd-Plan: 02-auth/02-02" in refused(repo)


def test_a_record_whose_files_were_edited_is_refused(repo):
    msd_commit(repo, {"src/a.py": "A = 2\n", "src/c.py": "C = 2\n"}, "feat(02-01): a and c")
    data = record(repo)
    data["commits"][0]["files"] = ["src/a.py"]  # hides src/c.py
    rewrite(repo, data)
    assert "also touches src/c.py" in refused(repo)
    data["commits"][0]["files"] = ["src/a.py", "src/c.py", "src/b.py"]  # claims one more
    rewrite(repo, data)
    assert "does not touch src/b.py" in refused(repo)


def test_a_record_naming_a_merge_or_an_abbreviated_stranger_is_refused(repo):
    msd_commit(repo, {"src/a.py": "A = 2\n"}, "feat(02-01): a")
    git(repo, "checkout", "-q", "-b", "side")
    hand_commit(repo, {"src/b.py": "B = 3\n"}, "side work")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    merge = head(repo)
    data = record(repo)
    data["commits"].append({"hash": merge, "files": ["src/b.py"], "message": "merge side"})
    rewrite(repo, data)
    assert "is a merge" in refused(repo)


def test_dry_run_shows_what_git_says_the_commits_hold(repo):
    h = msd_commit(repo, {"src/a.py": "A = 2\n"}, "feat(02-01): a")
    data = record(repo)
    data["commits"][0]["message"] = "docs: harmless typo fix"  # the record's message is only a claim
    rewrite(repo, data)
    proc = msd_run(["undo", "--plan", "02-01", "--dry-run"], repo)
    assert proc.returncode == 0, proc.stderr
    (c,) = as_json(proc)["commits"]
    assert c == {"hash": h, "plan": "02-01", "message": "feat(02-01): a", "files": ["src/a.py"]}


def test_an_abbreviated_recorded_hash_is_shown_in_full(repo):
    h = msd_commit(repo, {"src/a.py": "A = 2\n"}, "feat(02-01): a")
    data = record(repo)
    data["commits"][0]["hash"] = h[:10]
    rewrite(repo, data)
    proc = msd_run(["undo", "--plan", "02-01", "--dry-run"], repo)
    assert proc.returncode == 0, proc.stderr
    assert as_json(proc)["commits"][0]["hash"] == h
