"""Issue 45: a local install's record of the line it added to git's `info/exclude` names that file
relative to the project root, so the committed manifest is the same in every clone (an absolute
path made each clone's `msd install --local` rewrite it); an older record's absolute path is
still given back on uninstall, and named relative again on the next install."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from msd_core.install.installer import install
from msd_core.install.uninstaller import uninstall
from msd_core.paths import resolve_target

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")

LINE = b"/.claude/settings.local.json\n"


def _git(proj, *args):
    return subprocess.run(["git", "-C", str(proj), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                          capture_output=True, text=True).stdout


def _record(proj) -> dict:
    data = json.loads((proj / ".claude" / "msd-core" / "manifest.json").read_text())
    return data["hooks"]["git_exclude"]


def test_the_record_names_the_exclude_file_relative_to_the_project(tmp_path, runner, fixture_content):
    proj = tmp_path / "a"
    proj.mkdir()
    _git(proj, "init", "-q")
    install(resolve_target("local", project_dir=proj), source=fixture_content)
    assert _record(proj)["path"] == ".git/info/exclude"
    assert str(tmp_path) not in (proj / ".claude" / "msd-core" / "manifest.json").read_text()


def test_a_second_clones_local_install_leaves_the_committed_tree_clean(tmp_path, runner, fixture_content):
    a = tmp_path / "a"
    a.mkdir()
    _git(a, "init", "-q")
    install(resolve_target("local", project_dir=a), source=fixture_content)
    _git(a, "add", "-A")
    _git(a, "commit", "-qm", "msd installed locally")
    b = tmp_path / "b"
    subprocess.run(["git", "clone", "-q", str(a), str(b)], check=True, capture_output=True)
    t = resolve_target("local", project_dir=b)
    install(t, source=fixture_content)
    assert _git(b, "status", "--porcelain") == ""
    assert LINE in (b / ".git" / "info" / "exclude").read_bytes()
    uninstall(t)
    assert LINE not in (b / ".git" / "info" / "exclude").read_bytes()


def _with_absolute_record(proj) -> None:
    path = proj / ".claude" / "msd-core" / "manifest.json"
    data = json.loads(path.read_text())
    data["hooks"]["git_exclude"]["path"] = str(proj / ".git" / "info" / "exclude")
    path.write_text(json.dumps(data))


def test_an_older_absolute_record_is_still_given_back_on_uninstall(tmp_path, runner, fixture_content):
    proj = tmp_path / "a"
    proj.mkdir()
    _git(proj, "init", "-q")
    before = (proj / ".git" / "info" / "exclude").read_bytes()
    t = resolve_target("local", project_dir=proj)
    install(t, source=fixture_content)
    _with_absolute_record(proj)
    uninstall(t)
    assert (proj / ".git" / "info" / "exclude").read_bytes() == before


def test_reinstall_names_an_older_absolute_record_relative_again(tmp_path, runner, fixture_content):
    proj = tmp_path / "a"
    proj.mkdir()
    _git(proj, "init", "-q")
    t = resolve_target("local", project_dir=proj)
    install(t, source=fixture_content)
    _with_absolute_record(proj)
    install(t, source=fixture_content)
    assert _record(proj)["path"] == ".git/info/exclude"
    assert (proj / ".git" / "info" / "exclude").read_bytes().count(LINE) == 1
