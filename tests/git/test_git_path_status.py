"""msd_run commit's one `git status` (msd_core.git.path_status): what a commit of the named
paths holds, in the states it settles; every other state goes back to staging and asking git."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from msd_core.errors import OperationFailed
from msd_core.execution.commit import scoped_commit
from msd_core.git import path_status
from tests.git.test_git_hooks import PLANS, _diff_tree, _spy, _system_mentions_hooks
from tests.kit.gitkit import git, make_project

pytestmark = pytest.mark.skipif(_system_mentions_hooks(), reason="this machine's git config mentions hooks or includes")


@pytest.fixture()
def root(tmp_path) -> Path:
    root = tmp_path / "p"
    make_project(root, PLANS)
    (root / "src").mkdir()
    for name in ("alpha", "beta"):
        (root / "src" / f"{name}.py").write_text(f"{name}\n")
    (root / ".gitignore").write_text("*.log\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def _index_and_head(root: Path) -> tuple[str, str]:
    return git(root, "ls-files", "-s"), git(root, "rev-parse", "HEAD")


def test_a_tracked_change_is_one_status_and_the_commit(root, monkeypatch):
    (root / "src" / "alpha.py").write_text("alpha 2\n")
    calls = _spy(monkeypatch)
    out = scoped_commit(cwd=root, message="fix: a", paths=["src/alpha.py", "src/beta.py"])
    assert [c[0] for c in calls] == ["status", "commit"]
    assert (out["hash"], out["files"]) == _diff_tree(root) and out["files"] == ["src/alpha.py"]


def test_a_deleted_file_and_a_new_one_under_a_named_folder(root, monkeypatch):
    (root / "src" / "beta.py").unlink()
    (root / "src" / "gamma.py").write_text("gamma\n")
    (root / "src" / "debug.log").write_text("ignored, inside the named folder\n")
    calls = _spy(monkeypatch)
    out = scoped_commit(cwd=root, message="chore: src", paths=["src"])
    assert [c[0] for c in calls] == ["status", "add", "commit"]
    assert calls[1][-1:] == ["src/gamma.py"]  # only the untracked file is staged first
    assert (out["hash"], out["files"]) == _diff_tree(root) and out["files"] == ["src/beta.py", "src/gamma.py"]
    assert "src/debug.log" not in git(root, "ls-files")


def test_a_named_ignored_file_is_refused_by_git_add_and_nothing_changes(root):
    (root / "src" / "alpha.py").write_text("alpha 2\n")
    (root / "run.log").write_text("named, and ignored\n")
    before = _index_and_head(root)
    with pytest.raises(OperationFailed, match="git add refused the paths"):
        scoped_commit(cwd=root, message="chore: log", paths=["src/alpha.py", "run.log"])
    assert _index_and_head(root) == before


def test_a_file_rewritten_with_the_same_bytes_is_no_change_and_nothing_is_staged(root, monkeypatch):
    path = root / "src" / "alpha.py"
    path.write_text("alpha\n")
    later = time.time() + 5
    os.utime(path, (later, later))  # the index's timestamps no longer match
    before = _index_and_head(root)
    calls = _spy(monkeypatch)
    with pytest.raises(OperationFailed, match="nothing to commit"):
        scoped_commit(cwd=root, message="fix: none", paths=["src/alpha.py"])
    assert [c[0] for c in calls] == ["status"]
    assert _index_and_head(root) == before


def test_changed_in_index_and_tree_goes_back_to_staging_and_asking(root, monkeypatch):
    path = root / "src" / "alpha.py"
    path.write_text("alpha staged\n")
    git(root, "add", "src/alpha.py")
    path.write_text("alpha in the tree\n")  # MM: staged and worktree versions differ
    calls = _spy(monkeypatch)
    out = scoped_commit(cwd=root, message="fix: a", paths=["src/alpha.py"])
    assert [c[0] for c in calls] == ["status", "add", "diff-index", "commit"]
    assert out["files"] == ["src/alpha.py"]
    assert git(root, "show", "HEAD:src/alpha.py") == "alpha in the tree\n"


def test_a_staged_change_undone_in_the_tree_is_no_change(root):
    path = root / "src" / "alpha.py"
    path.write_text("alpha staged\n")
    git(root, "add", "src/alpha.py")
    path.write_text("alpha\n")  # back to HEAD's content: the two changes cancel out
    head = git(root, "rev-parse", "HEAD")
    with pytest.raises(OperationFailed, match="nothing to commit"):
        scoped_commit(cwd=root, message="fix: none", paths=["src/alpha.py"])
    assert git(root, "rev-parse", "HEAD") == head


class _Said:
    def __init__(self, stdout: str, returncode: int = 0):
        self.stdout, self.returncode, self.stderr = stdout, returncode, ""

    def result(self):
        return self


@pytest.mark.parametrize("records", [
    ["2 R. N... 100644 100644 100644 aa bb R100 new.py", "old.py"],   # a rename record
    ["u UU N... 100644 100644 100644 100644 aa bb cc a.py"],           # unmerged
    ["1 MM N... 100644 100644 100644 aa bb a.py"],                     # changed in index and tree
    ["1 .M SC.. 160000 160000 160000 aa bb sub"],                      # a submodule
    ["1 .M N... 100644 100644 100644 aa bb a.py", "? a.py"],           # one path listed twice
], ids=["rename", "unmerged", "index-and-tree", "submodule", "twice"])
def test_states_status_does_not_settle_return_none(records):
    assert path_status.read(_Said("\0".join(records) + "\0"), ["a.py"]) is None


def test_simple_states_and_ignored_files():
    said = _Said("\0".join(["1 .M N... 100644 100644 100644 aa aa b.py", "1 D. N... 100644 000000 000000 aa 00 c.py",
                            "? d/new.py", "! d/skip.log", "! named.log"]) + "\0")
    assert path_status.read(said, ["b.py", "c.py", "d", "named.log"]) == (
        ["b.py", "c.py", "d/new.py", "named.log"], ["d/new.py", "named.log"])
    assert path_status.read(_Said("", returncode=128), ["x"]) is None


def test_with_a_hook_no_change_is_refused_before_the_hook_and_a_change_is_git_s_answer(root):
    hooks = root / ".git" / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    marker = root / "hook-ran"
    hook = hooks / "pre-commit"
    hook.write_text(f"#!/bin/sh\necho ran >> '{marker}'\necho more >> src/beta.py\ngit add src/beta.py\n")
    hook.chmod(0o755)
    with pytest.raises(OperationFailed, match="nothing to commit"):
        scoped_commit(cwd=root, message="fix: none", paths=["src/alpha.py"])
    assert not marker.exists()  # refused before git commit, so before any hook
    (root / "src" / "alpha.py").write_text("alpha 2\n")
    out = scoped_commit(cwd=root, message="fix: a", paths=["src/alpha.py"])
    assert marker.exists()
    # the hook staged beta.py, and it went in: the files are git's answer (diff-tree), not the status list
    assert (out["hash"], out["files"]) == _diff_tree(root) and out["files"] == ["src/alpha.py", "src/beta.py"]
