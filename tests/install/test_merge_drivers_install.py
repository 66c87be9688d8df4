"""`msd install` registers the git merge drivers in the project's repository and `msd uninstall`
removes exactly them (install/merge_drivers.py, git/merge_config.py): .git/config and the
project's .gitattributes byte-identical afterwards, whatever they held (a block a teammate
committed stays); the record in the manifest;
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
    return {p: (root / p).read_bytes() if (root / p).exists() else None
            for p in (".git/config", ".gitattributes", ".git/info/attributes")}


def test_local_install_registers_and_uninstall_restores_every_byte(project, content):
    git_config = project / ".git/config"
    git_config.write_bytes(git_config.read_bytes() + USER_CONFIG_TAIL.encode())
    (project / ".gitattributes").write_bytes(b"*.png binary\r\n*.sh text eol=lf")  # a user's lines, CRLF, no line end
    before = files(project)
    target = resolve_target("local", project / ".claude")
    res = install(target, source=content)
    assert res.data["merge_drivers"] == {"repository": str(project), "action": "added", "commit": ".gitattributes"}
    config = git(project, "config", "--get-regexp", r"^merge\.msd-")
    assert "merge.msd-state.driver" in config and str(runner_path.own_runner()) in config
    attrs = (project / ".gitattributes").read_bytes()
    assert attrs.startswith(b"*.png binary\r\n*.sh text eol=lf\r\n# msd-core: merge drivers")  # the file's own line ends
    assert b"\r\n**/.planning/ROADMAP.md merge=msd-roadmap\r\n" in attrs and attrs.endswith(b"# msd-core: end\r\n")
    assert git(project, "check-attr", "merge", "--", ".planning/STATE.md").strip().endswith("merge: msd-state")
    assert not (project / ".git/info/attributes").exists()  # the shared file, not the clone's own
    record = load_manifest(target.config).extra["merge_drivers"]
    assert record == [{"git_dir": ".git", "top": ".", "config": {"added_line_end": False},
                       "attributes": {"added_line_end": True}}]  # relative: the local manifest stays portable
    again = install(target, source=content)
    assert again.data["merge_drivers"]["action"] == "present" and not again.data["changed"]
    out = uninstall(target)
    assert out.data["merge_drivers"] == [{"git_dir": str(project / ".git"), "action": "removed"}]
    assert files(project) == before


def test_files_msd_created_are_removed_again(project, content, tmp_path):

    before = files(project)
    assert before[".gitattributes"] is None
    target = resolve_target("global", tmp_path / "cfg")
    install(target, source=content, cwd=project)
    assert (project / ".gitattributes").read_text().startswith("# msd-core: merge drivers")
    uninstall(target)
    assert files(project) == before and not (project / ".gitattributes").exists()


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
    said = " ".join(r.output.split())
    assert f"git merge drivers for .planning/ files: added in {project}" in said
    assert "commit .gitattributes: teammates' clones then merge .planning/ files the same way" in said
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
    assert files(project) == before  # neither file written


def test_the_cli_can_be_told_not_to_register(project, tmp_path, monkeypatch):
    from msd_core.cli.app import app

    monkeypatch.chdir(project)
    before = files(project)
    r = CliRunner().invoke(app, ["install", "--global", "--config-dir", str(tmp_path / "cfg"), "--no-merge-drivers"])
    assert r.exit_code == 0, r.output
    assert "git merge drivers: skipped (--no-merge-drivers)" in r.output and files(project) == before


def test_an_up_to_date_install_run_in_a_new_project_still_registers(project, tmp_path):
    """An install that is up to date, run inside a project whose repository lacks the drivers, writes them."""
    cfg = tmp_path / "cfg"
    args = [sys.executable, "-m", "msd_core", "install", "--global", "--config-dir", str(cfg), "--json"]
    first = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    again = subprocess.run(args, cwd=project, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["merge_drivers"] == {"repository": str(project), "action": "added",
                                                         "commit": ".gitattributes"}
    assert merge_config.status(merge_config.locate(project))["registered"]
    third = subprocess.run([*args, "--no-merge-drivers"], cwd=project, capture_output=True, text=True, timeout=300)
    assert third.returncode == 0 and json.loads(third.stdout)["merge_drivers"]["action"] == "skipped (--no-merge-drivers)"
    assert merge_config.status(merge_config.locate(project))["registered"]  # skipping writes nothing, removes nothing


def test_a_block_a_teammate_committed_is_kept_by_uninstall(project, content, tmp_path):
    """Ada's install wrote .gitattributes and she committed it; Bob's clone has it. Bob's install
    adds only the commands to his config; his uninstall removes them and leaves the team's file."""
    ada = resolve_target("global", tmp_path / "ada-cfg")
    install(ada, source=content, cwd=project)
    git(project, "add", ".gitattributes")
    git(project, "commit", "-qm", "msd's merge drivers")
    bob_root = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(project), str(bob_root))
    before = files(bob_root)
    assert b"merge=msd-state" in before[".gitattributes"]
    bob = resolve_target("global", tmp_path / "bob-cfg")
    res = install(bob, source=content, cwd=bob_root)
    assert res.data["merge_drivers"] == {"repository": str(bob_root), "action": "added"}
    assert files(bob_root)[".gitattributes"] == before[".gitattributes"]
    assert load_manifest(bob.config).extra["merge_drivers"][0]["attributes"] == {"shared": True}
    assert "merge.msd-state.driver" in git(bob_root, "config", "--get-regexp", r"^merge\.msd-")
    out = uninstall(bob)
    assert out.data["merge_drivers"][0]["action"] == "removed"
    assert files(bob_root) == before  # config as cloned, .gitattributes as committed
    assert git(bob_root, "status", "--porcelain") == ""
    assert any(".gitattributes: msd's merge-driver lines kept" in w for w in out.warnings)


