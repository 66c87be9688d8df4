"""`msd_run ship`: branch, remote, gh and a PR body from what the project recorded; never pushes."""

from __future__ import annotations

import stat

import pytest

from tests.kit.lifecyclekit import as_json, commit, git, msd_run, project


@pytest.fixture()
def repo(tmp_path):
    root = project(tmp_path / "proj")
    commit(root, {"src/a.py": "A = 2\n"}, "feat(02-01): login endpoint", plan="02-01")
    commit(root, {".planning/phases/02-auth/02-01-SUMMARY.md":
                  "---\nphase: 02-auth\nplan: 01\nprovides: [login endpoint]\nkey-decisions: [Sessions expire after 24h]\n---\n"
                  "# 02-01 Summary\n\nLogin with email and password works.\n",
                  ".planning/phases/02-auth/02-VERIFICATION.md": "---\nstatus: passed\n---\n"}, "docs(02-01): summary")
    return root


def _bin_with(tmp_path, name):
    d = tmp_path / f"bin-{name}"
    d.mkdir()
    p = d / name
    p.write_text("#!/bin/sh\nexit 0\n")
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return d


def test_phase_ship_without_remote_prints_commands_and_writes_the_body(repo, tmp_path):
    git(repo, "checkout", "-q", "-b", "feature/auth")
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
    git(repo, "checkout", "-q", "-b", "feature/auth")
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
    git(repo, "checkout", "-q", "-b", "feature/auth")
    out = as_json(msd_run(["ship", "--phase", "2"], repo, env_extra={"PATH": "/usr/bin:/bin"}))
    assert "https://github.com/acme/shop/compare/main...feature/auth?expand=1" in out["commands"][-1]


def test_phase_strategy_names_the_branch_to_switch_to(repo):
    (repo / ".planning/config.json").write_text('{"git": {"branching_strategy": "phase"}}\n')
    out = as_json(msd_run(["ship", "--phase", "2"], repo, env_extra={"PATH": "/usr/bin:/bin"}))
    assert out["branch"] == "msd/phase-02-auth" and not out["on_branch"]
    assert out["commands"][0] == "msd_run branch --phase 2 --apply"


def test_work_on_the_base_branch_is_refused(repo):
    proc = msd_run(["ship", "--phase", "2"], repo)
    assert proc.returncode == 1 and "base branch main" in proc.stderr


def test_milestone_body_covers_every_phase(repo):
    git(repo, "checkout", "-q", "-b", "release")
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
