"""`msd install --local --pre-push` adds a git pre-push hook running `msd_run drift --check`; uninstall
takes it out byte-exactly (install/pre_push.py, issue 49): the hooks folder identical afterwards
(bytes and modes), a user's own hook chained and given back, a push stopped by unresolved drift and
let through after `msd_run drift accept`, and the refusals that write nothing."""

from __future__ import annotations

import os
import stat
import subprocess

import pytest

from msd_core.errors import UsageError
from msd_core.install import pre_push
from msd_core.install.installer import install
from msd_core.install.source import ContentSource
from msd_core.install.uninstaller import uninstall
from msd_core.ownership.manifest import load_manifest
from msd_core.paths import resolve_target
from tests.kit.gitkit import git, new_repo

USER_HOOK = (b"#!/bin/sh\n# mine\nwhile read local_ref local_sha remote_ref remote_sha; do\n"
             b"  echo \"$remote_ref\" >> \"$(dirname \"$0\")/../pushed-refs\"\ndone\nexit 0\n")


@pytest.fixture
def content(fixture_content) -> ContentSource:
    return fixture_content


@pytest.fixture
def project(tmp_path):
    root = new_repo(tmp_path / "proj")
    (root / ".planning").mkdir()
    (root / ".planning/ROADMAP.md").write_text("# Roadmap\n")
    (root / "src.py").write_text("x = 1\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


def hooks(root) -> dict:
    """Every file of the hooks folder: (bytes, mode)."""
    folder = root / ".git" / "hooks"
    return {p.name: (p.read_bytes(), stat.S_IMODE(p.lstat().st_mode)) for p in sorted(folder.iterdir())}


def test_install_adds_the_hook_and_uninstall_leaves_the_folder_as_it_was(project, content, runner):
    before = hooks(project)
    target = resolve_target("local", project / ".claude")
    res = install(target, source=content, pre_push=True)
    hook = project / ".git/hooks/pre-push"
    assert res.data["pre_push"] == {"path": str(hook), "action": "added"}
    body = hook.read_bytes()
    assert body.startswith(b"#!/bin/sh\n" + pre_push.MARK.encode()) and b"drift --check --text" in body
    assert b"'" in body and str(runner).replace("'", "'\"'\"'").encode() in body  # the runner's path, quoted for sh
    assert stat.S_IMODE(hook.stat().st_mode) == 0o755
    rec = load_manifest(target.config).extra["pre_push"]
    assert rec == {"hook": ".git/hooks/pre-push", "written": pre_push._sha(body)}
    # an update without the flag keeps it; it changes nothing
    again = install(target, source=content)
    assert again.data["pre_push"]["action"] == "present" and hook.read_bytes() == body
    assert uninstall(target).data["pre_push"]["action"] == "removed"
    assert hooks(project) == before


def test_a_users_own_hook_is_chained_and_given_back_byte_for_byte(project, content, runner):
    hook = project / ".git/hooks/pre-push"
    hook.write_bytes(USER_HOOK)
    hook.chmod(0o750)
    before = hooks(project)
    target = resolve_target("local", project / ".claude")
    res = install(target, source=content, pre_push=True)
    saved = project / ".git/hooks/pre-push.msd-user"
    assert res.data["pre_push"]["chained"] == str(saved)
    assert saved.read_bytes() == USER_HOOK and stat.S_IMODE(saved.stat().st_mode) == 0o750
    assert pre_push.MARK.encode() in hook.read_bytes()
    # the chained hook still runs, with git's input, on a real push
    remote = project.parent / "remote.git"
    git(project.parent, "init", "-q", "--bare", str(remote))
    git(project, "remote", "add", "origin", str(remote))
    git(project, "push", "-q", "origin", "main")
    assert (project / ".git/pushed-refs").read_text() == "refs/heads/main\n"
    res = uninstall(target)
    assert res.data["pre_push"]["action"] == "restored your own hook"
    assert hooks(project) == before


def test_a_push_is_stopped_by_unresolved_drift_and_let_through_after_accept(project, content, runner):
    remote = project.parent / "remote.git"
    git(project.parent, "init", "-q", "--bare", str(remote))
    git(project, "remote", "add", "origin", str(remote))
    (project / "src.py").write_text("x = 2\n")
    git(project, "commit", "-qam", "feat(01-01): x\n\nMsd-Plan: 01-core/01-01")
    (project / "src.py").write_text("x = 3\n")
    git(project, "commit", "-qam", "fix: by hand")
    fix = git(project, "rev-parse", "HEAD").strip()
    install(resolve_target("local", project / ".claude"), source=content, pre_push=True)
    push = subprocess.run(["git", "push", "origin", "main"], cwd=project, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert push.returncode != 0 and "push stopped: drift is unresolved" in push.stderr
    assert "outside-commit" in push.stdout + push.stderr and fix[:12] in push.stdout + push.stderr
    assert git(remote, "branch", "--list") == ""  # nothing reached the remote
    accept = subprocess.run([str(runner), "drift", "accept", fix, "--reason", "reviewed"], cwd=project,
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert accept.returncode == 0, accept.stderr
    git(project, "add", ".planning/drift-accepted.md")
    git(project, "commit", "-qm", "docs(drift): accept")
    push = subprocess.run(["git", "push", "origin", "main"], cwd=project, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert push.returncode == 0, push.stderr
    assert git(remote, "rev-parse", "main").strip() == git(project, "rev-parse", "HEAD").strip()


def _refused(target, content, project, *, scope_files=True, **kw) -> str:
    before = hooks(project) if (project / ".git/hooks").is_dir() else None
    with pytest.raises(UsageError) as err:
        install(target, source=content, pre_push=True, **kw)
    assert not (project / ".claude").exists() or not scope_files
    if before is not None:
        assert hooks(project) == before
    assert "\n" not in err.value.message and err.value.hint and "msd install" in (err.value.hint + err.value.message)
    return err.value.message


def test_refusals_write_nothing(project, content, runner, tmp_path):
    target = resolve_target("local", project / ".claude")
    git(project, "config", "core.hooksPath", ".githooks")
    assert "core.hooksPath" in _refused(target, content, project)
    git(project, "config", "--unset", "core.hooksPath")
    hook = project / ".git/hooks/pre-push"
    hook.write_bytes(USER_HOOK)
    hook.chmod(0o644)
    assert "not executable" in _refused(target, content, project)
    hook.chmod(0o755)
    (project / ".git/hooks/pre-push.msd-user").write_bytes(b"#!/bin/sh\nexit 0\n")
    assert "pre-push.msd-user exists" in _refused(target, content, project)
    (project / ".git/hooks/pre-push.msd-user").unlink()
    hook.unlink()
    (tmp_path / "elsewhere").write_bytes(USER_HOOK)
    hook.symlink_to(tmp_path / "elsewhere")
    assert "not a regular file" in _refused(target, content, project)
    hook.unlink()
    glob = resolve_target("global", tmp_path / "home-claude")
    with pytest.raises(UsageError, match="a pre-push hook belongs to one repository"):
        install(glob, source=content, pre_push=True, cwd=project)
    assert not (tmp_path / "home-claude").exists()
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(UsageError, match="not the top of a git work tree"):
        install(resolve_target("local", plain / ".claude"), source=content, pre_push=True)
    assert os.listdir(plain) == []


def test_a_hook_edited_after_the_install_is_left_by_uninstall(project, content, runner):
    target = resolve_target("local", project / ".claude")
    install(target, source=content, pre_push=True)
    hook = project / ".git/hooks/pre-push"
    hook.write_bytes(hook.read_bytes() + b"echo mine too\n")
    edited = hook.read_bytes()
    res = uninstall(target)
    assert res.data["pre_push"]["action"] == "kept: edited" and hook.read_bytes() == edited
    assert any("edited since msd wrote it" in w for w in res.warnings)


def test_the_cli_flag_is_documented(msd):
    r = msd(["install", "--help"])
    assert r.returncode == 0 and "--pre-push" in r.stdout