@pytest.mark.parametrize("kind", ["symlink", "folder", "not-utf8"])
def test_a_gitattributes_msd_cannot_edit_is_left_alone_and_named(project, content, tmp_path, kind):
    attrs = project / ".gitattributes"
    if kind == "symlink":
        (tmp_path / "elsewhere").write_text("*.png binary\n")
        attrs.symlink_to(tmp_path / "elsewhere")
    elif kind == "folder":
        attrs.mkdir()
    else:
        attrs.write_bytes(b"*.png binary # caf\xe9\n")
    before = files(project) if kind != "folder" else None
    target = resolve_target("global", tmp_path / "cfg")
    res = install(target, source=content, cwd=project)
    assert res.exit_code == 0
    entry = res.data["merge_drivers"]
    assert entry["action"] == "not registered" and ".gitattributes" in entry["hint"]
    if before is not None:
        assert files(project) == before
    if kind == "symlink":
        assert (tmp_path / "elsewhere").read_text() == "*.png binary\n"
    assert "merge_drivers" not in load_manifest(target.config).extra


def test_an_up_to_date_install_in_a_teammates_clone_registers_the_commands(project, tmp_path):
    """The fast path again: a clone whose committed .gitattributes already names msd's drivers
    but whose config has no command for them is something to do (the full install writes it)."""
    cfg = tmp_path / "cfg"
    args = [sys.executable, "-m", "msd_core", "install", "--global", "--config-dir", str(cfg), "--json"]
    assert subprocess.run(args, cwd=project, capture_output=True, text=True, timeout=300).returncode == 0
    git(project, "add", ".gitattributes")
    git(project, "commit", "-qm", "msd's merge drivers")
    mate = tmp_path / "mate"
    git(tmp_path, "clone", "-q", str(project), str(mate))
    assert merge_config.status(merge_config.locate(mate)) == {"registered": False, "config": False, "attributes": True,
                                                              "git_dir": str(mate / ".git")}
    r = subprocess.run(args, cwd=mate, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["merge_drivers"] == {"repository": str(mate), "action": "added"}
    assert merge_config.status(merge_config.locate(mate))["registered"]
    assert git(mate, "status", "--porcelain") == ""  # the tracked .gitattributes unchanged
    again = subprocess.run(args[:-1], cwd=mate, capture_output=True, text=True, timeout=300)
    said = " ".join(again.stdout.split())
    assert again.returncode == 0 and f"git merge drivers for .planning/ files: present in {mate}" in said
    assert "commit .gitattributes" not in said  # the clone's file is the committed one
