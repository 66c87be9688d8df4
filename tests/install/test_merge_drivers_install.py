"""`msd install` registers the git merge drivers in the project's repository and `msd uninstall`
removes exactly them (install/merge_drivers.py, git/merge_config.py): .git/config and
.git/info/attributes byte-identical afterwards, whatever they held; the record in the manifest;
a re-install that changes nothing; which repository a global install picks, and where it picks
none."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from msd_core.git import merge_config
from msd_core.install import merge_drivers, runner_path
from msd_core.install.installer import install
from msd_core.install.source import ContentSource
from msd_core.install.uninstaller import uninstall
from msd_core.ownership.manifest import load_manifest
from msd_core.paths import resolve_target
from tests.kit.gitkit import git, new_repo
from tests.kit.installkit import copy_fixture

USER_CONFIG_TAIL = "[alias]\n\tst = status # mine\n; a comment of mine\n"


@pytest.fixture
def content(tmp_path) -> ContentSource:
    return ContentSource.from_dir(copy_fixture(tmp_path / "content"))


@pytest.fixture
def project(tmp_path):
    root = new_repo(tmp_path / "proj")
    (root / ".planning").mkdir()
    (root / ".planning/STATE.md").write_text("# S\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


def files(root):
    return {p: (root / ".git" / p).read_bytes() if (root / ".git" / p).exists() else None
            for p in ("config", "info/attributes")}


def test_local_install_registers_and_uninstall_restores_every_byte(project, content):
    git_config = project / ".git/config"
    git_config.write_bytes(git_config.read_bytes() + USER_CONFIG_TAIL.encode())
    (project / ".git/info/attributes").write_bytes(b"*.png binary")  # a user's line, no line end
    before = files(project)
    target = resolve_target("local", project / ".claude")
    res = install(target, source=content)
    assert res.data["merge_drivers"] == {"repository": str(project), "action": "added"}
    config = git(project, "config", "--get-regexp", r"^merge\.msd-")
    assert "merge.msd-state.driver" in config and str(runner_path.own_runner()) in config
    attrs = (project / ".git/info/attributes").read_text()
    assert attrs.startswith("*.png binary\n# msd-core: merge drivers")
    assert git(project, "check-attr", "merge", "--", ".planning/STATE.md").strip().endswith("merge: msd-state")
    record = load_manifest(target.config).extra["merge_drivers"]
    assert record == [{"git_dir": ".git", "config": {"added_line_end": False},
                       "attributes": {"added_line_end": True}}]  # relative: the local manifest stays portable
    again = install(target, source=content)
    assert again.data["merge_drivers"]["action"] == "present" and not again.data["changed"]
    out = uninstall(target)
    assert out.data["merge_drivers"] == [{"git_dir": str(project / ".git"), "action": "removed"}]
    assert files(project) == before


def test_files_msd_created_are_removed_again(project, content, tmp_path):
    import shutil

    shutil.rmtree(project / ".git/info")
    before = files(project)
    target = resolve_target("global", tmp_path / "cfg")  # (a local install's PATH hook writes info/exclude)
    install(target, source=content, cwd=project)
    assert (project / ".git/info/attributes").exists()
    uninstall(target)
    assert files(project) == before and not (project / ".git/info").exists()


def test_a_moved_msd_run_is_updated_in_place(project, content, tmp_path, monkeypatch):
    target = resolve_target("local", project / ".claude")
    install(target, source=content)
    moved = tmp_path / "new venv" / "bin" / "msd_run"
    moved.parent.mkdir(parents=True)
    moved.write_text("#!/bin/sh\n")
    moved.chmod(0o755)
    monkeypatch.setattr(runner_path, "own_runner", lambda: moved)
    res = install(target, source=content)
    assert res.data["merge_drivers"]["action"] == "updated"
    cfg = (project / ".git/config").read_text()
    assert cfg.count("# msd-core: merge drivers") == 1 and "'" + str(moved) + "'" in cfg


def test_global_install_registers_in_the_current_project_and_collects_repositories(project, content, tmp_path):
    other = new_repo(tmp_path / "other")
    (other / ".planning").mkdir()
    target = resolve_target("global", tmp_path / "home-claude")
    assert install(target, source=content).data["merge_drivers"]["action"].startswith("none")  # no cwd, no project
    install(target, source=content, cwd=project / ".planning")
    install(target, source=content, cwd=other)
    dirs = [r["git_dir"] for r in load_manifest(target.config).extra["merge_drivers"]]
    assert dirs == [str(project / ".git"), str(other / ".git")]
    out = uninstall(target)
    assert [e["action"] for e in out.data["merge_drivers"]] == ["removed", "removed"]
    assert merge_config.status(merge_config.locate(other))["registered"] is False


@pytest.mark.parametrize("case", ["not-a-repo", "sub-folder-of-a-repo", "no-merge-drivers", "dry-run"])
def test_where_nothing_is_registered(tmp_path, content, case):
    outer = new_repo(tmp_path / "outer")
    before = files(outer)
    proj = outer / "sub" if case == "sub-folder-of-a-repo" else tmp_path / "plain" if case == "not-a-repo" else outer
    (proj / ".planning").mkdir(parents=True)
    target = resolve_target("global", tmp_path / "cfg")
    res = install(target, source=content, cwd=proj, merge_drivers=case != "no-merge-drivers", dry_run=case == "dry-run")
    assert files(outer) == before
    if case != "dry-run":
        assert "merge_drivers" not in load_manifest(target.config).extra
    assert res.data["merge_drivers"]["action"] != "present"


def test_uninstall_of_a_repository_that_is_gone_says_so(project, content, tmp_path):
    target = resolve_target("global", tmp_path / "cfg")
    install(target, source=content, cwd=project)
    import shutil

    shutil.rmtree(project)
    out = uninstall(target)
    assert out.data["merge_drivers"] == [{"git_dir": str(project / ".git"), "action": "gone"}]


def test_the_cli_registers_in_the_current_project_and_says_where(project, tmp_path, monkeypatch):
    from msd_core.cli.app import app

    monkeypatch.chdir(project)
    r = CliRunner().invoke(app, ["install", "--global", "--config-dir", str(tmp_path / "cfg")])
    assert r.exit_code == 0, r.output
    assert f"git merge drivers for .planning/ files: added in {project}" in " ".join(r.output.split())
    r = CliRunner().invoke(app, ["uninstall", "--global", "--config-dir", str(tmp_path / "cfg"), "--json"])
    assert json.loads(r.output)["merge_drivers"][0]["action"] == "removed"


def test_a_config_written_concurrently_is_never_lost(project):
    """git's own lock protocol: while another writer holds config.lock, msd waits, then writes
    on top of what that writer left (here: a `git config` run during the wait)."""
    lock = project / ".git/config.lock"
    lock.write_text("")
    code = ("import sys, time; sys.path.insert(0, sys.argv[1]);"
            "from msd_core.git import merge_config as m; m.register(m.locate(sys.argv[2]), ['msd_run'])")
    proc = subprocess.Popen([sys.executable, "-c", code, str(merge_drivers.__file__).rsplit("/msd_core/", 1)[0],
                             str(project)])
    import time

    time.sleep(0.3)
    assert proc.poll() is None  # waiting on the lock
    lock.unlink()
    git(project, "config", "user.nickname", "ada")
    assert proc.wait(timeout=30) == 0
    cfg = (project / ".git/config").read_text()
    assert "nickname = ada" in cfg and '[merge "msd-state"]' in cfg


def test_a_lock_held_too_long_is_a_lock_timeout(project, monkeypatch):
    from msd_core.errors import LockTimeout

    monkeypatch.setattr(merge_config, "LOCK_WAIT", 0.2)
    (project / ".git/config.lock").write_text("")
    before = files(project)
    with pytest.raises(LockTimeout):
        merge_config.register(merge_config.locate(project), ["msd_run"])
    assert files(project)["config"] == before["config"]


def test_the_cli_can_be_told_not_to_register(project, tmp_path, monkeypatch):
    from msd_core.cli.app import app

    monkeypatch.chdir(project)
    before = files(project)
    r = CliRunner().invoke(app, ["install", "--global", "--config-dir", str(tmp_path / "cfg"), "--no-merge-drivers"])
    assert r.exit_code == 0, r.output
    assert "git merge drivers: skipped (--no-merge-drivers)" in r.output and files(project) == before


def test_an_up_to_date_install_run_in_a_new_project_still_registers(project, tmp_path):
    """The no-op fast path (cli/fast_install.py) answers only when nothing is to be done: an
    install that is up to date, run inside a project whose repository lacks the drivers, writes them."""
    cfg = tmp_path / "cfg"
    args = [sys.executable, "-m", "msd_core", "install", "--global", "--config-dir", str(cfg), "--json"]
    first = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    again = subprocess.run(args, cwd=project, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["merge_drivers"] == {"repository": str(project), "action": "added"}
    assert merge_config.status(merge_config.locate(project))["registered"]
    third = subprocess.run([*args, "--no-merge-drivers"], cwd=project, capture_output=True, text=True, timeout=300)
    assert third.returncode == 0 and json.loads(third.stdout)["merge_drivers"]["action"] == "skipped (--no-merge-drivers)"
    assert merge_config.status(merge_config.locate(project))["registered"]  # skipping writes nothing, removes nothing
