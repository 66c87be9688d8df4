"""The one rule for which project a command acts on (docs/CONTRACTS.md, "Which project"),
proven against stray `.planning/` folders planted where a machine may have them: above a fresh
git repository, above and in the home folder, in the system temp folder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from msd_core import paths
from msd_core.hooks import guard_settings
from msd_core.lean import project_rule


def plant(folder: Path) -> Path:
    (folder / ".planning").mkdir(parents=True)
    (folder / ".planning" / "config.json").write_text('{"mode": "yolo"}\n')
    return folder


def repo(folder: Path, *, as_file: bool = False) -> Path:
    """A git work tree's top without running git: `.git` a folder, or the file a linked worktree
    or a submodule has (the rule looks at nothing more)."""
    folder.mkdir(parents=True, exist_ok=True)
    if as_file:
        (folder / ".git").write_text("gitdir: /elsewhere/.git/worktrees/x\n")
    else:
        (folder / ".git").mkdir()
    return folder


def both(start) -> Path | None:
    """The rule's answer, checked to be the same on the lean path the guard takes."""
    found = paths.find_project_root(start)
    assert guard_settings.project_root(str(start)) == (str(found) if found else None)
    return found


@pytest.fixture
def temp_dir(tmp_path, monkeypatch) -> Path:
    """A system temp folder of this test's own ($TMPDIR), so planting in it touches no one else."""
    folder = tmp_path / "systemp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    return folder


def test_a_parent_project_above_a_fresh_repository_is_not_its_project(tmp_path):
    parent = plant(tmp_path / "parent")
    child = repo(parent / "child")
    (child / "src" / "deep").mkdir(parents=True)
    assert both(child / "src" / "deep") is None
    assert paths.work_tree_top(child / "src" / "deep") == child
    assert both(parent) == parent


def test_a_worktree_or_submodule_top_ends_the_search_too(tmp_path):
    parent = plant(repo(tmp_path / "outer"))
    sub = repo(parent / "vendor" / "lib", as_file=True)
    (sub / "pkg").mkdir()
    assert both(sub / "pkg") is None
    assert paths.work_tree_top(sub / "pkg") == sub
    assert both(parent / "vendor") == parent


def test_the_nearest_project_inside_the_work_tree_wins(tmp_path):
    top = plant(repo(tmp_path / "mono"))
    inner = plant(top / "apps" / "web")
    (inner / "src").mkdir()
    (top / "apps" / "cli").mkdir()
    assert both(inner / "src") == inner
    assert both(top / "apps" / "cli") == top


def test_a_plant_above_the_home_folder_is_never_taken(tmp_path, monkeypatch):
    plant(tmp_path)
    home = tmp_path / "home"
    (home / "notes" / "today").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    assert both(home / "notes" / "today") is None
    assert both(home) is None


def test_the_home_folder_itself_is_the_last_folder_taken_outside_a_work_tree(tmp_path, monkeypatch):
    home = plant(tmp_path / "home")
    monkeypatch.setenv("HOME", str(home))
    (home / "notes").mkdir()
    assert both(home / "notes") == home
    fresh = repo(home / "code" / "app")  # a repository under home never reaches the plant in it
    assert both(fresh) is None


def test_a_plant_in_the_temp_folder_is_never_taken(temp_dir):
    plant(temp_dir)
    (temp_dir / "pytest-of-me" / "test_x0" / "proj").mkdir(parents=True)
    assert both(temp_dir / "pytest-of-me" / "test_x0" / "proj") is None
    assert both(temp_dir) is None
    assert paths.work_tree_top(temp_dir / "pytest-of-me") is None
    own = plant(temp_dir / "pytest-of-me" / "test_y0")  # a project made in the temp folder still is one
    (own / "sub").mkdir()
    assert both(own / "sub") == own


def test_the_temp_folder_named_by_a_symlink_is_the_same_folder(tmp_path, monkeypatch):
    real = plant(tmp_path / "real-tmp")
    link = tmp_path / "tmp-link"
    link.symlink_to(real, target_is_directory=True)
    monkeypatch.setenv("TMPDIR", str(link))
    (real / "work").mkdir()
    assert both(real / "work") is None


def test_the_lean_temp_folders_hold_what_tempfile_answers(monkeypatch):
    tempfile.tempdir = None  # tempfile caches its answer; ask again under this environment
    try:
        st = os.stat(tempfile.gettempdir())
        assert (st.st_dev, st.st_ino) in project_rule.temp_folders()
    finally:
        tempfile.tempdir = None


def test_the_filesystem_root_is_never_taken():
    assert list(project_rule.walk_up(os.path.abspath(os.sep))) == []


def test_cwd_picks_the_starting_folder(tmp_path, monkeypatch):
    a = plant(repo(tmp_path / "a"))
    b = plant(repo(tmp_path / "b"))
    monkeypatch.chdir(a)
    assert both(None) == a
    assert paths.find_project_root(b) == b
    assert paths.local_project_dir(b / ".planning") == b
