"""An install with nothing to change says so and writes nothing; every case where there is
something to do or to report is done and reported by that same run, and the run after it has
nothing left to do.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.files import txn
from msd_core.install import installer
from msd_core.install.installer import install
from msd_core.install.source import ContentSource
from msd_core.ownership import record
from msd_core.ownership.manifest import load_manifest
from msd_core.paths import resolve_target

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def target(tmp_path):
    t = resolve_target("global", tmp_path / "cfg")
    install(t)
    return t


def msd(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "msd_core", *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def up_to_date(t, **kw) -> bool:
    """Whether an install of `t` now has nothing to change (a dry run: it writes nothing)."""
    result = install(t, dry_run=True, **kw)
    return not result.data["changed"] and not any(n for v, n in result.data["counts"].items() if v != "identical")


def test_an_up_to_date_install_says_so(target):
    proc = msd("install", "--global", "--config-dir", str(target.config), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["changed"] is False and {v for v, n in data["counts"].items() if n} == {"identical"}
    text = msd("install", "--global", "--config-dir", str(target.config))
    assert text.returncode == 0 and text.stdout.startswith("Up to date: msd-core ")
    assert msd("update", "--global", f"--config-dir={target.config}", "--profile", "full").stdout == text.stdout


def test_an_up_to_date_install_changes_no_file(target):
    before = {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in target.config.rglob("*")}
    assert msd("install", "--global", "--config-dir", str(target.config)).returncode == 0
    assert {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in target.config.rglob("*")} == before


# --------------------------------------------------------------------------- never a skipped repair


def _edit(t):
    p = t.config / "msd-core" / "workflows" / "quick.md"
    p.write_text(p.read_text() + "\nmine\n")


def _delete(t):
    (t.config / "skills" / "msd-plan-phase" / "SKILL.md").unlink()


def _settings_permission_removed(t):
    s = t.config / "settings.json"
    obj = json.loads(s.read_text())
    obj["permissions"]["allow"] = []
    s.write_text(json.dumps(obj, indent=2) + "\n")


def _hook_removed(t):
    s = t.config / "settings.json"
    obj = json.loads(s.read_text())
    del obj["hooks"]
    s.write_text(json.dumps(obj, indent=2) + "\n")


def _pack_damaged(t):
    (t.config / record.PACK_REL).write_bytes(b"not a zip")


def _copy_missing(t):
    (t.config / record.COPY_REL).unlink()


def _gitignore_edited(t):
    (t.config / record.IGNORE_REL).write_text("nothing\n")


def _journal_pending(t):
    txn.txn_dir(t.config).mkdir(parents=True)


def _marker_left(t):
    (t.config / record.MARKER).write_text("[]")


def _manifest_corrupt(t):
    t.manifest.write_text("{ not json")


def _older_install(t):
    raw = json.loads(t.manifest.read_text())
    raw["version"] = "0.0.1"
    t.manifest.write_text(json.dumps(raw, indent=2) + "\n")


def _new_shipped_file(t):
    raw = json.loads(t.manifest.read_text())
    del raw["files"]["msd-core/templates/plan.md"]  # as if an older package had not shipped it
    t.manifest.write_text(json.dumps(raw, indent=2) + "\n")


def _conflict_pending(t):
    raw = json.loads(t.manifest.read_text())
    raw["conflicts"] = ["msd-core/workflows/quick.md"]
    t.manifest.write_text(json.dumps(raw, indent=2) + "\n")


CASES = {
    "an edited file": _edit,
    "a missing file": _delete,
    "settings.json without the permission": _settings_permission_removed,
    "settings.json without the PATH hook": _hook_removed,
    "a damaged pristine pack": _pack_damaged,
    "a missing manifest copy": _copy_missing,
    "an edited private .gitignore": _gitignore_edited,
    "an interrupted transaction": _journal_pending,
    "a created-folders marker": _marker_left,
    "a corrupt manifest": _manifest_corrupt,
    "an install of an older version": _older_install,
    "a file the package now ships": _new_shipped_file,
    "a pending conflict": _conflict_pending,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_case_with_something_to_do_is_done(target, case):
    assert up_to_date(target)  # the fixture: a clean install has nothing to do
    CASES[case](target)
    if case not in ("a corrupt manifest", "an interrupted transaction"):  # a dry run stops at those
        assert not up_to_date(target)
    proc = msd("install", "--global", "--config-dir", str(target.config), "--json")
    data = json.loads(proc.stdout) if proc.stdout else json.loads(proc.stderr)
    if case == "a corrupt manifest":  # the full run names the repair (exit 3)
        assert proc.returncode == 3 and "--repair" in proc.stderr
        return
    assert proc.returncode == 0, proc.stderr
    if case == "an edited file":  # the full run keeps your edit and says so
        assert {f["path"]: f["verdict"] for f in data["files"]}["msd-core/workflows/quick.md"] == "kept"
        return
    if case == "an interrupted transaction":  # the full run rolls it back first and says so
        assert not txn.pending(target.config) and data["warnings"]
    else:
        assert data["changed"] is True, (case, data["counts"])
    assert up_to_date(target), f"{case}: the full run left something to do"


def test_a_changed_profile_is_done(target):
    assert not up_to_date(target, profile="core")
    proc = msd("install", "--global", "--config-dir", str(target.config), "--profile", "core", "--json")
    assert json.loads(proc.stdout)["changed"] is True
    assert load_manifest(target.config).profile == "core"
    assert up_to_date(target) and up_to_date(target, profile="core") and not up_to_date(target, profile="full")


def test_a_new_package_version_is_installed(target, monkeypatch):
    monkeypatch.setattr(installer, "__version__", "99.0.0")
    assert not up_to_date(target)
    result = install(target)
    assert result.data["changed"] and load_manifest(target.config).version == "99.0.0"
    assert (target.config / "msd-core" / "VERSION").read_text() == "99.0.0\n"


def test_changed_packaged_content_is_installed(target, tmp_path, monkeypatch):
    tree = tmp_path / "content"
    shutil.copytree(REPO / "msd_core" / "content", tree)
    wf = tree / "msd-core" / "workflows" / "progress.md"
    wf.write_text(wf.read_text() + "\nA new line shipped.\n")
    monkeypatch.setattr(ContentSource, "packaged", classmethod(lambda cls: cls(tree, "package msd_core/content")))
    assert not up_to_date(target)
    assert install(target).data["changed"] is True
    assert (target.config / "msd-core" / "workflows" / "progress.md").read_text().endswith("A new line shipped.\n")


def test_a_moved_msd_run_updates_the_hook(target, tmp_path, monkeypatch):
    from msd_core.install import runner_path

    other = tmp_path / "venv2" / "bin"
    other.mkdir(parents=True)
    (other / runner_path.EXE).write_text("#!/bin/sh\n")
    (other / runner_path.EXE).chmod(0o755)
    monkeypatch.setattr(runner_path, "own_runner", lambda: other / runner_path.EXE)
    assert not up_to_date(target)
    assert install(target).data["hooks"]["action"] == "updated"


def test_an_unrelated_settings_edit_leaves_nothing_to_do(target):
    s = target.config / "settings.json"
    obj = json.loads(s.read_text())
    obj["theme"] = "dark"
    s.write_text(json.dumps(obj, indent=2) + "\n")
    before = s.read_bytes()
    assert up_to_date(target)
    assert install(target).data["changed"] is False
    assert s.read_bytes() == before


def test_a_first_install_writes_and_a_local_install_in_home_is_refused(tmp_path):
    fresh = resolve_target("global", tmp_path / "new")
    assert not up_to_date(fresh) and not fresh.config.exists()
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    proc = subprocess.run([sys.executable, "-m", "msd_core", "install", "--local"], cwd=home, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "is the global folder" in proc.stderr


def test_a_local_install_whose_hook_file_git_no_longer_ignores_writes_the_line_again(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    t = resolve_target("local", project_dir=proj)
    install(t)
    exclude = proj / ".git" / "info" / "exclude"
    assert "settings.local.json" in exclude.read_text()
    assert up_to_date(t)  # the fixture: a clean local install has nothing to do
    exclude.write_text("")  # the exclude line lost: the install plans it again
    assert install(t, dry_run=True).data["changed"]
    proc = msd("install", "--local", "--json", cwd=proj)
    assert proc.returncode == 0, proc.stderr
    assert "/.claude/settings.local.json" in exclude.read_text()
    assert up_to_date(t)
