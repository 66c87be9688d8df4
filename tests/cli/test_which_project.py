"""Every entry acts on the project the one rule names (docs/CONTRACTS.md, "Which project"): a
fresh git repository under a folder that holds `.planning/` is its own project for `msd init`,
`msd_run next` and `msd install --local`, and the merge-driver line says why none registered."""

from __future__ import annotations

import json

import pytest

from msd_core.install.installer import install
from msd_core.install.source import ContentSource
from msd_core.paths import resolve_target
from tests.kit.gitkit import new_repo
from tests.kit.installkit import FIXTURE, copy_fixture


@pytest.fixture
def nested(tmp_path):
    """(parent project with its own settings, a fresh repository inside it with a subfolder)."""
    parent = tmp_path / "parent"
    (parent / ".planning").mkdir(parents=True)
    (parent / ".planning" / "config.json").write_text('{"mode": "yolo", "granularity": "fine"}\n')
    (parent / ".planning" / "PROJECT.md").write_text("# The parent\n")
    child = new_repo(parent / "child")
    (child / "src").mkdir()
    return parent, child


def test_init_in_a_fresh_repository_makes_its_own_project_with_its_own_defaults(msd, nested):
    parent, child = nested
    before = (parent / ".planning" / "config.json").read_bytes()
    r = msd(["init", "new-project", "--defaults", "--json"], cwd=child / "src")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["path"] == str(child / ".planning" / "config.json")  # the work tree's top, not src/ nor the parent
    assert out["settings"]["mode"] == "interactive" and out["settings"]["granularity"] == "standard"
    assert (parent / ".planning" / "config.json").read_bytes() == before


def test_init_inside_an_existing_project_still_writes_that_project(msd, nested):
    parent, _child = nested
    (parent / "docs").mkdir()
    r = msd(["init", "new-project", "--defaults", "--json"], cwd=parent / "docs")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["settings"]["mode"] == "yolo"  # the project's own value is the default
    assert not (parent / "docs" / ".planning").exists()


def test_next_in_a_fresh_repository_routes_to_a_new_project_not_the_parent(msd_run, nested):
    parent, child = nested
    r = msd_run(["next"], cwd=child / "src")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["route"] == "new-project"
    assert out["reason"] == f"no .planning/ folder at or above {child / 'src'}" and "project_root" not in out


def test_local_install_from_a_subfolder_acts_on_the_work_tree_top(msd, tmp_path):
    top = new_repo(tmp_path / "proj")
    (top / "src" / "pkg").mkdir(parents=True)
    r = msd(["install", "--local", "--json", "--content-dir", str(FIXTURE)], cwd=top / "src" / "pkg")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["target"] == str(top / ".claude")
    assert (top / ".claude" / "msd-core").is_dir() and not (top / "src" / "pkg" / ".claude").exists()
    assert f"--local acts on the top of this git work tree, {top}" in r.stderr
    again = msd(["install", "--local", "--json", "--content-dir", str(FIXTURE)], cwd=top)
    assert again.returncode == 0 and "note:" not in again.stderr


def test_merge_drivers_line_names_the_missing_project_at_a_work_tree_top(tmp_path):
    top = new_repo(tmp_path / "repo")
    content = ContentSource.from_dir(copy_fixture(tmp_path / "content"))
    res = install(resolve_target("global", tmp_path / "cfg"), source=content, cwd=top)
    entry = res.data["merge_drivers"]
    assert entry["action"] == f"none: no .planning/ project at or above {top}"
    assert "/msd-new-project" in entry["hint"] and "not the top of a git work tree" not in entry["action"]
