"""HEAD, branch and checkout layout read from git's files (msd_core.git.repo_files), checked
against the real git binary in each layout, and the fall-back to git where the files do not
settle it (msd_core.git.runner asks git then)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from msd_core.errors import OperationFailed
from msd_core.git import repo_files, runner

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="git is not installed")


def git(cwd, *args, check=True) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
                "GIT_COMMITTER_EMAIL": "t@example.invalid"})
    proc = subprocess.run(["git", *args], cwd=str(cwd), capture_output=True, text=True, timeout=60, env=env,
                          stdin=subprocess.DEVNULL)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {proc.stderr}")
    return proc.stdout.strip() if proc.returncode == 0 else None


def truth(cwd) -> dict:
    """What git itself answers."""
    paths = git(cwd, "rev-parse", "--path-format=absolute", "--git-common-dir", "--git-dir", "--show-toplevel",
                check=False)
    common, gitdir, top = paths.splitlines() if paths else (None, None, None)
    return {"commit": git(cwd, "rev-parse", "--verify", "-q", "HEAD", check=False) or None,
            "branch": git(cwd, "symbolic-ref", "-q", "--short", "HEAD", check=False) or None,
            "top": top, "gitdir": gitdir and os.path.realpath(gitdir), "common": common and os.path.realpath(common)}


def from_files(cwd) -> dict:
    lay = repo_files.layout(cwd)
    h = repo_files.head(lay)
    return {"commit": h.commit, "branch": h.branch, "top": lay.top, "gitdir": lay.gitdir, "common": lay.common}


@pytest.fixture
def no_git(monkeypatch):
    """Any attempt to run git fails the test: the answer must come from the files."""
    def refuse(*a, **k):
        raise AssertionError(f"git was run: {a[0] if a else k}")

    from msd_core.lean import spawn

    monkeypatch.setattr(runner, "_git_once", refuse)
    monkeypatch.setattr(spawn, "start", refuse)  # runner.git_start too


@pytest.fixture
def repo(tmp_path, monkeypatch):
    for name in repo_files.GIT_ENV:
        monkeypatch.delenv(name, raising=False)
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    git(r, "config", "commit.gpgsign", "false")
    (r / "a.txt").write_text("a\n")
    (r / "sub" / "deep").mkdir(parents=True)
    (r / "sub" / "deep" / "b.txt").write_text("b\n")
    git(r, "add", "-A")
    git(r, "commit", "-q", "-m", "one")
    return r


def test_normal_repository_from_top_and_subfolder(repo, no_git):
    for cwd in (repo, repo / "sub" / "deep"):
        got = from_files(cwd)
        assert got == truth(cwd)
        assert got["branch"] == "main" and len(got["commit"]) == 40
        assert runner.head(cwd) == got["commit"] and runner.current_branch(cwd) == "main"
        assert runner.repo_paths(cwd) == (repo.resolve(), repo.resolve(), False)
        assert runner.toplevel(cwd) == repo.resolve()


def test_detached_head(repo, no_git):
    git(repo, "commit", "-q", "--allow-empty", "-m", "two")
    first = git(repo, "rev-parse", "HEAD~1")
    git(repo, "checkout", "-q", "--detach", first)
    got = from_files(repo)
    assert got == truth(repo)
    assert got["branch"] is None and got["commit"] == first
    assert runner.current_branch(repo) is None and runner.head(repo) == first


def test_packed_refs_only(repo, no_git):
    git(repo, "checkout", "-q", "-b", "feature/x")
    git(repo, "commit", "-q", "--allow-empty", "-m", "on feature")
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "feature" / "x").exists()
    assert "refs/heads/feature/x" in (repo / ".git" / "packed-refs").read_text()
    got = from_files(repo)
    assert got == truth(repo)
    assert got["branch"] == "feature/x"


def test_loose_ref_wins_over_a_stale_packed_one(repo, no_git):
    git(repo, "pack-refs", "--all")
    git(repo, "commit", "-q", "--allow-empty", "-m", "after packing")  # writes a loose ref again
    assert from_files(repo) == truth(repo)


def test_linked_worktree(repo, tmp_path, no_git):
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "exec-01", str(wt))
    (wt / "c.txt").write_text("c\n")
    git(wt, "add", "c.txt")
    git(wt, "commit", "-q", "-m", "in the worktree")
    got = from_files(wt)
    assert got == truth(wt)
    assert got["branch"] == "exec-01" and got["gitdir"] != got["common"]
    assert runner.repo_paths(wt) == (wt.resolve(), repo.resolve(), True)
    assert runner.head(wt) != runner.head(repo)  # each checkout has its own HEAD
    assert from_files(repo) == truth(repo)


def test_linked_worktree_with_detached_head_and_packed_refs(repo, tmp_path, no_git):
    wt = tmp_path / "wt2"
    git(repo, "worktree", "add", "-q", "--detach", str(wt))
    git(repo, "pack-refs", "--all")
    got = from_files(wt)
    assert got == truth(wt) and got["branch"] is None


def test_unborn_branch(tmp_path, no_git, monkeypatch):
    for name in repo_files.GIT_ENV:
        monkeypatch.delenv(name, raising=False)
    r = tmp_path / "fresh"
    r.mkdir()
    git(r, "init", "-q", "-b", "trunk")
    got = from_files(r)
    assert got == truth(r)
    assert got["commit"] is None and got["branch"] == "trunk"
    assert runner.head(r) is None and runner.current_branch(r) == "trunk"


def test_symbolic_ref_chain(repo, no_git):
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    git(repo, "symbolic-ref", "HEAD", "refs/heads/alias")
    got = from_files(repo)
    assert got == truth(repo)
    assert got["branch"] == "main" and got["commit"] == git(repo, "rev-parse", "main")  # the chain's end


def test_submodule_style_gitdir_file(repo, tmp_path, no_git):
    """A `.git` file pointing at a git directory without `commondir` (how submodules are laid out)."""
    other = tmp_path / "other"
    other.mkdir()
    (other / ".git").write_text(f"gitdir: {os.path.relpath(repo / '.git', other)}\n")
    got = from_files(other)
    assert got == truth(other)
    assert runner.repo_paths(other) == (other.resolve(), other.resolve(), False)


# ---------------------------------------------------------------- unsure: git decides


def test_branch_named_like_a_tag_is_left_to_git(repo):
    git(repo, "tag", "main")  # symbolic-ref --short then says heads/main
    with pytest.raises(repo_files.Unsure):
        repo_files.head(repo_files.layout(repo))
    assert runner.current_branch(repo) == truth(repo)["branch"] == "heads/main"
    assert runner.head(repo) == truth(repo)["commit"]


@pytest.mark.parametrize("garbage", ["nonsense\n", "ref: refs/heads/../../x\n", "ref: HEAD\n", "0123\n",
                                     "ref: refs/heads/main\nsecond line\n", ""])
def test_corrupt_head_falls_back_to_git(repo, garbage):
    (repo / ".git" / "HEAD").write_text(garbage)
    with pytest.raises(repo_files.Unsure):
        repo_files.head(repo_files.layout(repo))
    t = truth(repo)
    assert runner.head(repo) == t["commit"]
    assert runner.current_branch(repo) == t["branch"]


def test_corrupt_loose_ref_falls_back_to_git(repo):
    (repo / ".git" / "refs" / "heads" / "main").write_text("not a hash\n")
    with pytest.raises(repo_files.Unsure):
        repo_files.head(repo_files.layout(repo))
    assert runner.head(repo) == truth(repo)["commit"]


def test_head_as_symlink_is_left_to_git(repo):
    head = repo / ".git" / "HEAD"
    text = head.read_text()
    head.unlink()
    (repo / ".git" / "HEAD.real").write_text(text)
    head.symlink_to("HEAD.real")
    with pytest.raises(repo_files.Unsure):
        repo_files.head(repo_files.layout(repo))
    assert runner.current_branch(repo) == truth(repo)["branch"]


@pytest.mark.parametrize("config", ["[core]\n\tworktree = /elsewhere\n", "[extensions]\n\trefStorage = reftable\n",
                                    "[include]\n\tpath = other.cfg\n", "[core]\n\tbare = true\n"])
def test_config_that_changes_the_layout_is_left_to_git(repo, config):
    with open(repo / ".git" / "config", "a") as fh:
        fh.write(config)
    with pytest.raises(repo_files.Unsure):
        repo_files.layout(repo)


@pytest.mark.parametrize("var", ["GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES"])
def test_git_environment_is_left_to_git(repo, monkeypatch, var):
    monkeypatch.setenv(var, str(repo / ".git") if var == "GIT_DIR" else str(repo))
    with pytest.raises(repo_files.Unsure):
        repo_files.layout(repo)


def test_inside_the_git_directory_is_left_to_git(repo):
    with pytest.raises(repo_files.Unsure):
        repo_files.layout(repo / ".git" / "refs")


def test_gitdir_file_pointing_nowhere_is_left_to_git(tmp_path, monkeypatch):
    for name in repo_files.GIT_ENV:
        monkeypatch.delenv(name, raising=False)
    d = tmp_path / "broken"
    d.mkdir()
    (d / ".git").write_text("gitdir: /nonexistent/place\n")
    with pytest.raises(repo_files.Unsure):
        repo_files.layout(d)
    # git itself refuses: the runner reports "not inside a git repository" cleanly
    with pytest.raises(OperationFailed):
        runner.toplevel(d)
    assert runner.head(d) is None


def test_outside_any_repository(tmp_path, monkeypatch):
    for name in repo_files.GIT_ENV:
        monkeypatch.delenv(name, raising=False)
    d = tmp_path / "plain"
    d.mkdir()
    assert truth(d)["top"] is None
    try:
        assert repo_files.layout(d) is None
    except repo_files.Unsure:
        pass  # e.g. a filesystem boundary above: git decides, and agrees below
    assert runner.head(d) is None and runner.current_branch(d) is None
    with pytest.raises(OperationFailed, match="not inside a git repository"):
        runner.repo_paths(d)


def test_a_sequence_of_operations_stays_in_step_with_git(repo, tmp_path, no_git):
    """After each of a bounded series of ordinary git operations, the files and git agree."""
    steps = [("checkout", "-q", "-b", "b1"), ("commit", "-q", "--allow-empty", "-m", "x"), ("pack-refs", "--all"),
             ("checkout", "-q", "main"), ("commit", "-q", "--allow-empty", "-m", "y"), ("checkout", "-q", "--detach"),
             ("checkout", "-q", "b1"), ("branch", "-q", "-D", "main"), ("pack-refs", "--all", "--prune"),
             ("checkout", "-q", "--orphan", "empty")]
    for step in steps:
        git(repo, *step)
        assert from_files(repo) == truth(repo), step


# ---------------------------------------------------------------- callers


def test_wave_plan_base_comes_from_the_files(repo, tmp_path):
    """`msd_run wave plan` reports HEAD as `base` without starting git (no subprocess import)."""
    from tests.kit.probe import PROBE

    phase = repo / ".planning" / "phases" / "01-x"
    phase.mkdir(parents=True)
    (phase / "01-01-PLAN.md").write_text("---\nphase: 01-x\nplan: 01\nwave: 1\nfiles_modified: [a.txt]\n---\nbody\n")
    out = tmp_path / "probe.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    r = subprocess.run([sys.executable, "-c", PROBE, json.dumps(["wave", "plan", "--phase-dir", "01-x"]), str(out)],
                       cwd=str(repo), capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    res = json.loads(out.read_text())
    assert res["code"] == 0, res["err"]
    assert json.loads(res["out"])["base"] == git(repo, "rev-parse", "HEAD")
    assert "subprocess" not in res["modules"]
