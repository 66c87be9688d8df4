"""Install behaviour for a released package: version comparison (downgrade refused, update
available), a portable local install (no machine paths, private files git-ignored, a copy or
move detected), and the PATH warning at the end of `msd install`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.errors import OperationFailed
from msd_core.install import installer
from msd_core.install.health import status
from msd_core.install.installer import install
from msd_core.install.runner_path import check
from msd_core.install.source import ContentSource
from msd_core.install.versions import compare
from msd_core.ownership.record import IGNORE_REL, ORIGIN_REL
from msd_core.paths import resolve_target
from tests.kit.installkit import copy_fixture


@pytest.fixture
def content(tmp_path) -> ContentSource:
    return ContentSource.from_dir(copy_fixture(tmp_path / "content"))


def local(proj: Path):
    proj.mkdir(parents=True, exist_ok=True)
    return resolve_target("local", project_dir=proj)


def local_status(proj: Path) -> dict:
    return next(i for i in status(cwd=proj).data["installs"] if i["scope"] == "local")


@pytest.mark.parametrize("installed, package, verdict", [
    ("0.1.0", "0.1.0", "same"), ("0.1.0", "0.2.0", "older"), ("0.10.0", "0.9.0", "newer"),
    ("1.0.0rc1", "1.0.0", "older"), ("1.0.0", "1.0.0.post1", "older"), ("weird", "0.1.0", "unknown"),
])
def test_versions_compare_as_pep440_not_text(installed, package, verdict):
    assert compare(installed, package) == verdict


def test_downgrade_is_refused_without_force_and_nothing_is_written(tmp_path, content, monkeypatch):
    t = local(tmp_path / "proj")
    monkeypatch.setattr(installer, "__version__", "9.0.0")
    install(t, source=content)
    before = {p: p.read_bytes() for p in t.config.rglob("*") if p.is_file()}
    monkeypatch.setattr(installer, "__version__", "1.0.0")
    for dry in (False, True):
        with pytest.raises(OperationFailed) as exc:
            install(t, source=content, dry_run=dry)
        assert exc.value.exit_code == 1
        assert "newer than this package (1.0.0); refusing to downgrade" in exc.value.message
        assert "--force" in exc.value.hint
    assert {p: p.read_bytes() for p in t.config.rglob("*") if p.is_file()} == before
    res = install(t, source=content, force=True)
    assert res.data["previous_version"] == "9.0.0" and res.data["version"] == "1.0.0"


def test_downgrade_refusal_from_the_cli_is_one_line_exit_1(tmp_path, msd):
    proj = tmp_path / "proj"
    proj.mkdir()
    assert msd(["install", "--local"], cwd=proj).returncode == 0
    mpath = proj / ".claude" / "msd-core" / "manifest.json"
    m = json.loads(mpath.read_text())
    m["version"] = "99.0.0"
    mpath.write_text(json.dumps(m))
    r = msd(["install", "--local"], cwd=proj)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "refusing to downgrade" in r.stderr, r.stderr
    s = msd(["status", "--json"], cwd=proj)
    inst = [i for i in json.loads(s.stdout)["installs"] if i["scope"] == "local"][0]
    assert inst["version_state"] == "newer" and "upgrade the package" in inst["fix"]
    assert msd(["install", "--local", "--force"], cwd=proj).returncode == 0


def test_status_reports_update_available_with_both_versions(tmp_path, content, monkeypatch):
    proj = tmp_path / "proj"
    t = local(proj)
    monkeypatch.setattr(installer, "__version__", "0.0.1")
    install(t, source=content)
    inst = local_status(proj)
    assert inst["version"] == "0.0.1" and inst["package_version"] != "0.0.1"
    assert inst["version_state"] == "older" and inst["update_available"] and not inst["up_to_date"]
    assert inst["fix"] in ("run `msd install --local` to update",
                           f"run `msd install --local --config-dir {t.config}` to update")


def test_private_files_are_git_ignored_and_committed_content_has_no_machine_path(tmp_path, content):
    if not shutil.which("git"):
        pytest.skip("git not installed")
    proj = tmp_path / "proj"
    t = local(proj)
    install(t, source=content)
    assert (t.config / IGNORE_REL).read_bytes().splitlines()[-1] == b"*"
    assert json.loads((t.config / ORIGIN_REL).read_text())["config"] == str(t.config)
    git = ["git", "-C", str(proj), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    tracked = subprocess.run([*git, "ls-files"], check=True, capture_output=True, text=True).stdout.split()
    assert ".claude/msd-core/manifest.json" in tracked and ".claude/settings.json" in tracked
    assert not [p for p in tracked if "/.msd/" in p], tracked
    for rel in tracked:
        assert str(tmp_path).encode() not in (proj / rel).read_bytes(), rel


def test_a_copied_or_cloned_install_is_detected_and_adopted(tmp_path, content):
    proj = tmp_path / "proj"
    install(local(proj), source=content)
    assert "moved" not in local_status(proj)
    moved = tmp_path / "elsewhere" / "proj"
    shutil.copytree(proj, moved)
    inst = local_status(moved)
    assert inst["moved"] == f"moved or copied here from {proj / '.claude'}"
    assert "msd install --local" in inst["fix"] and not inst["modified"] and not inst["missing"]
    clone = tmp_path / "clone"
    shutil.copytree(proj, clone, ignore=shutil.ignore_patterns(".msd"))  # what git carries
    inst = local_status(clone)
    assert inst["moved"].startswith("copied here (a clone")
    files_before = {p: p.read_bytes() for p in (clone / ".claude").rglob("*") if p.is_file()}
    res = install(local(clone), source=content)
    assert set(res.data["counts"]) and res.data["counts"]["update"] == 0 and res.data["counts"]["create"] == 0
    for p, data in files_before.items():
        assert p.read_bytes() == data, p  # adopting rewrites no content file
    assert "moved" not in local_status(clone)


def test_a_moved_global_install_with_absolute_paths_is_detected(tmp_path, content):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    shutil.copytree(tmp_path / "cfg", tmp_path / "cfg2")
    inst = status(cwd=tmp_path, config_dir=tmp_path / "cfg2").data["installs"][0]
    assert inst["moved"].startswith(f"moved or copied here from {tmp_path / 'cfg'}")
    assert inst["fix"] == "run `msd install --global` to rewrite the content for this folder"
    install(resolve_target("global", tmp_path / "cfg2"), source=content)
    assert "moved" not in status(cwd=tmp_path, config_dir=tmp_path / "cfg2").data["installs"][0]


def test_global_install_keeps_absolute_target(tmp_path, content):
    t = resolve_target("global", tmp_path / "cfg")
    install(t, source=content)
    m = json.loads((t.config / "msd-core" / "manifest.json").read_text())
    assert m["target"] == str(t.config)


# --- PATH -----------------------------------------------------------------------------

def test_path_check_finds_msd_run_only_on_the_given_path(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "msd_run"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    assert check(str(bindir))["path"] == str(exe)
    miss = check(str(tmp_path / "empty"))
    assert miss["on_path"] is False and miss["fix"]


def test_install_ends_with_a_prominent_path_warning_and_the_exact_fix(tmp_path, msd):
    proj = tmp_path / "proj"
    proj.mkdir()
    bindir = Path(sys.executable).parent
    if not (bindir / "msd_run").exists():
        pytest.skip("tests run from an environment without the msd_run script")
    (proj / ".claude").mkdir()
    (proj / ".claude" / "settings.local.json").write_text("{broken")  # so no SessionStart hook can be added
    r = msd(["install", "--local"], cwd=proj, env={"PATH": "/usr/bin:/bin", "SHELL": "/bin/bash", "COLUMNS": "200"})
    assert r.returncode == 0, r.stderr
    tail = r.stdout[r.stdout.index("settings.json"):]
    assert "WARNING" in tail and "msd_run is not on your PATH" in tail
    assert f"""echo 'export PATH="{bindir}:$PATH"' >> ~/.bashrc""" in tail
    # with the hook (host_hooks.py) Claude Code reaches msd_run: one plain line, no warning
    (proj / ".claude" / "settings.local.json").unlink()
    h = msd(["install", "--local"], cwd=proj, env={"PATH": "/usr/bin:/bin", "SHELL": "/bin/bash", "COLUMNS": "200"})
    assert "WARNING" not in h.stdout and "Claude Code gets it from the SessionStart hook" in h.stdout
    assert f"settings.local.json: msd's hooks added (SessionStart puts {bindir} on Claude Code's PATH" in h.stdout
    s = msd(["status", "--json"], cwd=proj, env={"PATH": "/usr/bin:/bin"})
    assert json.loads(s.stdout)["msd_run"]["on_path"] is False
    # the fix works: with the folder on PATH, no warning
    ok = msd(["install", "--local"], cwd=proj, env={"PATH": f"{bindir}:/usr/bin:/bin"})
    assert "WARNING" not in ok.stdout and "not on your PATH" not in ok.stdout
    assert f"msd_run: {bindir / 'msd_run'}" in ok.stdout
    j = msd(["install", "--local", "--json"], cwd=proj, env={"PATH": "/usr/bin:/bin"})
    assert json.loads(j.stdout)["msd_run"]["on_path"] is False
