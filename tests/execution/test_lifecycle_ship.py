"""`msd_run ship`: branch, remote, gh and a PR body from what the project recorded; never pushes."""

from __future__ import annotations

import stat

import pytest

from tests.kit.lifecyclekit import as_json, commit, git, msd_run, project


@pytest.fixture()
def repo(tmp_path):
    """The phase's work committed on branch feature/auth (made from main first); main checked out."""
    root = project(tmp_path / "proj")
    git(root, "checkout", "-q", "-b", "feature/auth")
    commit(root, {"src/a.py": "A = 2\n"}, "feat(02-01): login endpoint", plan="02-01")
    commit(root, {".planning/phases/02-auth/02-01-SUMMARY.md":
                  "---\nphase: 02-auth\nplan: 01\nprovides: [login endpoint]\nkey-decisions: [Sessions expire after 24h]\n---\n"
                  "# 02-01 Summary\n\nLogin with email and password works.\n",
                  ".planning/phases/02-auth/02-VERIFICATION.md": "---\nstatus: passed\n---\n"}, "docs(02-01): summary")
    git(root, "checkout", "-q", "main")
    return root


def _bin_with(tmp_path, name):
    d = tmp_path / f"bin-{name}"
    d.mkdir()
    p = d / name
    p.write_text("#!/bin/sh\nexit 0\n")
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return d


def test_phase_ship_without_remote_prints_commands_and_writes_the_body(repo, tmp_path):
    git(repo, "checkout", "-q", "feature/auth")
    out = as_json(msd_run(["ship", "--phase", "2"], repo, env_extra={"PATH": "/usr/bin:/bin"}))
    assert out["branch"] == "feature/auth" and out["on_branch"] and out["base"] == "main"
    assert out["remote"] is None and out["gh"] is False
    assert any(c.startswith("git remote add origin") for c in out["commands"])
    assert not any(c.startswith("git push") for c in out["commands"])
    body = open(out["body_file"]).read()
    assert "# Phase 02" in body and "Login with email and password works." in body
    assert "login endpoint" in body and "Sessions expire after 24h" in body
    assert "**Verification:** passed" in body and "AUTH-01" in body
    assert "feat(02-01): login endpoint" in body and "02-02**: no SUMMARY" in body
    assert out["body_file"].startswith(str(repo / ".planning/.msd/ship/"))


def test_remote_and_gh_give_push_and_pr_commands_in_order(repo, tmp_path):
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(repo, "remote", "add", "origin", str(bare))
    git(repo, "checkout", "-q", "feature/auth")
    remote_refs_before = git(bare, "for-each-ref")
    path = f"{_bin_with(tmp_path, 'gh')}:/usr/bin:/bin"
    out = as_json(msd_run(["ship", "--phase", "2"], repo, env_extra={"PATH": path}))
    assert out["gh"] is True and out["remote"] == "origin"
    assert out["commands"][0] == "git push -u origin feature/auth"
    assert out["commands"][1].startswith("gh pr create --base main --head feature/auth --title 'Phase 02")
    assert "--body-file" in out["commands"][1]
    assert git(bare, "for-each-ref") == remote_refs_before  # nothing was pushed


def test_github_remote_without_gh_gives_the_compare_url(repo):
    git(repo, "remote", "add", "origin", "git@github.com:acme/shop.git")
    git(repo, "checkout", "-q", "feature/auth")
    out = as_json(msd_run(["ship", "--phase", "2"], repo, env_extra={"PATH": "/usr/bin:/bin"}))
    assert "https://github.com/acme/shop/compare/main...feature/auth?expand=1" in out["commands"][-1]


def test_phase_strategy_names_the_branch_to_switch_to(repo):
    git(repo, "branch", "msd/phase-02-auth", "feature/auth")  # execute-phase made it and committed there
    (repo / ".planning/config.json").write_text('{"git": {"branching_strategy": "phase"}}\n')
    out = as_json(msd_run(["ship", "--phase", "2"], repo, env_extra={"PATH": "/usr/bin:/bin"}))
    assert out["branch"] == "msd/phase-02-auth" and not out["on_branch"]
    assert out["commands"][0] == "msd_run branch --phase 2 --apply"


def test_work_on_the_base_branch_is_refused(repo):
    proc = msd_run(["ship", "--phase", "2"], repo)
    assert proc.returncode == 1 and "base branch main" in proc.stderr


def _work_on_main(tmp_path, with_remote: bool):
    """Strategy none (the default): the phase's work committed on main itself, after main was pushed."""
    root = project(tmp_path / "onmain")
    bare = tmp_path / "onmain-remote.git"
    if with_remote:
        git(tmp_path, "init", "-q", "--bare", str(bare))
        git(root, "remote", "add", "origin", str(bare))
        git(root, "push", "-q", "-u", "origin", "main")
    commit(root, {"src/a.py": "A = 3\n"}, "feat(02-01): login endpoint", plan="02-01")
    return root, bare


