"""A commit's files and hash: from `git diff-index` and HEAD's files when no hook can run
(msd_core.git.hooks), from `git diff-tree` when one may; the same answer either way."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from msd_core.execution.commit import scoped_commit
from msd_core.git import hooks
from tests.kit.gitkit import git, make_project, new_repo

PLANS = {"02-01": {"wave": 1, "files": ["src/alpha.py", "src/beta.py", "src/gamma.py"], "tasks": 1}}


def _system_mentions_hooks() -> bool:
    return any(hooks._config_mentions(p) for p in hooks.config_files("/nonexistent", "/nonexistent", dict(os.environ)))


def _spy(monkeypatch) -> list[list[str]]:
    """The git commands started (`git -C <dir>` left out), through run and start alike."""
    from msd_core.lean import spawn

    calls: list[list[str]] = []
    real = spawn.start

    def spying(argv, *rest):
        args = list(argv[3:])
        while args and args[0].startswith("--"):  # top-level options (status's --no-optional-locks)
            args.pop(0)
        calls.append(args)
        return real(argv, *rest)

    monkeypatch.setattr(spawn, "start", spying)
    return calls


def _hook(folder: Path, name: str, body: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _diff_tree(root: Path) -> tuple[str, list[str]]:
    out = git(root, "diff-tree", "--root", "--name-only", "-r", "-z", "HEAD").split("\0")
    parts = [p for p in out if p]
    return parts[0], parts[1:]


def _project(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "p"
    phase = make_project(root, PLANS)
    (root / "src").mkdir()
    for name in ("alpha", "beta", "gamma"):
        (root / "src" / f"{name}.py").write_text(f"{name}\n")
    return root, phase / "02-01-PLAN.md"


def test_without_hooks_no_diff_tree_runs_and_the_answer_is_git_s(tmp_path, monkeypatch):
    if _system_mentions_hooks():
        pytest.skip("this machine's system or global git config mentions hooks or includes")
    root, plan = _project(tmp_path)
    assert hooks.may_run_hooks(root) is False
    calls = _spy(monkeypatch)
    out = scoped_commit(cwd=root, message="feat(02-01): a", paths=["src/alpha.py", "src/beta.py"], plan=str(plan))
    names = [c[0] for c in calls]
    # new files: staged, then committed; before them only the evidence marker's first look at the history
    # (a project's first `commit --plan` asks whether msd's commits are there: progress/evidence.begin)
    assert names[-3:] == ["status", "add", "commit"] and set(names[:-3]) <= {"log"} and "diff-tree" not in names, names
    assert (out["hash"], out["files"]) == _diff_tree(root)
    assert out["files"] == ["src/alpha.py", "src/beta.py"]


def test_a_pre_commit_hook_that_stages_more_is_reported(tmp_path, monkeypatch):
    root, plan = _project(tmp_path)
    git(root, "add", "src/alpha.py")
    git(root, "commit", "-q", "-m", "alpha")
    (root / "src" / "alpha.py").write_text("alpha 2\n")
    # the hook formats a file the commit names, and also stages another one
    _hook(root / ".git" / "hooks", "pre-commit", "echo formatted >> src/gamma.py\ngit add src/gamma.py\n")
    assert hooks.may_run_hooks(root) is True
    calls = _spy(monkeypatch)
    out = scoped_commit(cwd=root, message="feat(02-01): a", paths=["src/alpha.py"], plan=str(plan))
    assert calls[-1][0] == "diff-tree"
    assert (out["hash"], out["files"]) == _diff_tree(root)
    # the hook's `git add` lands in the commit: the staged list alone (src/alpha.py) would be wrong
    assert out["files"] == ["src/alpha.py", "src/gamma.py"]


def test_a_post_commit_hook_that_amends_is_reported(tmp_path):
    root, plan = _project(tmp_path)
    marker = root / ".git" / "amended"
    _hook(root / ".git" / "hooks", "post-commit",
          f'[ -e "{marker}" ] && exit 0\ntouch "{marker}"\necho extra > src/beta.py\ngit add src/beta.py\n'
          "git commit -q --amend --no-edit --no-verify\n")
    out = scoped_commit(cwd=root, message="feat(02-01): a", paths=["src/alpha.py"], plan=str(plan))
    assert marker.exists()
    assert (out["hash"], out["files"]) == _diff_tree(root)
    assert out["hash"] == git(root, "rev-parse", "HEAD").strip()
    assert out["files"] == ["src/alpha.py", "src/beta.py"]
    record = json.loads(Path(out["record"]).read_text())
    assert record["commits"][-1]["hash"] == out["hash"]


def test_hooks_path_in_the_global_config_counts(tmp_path, monkeypatch):
    root, plan = _project(tmp_path)
    shared = tmp_path / "shared-hooks"
    _hook(shared, "pre-commit", "echo hooked >> src/gamma.py\ngit add src/gamma.py\n")
    (Path(os.environ["HOME"]) / ".gitconfig").write_text(f"[core]\n\thooksPath = {shared}\n")
    assert hooks.may_run_hooks(root) is True
    calls = _spy(monkeypatch)
    out = scoped_commit(cwd=root, message="feat(02-01): a", paths=["src/alpha.py"], plan=str(plan))
    assert calls[-1][0] == "diff-tree"
    assert (out["hash"], out["files"]) == _diff_tree(root)
    assert "hooked" in git(root, "show", "HEAD:src/gamma.py")  # the global hook ran and staged
    assert out["files"] == ["src/alpha.py", "src/gamma.py"]


def test_a_rename_and_a_deletion_report_what_diff_tree_reports(tmp_path):
    root, plan = _project(tmp_path)
    git(root, "add", "src")
    git(root, "commit", "-q", "-m", "sources")
    os.rename(root / "src" / "alpha.py", root / "src" / "beta2.py")
    (root / "src" / "gamma.py").unlink()
    out = scoped_commit(cwd=root, message="chore: move", paths=["src/alpha.py", "src/beta2.py", "src/gamma.py"],
                        deviation="a rename outside the plan")
    assert (out["hash"], out["files"]) == _diff_tree(root)
    assert out["files"] == ["src/alpha.py", "src/beta2.py", "src/gamma.py"]


def test_a_folder_path_reports_every_file_under_it_in_git_order(tmp_path):
    root, plan = _project(tmp_path)
    (root / "src" / "a.b").write_text("x\n")
    (root / "src" / "a").mkdir()
    (root / "src" / "a" / "c").write_text("y\n")
    (root / "src" / "a-b").write_text("z\n")
    out = scoped_commit(cwd=root, message="chore: all", paths=["src/"], deviation="everything")
    assert (out["hash"], out["files"]) == _diff_tree(root)


def test_the_first_commit_of_an_unborn_branch(tmp_path, monkeypatch):
    root = new_repo(tmp_path / "fresh")
    (root / "one.txt").write_text("1\n")
    calls = _spy(monkeypatch)
    out = scoped_commit(cwd=root, message="first", paths=["one.txt"])
    assert [c[0] for c in calls] == ["status", "add", "commit"]  # status reads an unborn branch too
    assert (out["hash"], out["files"]) == _diff_tree(root) and out["files"] == ["one.txt"]


# --- may_run_hooks itself -------------------------------------------------------------------

def _bare_env(home: Path) -> dict:
    return {"HOME": str(home), "PATH": os.environ["PATH"]}


def test_sample_and_non_executable_hooks_do_not_count(tmp_path):
    if _system_mentions_hooks():
        pytest.skip("this machine's system git config mentions hooks or includes")
    root = new_repo(tmp_path / "r")
    env = _bare_env(tmp_path / "home")
    hooks_dir = root / ".git" / "hooks"
    _hook(hooks_dir, "pre-commit.sample", "exit 1\n")
    (hooks_dir / "post-commit").write_text("#!/bin/sh\nexit 0\n")  # not executable: git skips it
    assert hooks.may_run_hooks(root, env) is False
    (hooks_dir / "post-commit").chmod(0o755)
    assert hooks.may_run_hooks(root, env) is True


@pytest.mark.parametrize("text", ["[core]\n\thooksPath = /x\n", '[hook "lint"]\n\tcommand = true\n',
                                  "[include]\n\tpath = other\n", '[includeIf "gitdir:~/w/"]\n\tpath = o\n',
                                  "[Core]\n\tHOOKSPATH=/x\n"])
def test_a_repository_config_mentioning_hooks_or_includes_counts(tmp_path, text):
    root = new_repo(tmp_path / "r")
    env = _bare_env(tmp_path / "home")
    with open(root / ".git" / "config", "a") as fh:
        fh.write(text)
    assert hooks.may_run_hooks(root, env) is True


def test_config_from_the_environment_or_an_odd_layout_counts(tmp_path):
    root = new_repo(tmp_path / "r")
    env = _bare_env(tmp_path / "home")
    assert hooks.may_run_hooks(root, {**env, "GIT_CONFIG_GLOBAL": str(tmp_path / "g")}) is True
    assert hooks.may_run_hooks(root, {**env, "GIT_CONFIG_COUNT": "1"}) is True
    assert hooks.may_run_hooks(tmp_path / "not-a-repo", env) is True


def test_the_xdg_global_config_counts(tmp_path):
    root = new_repo(tmp_path / "r")
    home = tmp_path / "home"
    xdg = tmp_path / "xdg"
    (xdg / "git").mkdir(parents=True)
    (xdg / "git" / "config").write_text("[core]\n\thooksPath = /x\n")
    assert hooks.may_run_hooks(root, {**_bare_env(home), "XDG_CONFIG_HOME": str(xdg)}) is True


def test_the_system_config_beside_the_git_on_path_counts(tmp_path):
    prefix = tmp_path / "opt" / "git"
    (prefix / "bin").mkdir(parents=True)
    fake = prefix / "bin" / "git"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    env = {"HOME": str(tmp_path / "home"), "PATH": str(prefix / "bin")}
    files = hooks.config_files(str(tmp_path / "c"), str(tmp_path / "g"), env)
    assert str(prefix / "etc" / "gitconfig") in files and "/etc/gitconfig" in files
    root = new_repo(tmp_path / "r")
    (prefix / "etc").mkdir()
    (prefix / "etc" / "gitconfig").write_text("[core]\n\thooksPath = /x\n")
    assert hooks.may_run_hooks(root, env) is True


def test_an_unreadable_config_counts(tmp_path):
    root = new_repo(tmp_path / "r")
    home = tmp_path / "home"
    (home / ".gitconfig").mkdir(parents=True)  # a folder where the file should be
    assert hooks.may_run_hooks(root, _bare_env(home)) is True
