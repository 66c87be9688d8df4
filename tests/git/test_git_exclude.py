"""msd's working files stay out of `git status` (issue 28, seam 10): the flow state is named in
the clone's `.git/info/exclude`, once, whatever content ran; the project's .gitignore is untouched."""

from __future__ import annotations

import os

from msd_core.git.exclude import ensure_excluded
from msd_core.planning import flow_state
from tests.kit.gitkit import git, new_repo

LINE = "/.planning/state.json"


def _write_state(root):
    flow_state.write_state(flow_state.default_state_path(root), {"workflows": {}}, root)


def test_writing_the_flow_state_keeps_it_out_of_git_status(tmp_path):
    root = new_repo(tmp_path / "p")
    (root / ".planning").mkdir()
    _write_state(root)
    assert (root / ".planning/state.json").is_file()
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    exclude = (root / ".git/info/exclude").read_text()
    assert exclude.splitlines().count(LINE) == 1
    _write_state(root)  # a second write adds nothing
    assert (root / ".git/info/exclude").read_text() == exclude
    assert not (root / ".gitignore").exists()


def test_without_the_exclude_line_the_flow_state_would_show(tmp_path):
    """The guard's fixture: the same file, written without ensure_excluded, is untracked noise."""
    root = new_repo(tmp_path / "p")
    (root / ".planning").mkdir()
    (root / ".planning/state.json").write_text("{}\n")
    assert git(root, "status", "--porcelain", "--untracked-files=all").split() == ["??", ".planning/state.json"]


def test_a_project_below_the_repository_top_and_a_linked_worktree(tmp_path):
    repo = new_repo(tmp_path / "repo")
    project = repo / "apps" / "web"
    (project / ".planning").mkdir(parents=True)
    assert ensure_excluded(project, ".planning/state.json") is True
    assert "/apps/web/.planning/state.json" in (repo / ".git/info/exclude").read_text().splitlines()
    (repo / "README.md").write_text("r\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "init")
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(wt))
    (wt / ".planning").mkdir()
    assert ensure_excluded(wt, ".planning/state.json") is True  # the worktree's line goes to the shared exclude file
    assert LINE in (repo / ".git/info/exclude").read_text().splitlines()


def test_no_repository_or_a_symlinked_exclude_file_changes_nothing(tmp_path):
    plain = tmp_path / "plain"
    (plain / ".planning").mkdir(parents=True)
    assert ensure_excluded(plain, ".planning/state.json") is False
    root = new_repo(tmp_path / "p")
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("keep\n")
    exclude = root / ".git/info/exclude"
    exclude.unlink(missing_ok=True)
    os.symlink(elsewhere, exclude)
    assert ensure_excluded(root, ".planning/state.json") is False
    assert elsewhere.read_text() == "keep\n"