def test_the_remedy_for_work_on_main_opens_a_pull_request_that_carries_it(tmp_path):
    """Issue 28, seam 6: the remedy the refusal gives (a branch from HEAD) is compared with the
    remote's main, which lacks the work: the pull request carries the commit."""
    root, bare = _work_on_main(tmp_path, with_remote=True)
    proc = msd_run(["ship", "--phase", "2"], root, env_extra={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 1 and "git.branching_strategy to phase" in proc.stderr and "1 commit(s) origin/main lacks" in proc.stderr
    msd_run(["config", "set", "git.branching_strategy", "phase"], root)
    out = as_json(msd_run(["ship", "--phase", "2"], root, env_extra={"PATH": "/usr/bin:/bin"}))
    assert out["compare"] == "origin/main" and out["commits"] == 1 and out["already_in_base"] == 0
    assert out["commands"][:2] == ["msd_run branch --phase 2 --apply", "git push -u origin msd/phase-02-auth"]
    for command in out["commands"][:2]:
        args = command.split()
        ran = msd_run(args[1:], root) if args[0] == "msd_run" else git(root, *args[1:])
        assert getattr(ran, "returncode", 0) == 0
    carried = git(bare, "rev-list", "main..msd/phase-02-auth").split()
    assert len(carried) == 1  # the pushed branch holds the work the remote's main lacks
    assert "feat(02-01): login endpoint" in open(out["body_file"]).read()


def test_a_branch_that_carries_nothing_is_refused(tmp_path):
    root, _bare = _work_on_main(tmp_path, with_remote=False)
    msd_run(["config", "set", "git.branching_strategy", "phase"], root)
    proc = msd_run(["ship", "--phase", "2"], root)
    assert proc.returncode == 1 and "pull request would be empty" in proc.stderr and "no remote" in proc.stderr
    # a branch whose work is merged into main already carries nothing either
    git(root, "branch", "done-already")
    git(root, "checkout", "-q", "done-already")
    msd_run(["config", "set", "git.branching_strategy", "none"], root)
    proc = msd_run(["ship", "--phase", "2"], root)
    assert proc.returncode == 1 and "done-already holds no commit that main lacks" in proc.stderr


def test_the_body_lists_only_the_commits_the_branch_carries(repo):
    commit(repo, {"src/b.py": "B = 5\n"}, "feat(02-02): on main, not on the branch", plan="02-02")
    git(repo, "checkout", "-q", "feature/auth")
    out = as_json(msd_run(["ship", "--phase", "2"], repo, env_extra={"PATH": "/usr/bin:/bin"}))
    body = open(out["body_file"]).read()
    assert "feat(02-01): login endpoint" in body and "on main, not on the branch" not in body
    assert out["commits"] == 2 and out["already_in_base"] == 1


def test_milestone_body_covers_every_phase(repo):
    git(repo, "checkout", "-q", "-b", "release", "feature/auth")
    out = as_json(msd_run(["ship", "--milestone", "v1.0"], repo, env_extra={"PATH": "/usr/bin:/bin"}))
    assert out["title"].startswith("Milestone v1.0") and out["phases"] == ["01-foundation", "02-auth"]
    body = as_json(msd_run(["ship", "--milestone", "v1.0"], repo)) and open(out["body_file"]).read()
    assert "## Phase 01" in body and "## Phase 02" in body


def test_body_only_and_bad_usage(repo):
    proc = msd_run(["ship", "--phase", "2", "--body"], repo)
    assert proc.returncode == 0 and proc.stdout.startswith("# Phase 02")
    for args in (["ship"], ["ship", "--phase", "2", "--milestone"], ["ship", "--phase", "7"]):
        bad = msd_run(args, repo)
        assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_the_remedy_for_a_milestone_on_main_names_strategy_milestone(tmp_path):
    """Strategy phase makes no branch for `ship --milestone` (it stays refused on main): the hint for a
    milestone names strategy milestone and the command that sets it (found by tests/cycle/test_repairs_cycle.py)."""
    root, _bare = _work_on_main(tmp_path, with_remote=True)
    proc = msd_run(["ship", "--milestone", "v1.0"], root, env_extra={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 1 and "msd_run config set git.branching_strategy milestone" in proc.stderr, proc.stderr
    assert msd_run(["config", "set", "git.branching_strategy", "milestone"], root).returncode == 0
    again = msd_run(["ship", "--milestone", "v1.0"], root, env_extra={"PATH": "/usr/bin:/bin"})
    assert again.returncode == 0, again.stderr
