"""Repair that repairs (issue 16 item 6) and uninstall that is complete after a repair (issue 13 item 7).

Every message that says how to repair names a command; these tests run exactly the command the
message names and check that it repairs."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import pytest

from msd_core.install.installer import install
from msd_core.install.lock import LOCK_NAME
from msd_core.install.source import ContentSource
from msd_core.install.uninstaller import uninstall
from msd_core.paths import resolve_target
from tests.kit.installkit import FIXTURE, copy_fixture, crash_at, snapshot

PART = "msd-core/workflows/hello/detail/01-more.md"
COMMAND = re.compile(r"`(msd install [^`]*--repair)`")


def named_command(text: str) -> list[str]:
    found = COMMAND.findall(text)
    assert len(found) == 1, text
    return found[0].split()[1:]


# --- the resolver's and agent-skills' exit-3 messages ------------------------------------------

@pytest.fixture
def installed(tmp_path, msd):
    """A global install into a custom config folder, from a fixture copy that also ships an agent payload."""
    content = copy_fixture(tmp_path / "content")
    (content / "msd-core/agent-skills").mkdir()
    (content / "msd-core/agent-skills/helper.md").write_text("Helper skills: be brief.\n")
    cfg = tmp_path / "cc"
    proc = msd(["install", "--global", "--config-dir", str(cfg), "--content-dir", str(content)], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return cfg, content


def _damage(cfg: Path, how: str, rel: str) -> None:
    if how == "modified":
        (cfg / rel).write_text("my local change\n")
    else:
        (cfg / rel).unlink()


@pytest.mark.usefixtures("compact_off")
@pytest.mark.parametrize("how", ["modified", "missing"])
@pytest.mark.parametrize("command, rel", [(["resolve", "hello"], PART),
                                          (["agent-skills", "helper"], "msd-core/agent-skills/helper.md")])
def test_exit_3_names_a_command_that_repairs(tmp_path, msd, msd_run, installed, how, command, rel):
    cfg, content = installed
    root = ["--root", str(cfg / "msd-core")]
    assert msd_run([*command, *root], cwd=tmp_path).returncode == 0
    _damage(cfg, how, rel)
    failed = msd_run([*command, *root], cwd=tmp_path)
    assert failed.returncode == 3 and "Traceback" not in failed.stderr
    assert len(failed.stderr.strip().splitlines()) == 1
    repair = named_command(failed.stderr)
    assert repair == ["install", "--global", "--config-dir", str(cfg), "--repair"]
    if how == "modified":  # a plain install rightly keeps the edit: it is not the repair
        assert msd(["install", "--global", "--config-dir", str(cfg), "--content-dir", str(content)], cwd=tmp_path).returncode == 0
        assert msd_run([*command, *root], cwd=tmp_path).returncode == 3
    fixed = msd([*repair, "--content-dir", str(content), "--json"], cwd=tmp_path.parent)  # run from anywhere
    assert fixed.returncode == 0, fixed.stderr
    assert msd_run([*command, *root], cwd=tmp_path).returncode == 0
    if how == "modified":  # the edit was not discarded silently: reported, and saved first
        import json

        entry = next(f for f in json.loads(fixed.stdout)["files"] if f["path"] == rel)
        assert Path(entry["backup"]).read_text() == "my local change\n"


@pytest.mark.usefixtures("compact_off")
def test_emit_notice_names_the_repair(tmp_path, msd, msd_run, installed):
    cfg, content = installed
    _damage(cfg, "modified", PART)
    out = msd_run(["resolve", "hello", "--emit", "--root", str(cfg / "msd-core")], cwd=tmp_path)
    assert out.returncode == 0 and len(out.stdout.splitlines()) == 1
    assert named_command(out.stdout) == ["install", "--global", "--config-dir", str(cfg), "--repair"]


def test_corrupt_manifest_seen_by_the_resolver_names_the_repair(tmp_path, msd, msd_run, installed):
    cfg, content = installed
    (cfg / "msd-core/manifest.json").write_text("{broken")
    failed = msd_run(["resolve", "hello", "--root", str(cfg / "msd-core")], cwd=tmp_path)
    assert failed.returncode == 3
    repair = named_command(failed.stderr)
    assert msd([*repair, "--content-dir", str(content)], cwd=tmp_path).returncode == 0
    assert msd_run(["resolve", "hello", "--root", str(cfg / "msd-core")], cwd=tmp_path).returncode == 0


def test_manifest_that_is_a_folder_says_to_move_it_first(tmp_path, msd, installed):
    cfg, content = installed
    (cfg / "msd-core/manifest.json").unlink()
    (cfg / "msd-core/manifest.json").mkdir()
    before = snapshot(cfg)
    for args in (["install", "--global", "--config-dir", str(cfg), "--content-dir", str(content)],
                 ["install", "--global", "--config-dir", str(cfg), "--repair", "--content-dir", str(content)],
                 ["uninstall", "--global", "--config-dir", str(cfg)]):
        proc = msd(args, cwd=tmp_path)
        assert proc.returncode == 3 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "is a folder" in proc.stderr and "move it aside" in proc.stderr
    assert snapshot(cfg) == before
    (cfg / "msd-core/manifest.json").rmdir()  # what the message says; then its command repairs
    assert msd(named_command(proc.stderr) and ["install", "--global", "--config-dir", str(cfg), "--repair",
                                                "--content-dir", str(content)], cwd=tmp_path).returncode == 0


def test_every_repair_hint_in_the_package_names_repair():
    """A repair hint that names a plain `msd install` (which keeps edits) is the bug class."""
    root = Path(__file__).resolve().parents[2] / "msd_core"
    bad = re.compile(r"(run|Run) `msd install`( to repair|\.|\"|$)|`?msd install`? repairs|"
                     r"`msd install --(global|local) --force` to rebuild")
    offenders = []
    for path in root.rglob("*"):
        if path.suffix in (".py", ".md") and path.is_file():
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if bad.search(line):
                    offenders.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    assert offenders == []


def test_repair_reports_each_restored_file(tmp_path, msd, installed):
    cfg, content = installed
    _damage(cfg, "missing", PART)
    _damage(cfg, "modified", "msd-core/references/gate.md")
    out = msd(["install", "--global", "--config-dir", str(cfg), "--repair", "--content-dir", str(content)], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert re.search(rf"create\s+{re.escape(PART)}\s+restored", out.stdout)
    assert re.search(r"update\s+msd-core/references/gate.md\s+replaced your version .*backup: ", out.stdout)


# --- uninstall is complete after a repair ---------------------------------------------------

def _first_install_killed_then_repaired(tmp_path, with_settings: bool) -> tuple[int, int]:
    content = ContentSource.from_dir(FIXTURE)
    home = tmp_path / "home"
    saved = tmp_path / "saved"
    home.mkdir()
    cfg = home / ".claude"
    if with_settings:
        cfg.mkdir()
        (cfg / "settings.json").write_bytes(b'{\n    "theme": "dark"\n}')  # odd formatting on purpose
    shutil.copytree(home, saved)
    before = snapshot(home)
    target = resolve_target("global", cfg)
    killed = completed = 0
    start = time.monotonic()
    for k in range(1, 400):
        if time.monotonic() - start > 25:
            break
        shutil.rmtree(home)
        shutil.copytree(saved, home)
        code = crash_at(k, False, lambda: install(target, source=content))
        if code == 0:
            completed += 1
            break
        assert code == 77
        killed += 1
        if k % 3 and k > 3:
            continue  # every point up to 3 (around the config folder's creation), then every third
        install(target, source=content)  # the next run recovers and completes
        (cfg / "msd-core/manifest.json").write_text("{broken")  # then the manifest is damaged
        res = install(target, source=content, repair=True)  # the documented repair
        assert any("bookkeeping copy" in w for w in res.warnings)
        uninstall(target)
        after = snapshot(home)
        after.pop(".claude/" + LOCK_NAME, None)
        assert after == before, f"kill at point {k} left {sorted(set(after) ^ set(before))[:6]}"
    return killed, completed


def test_killed_first_install_corrupt_manifest_repair_uninstall_leaves_nothing(tmp_path):
    killed, completed = _first_install_killed_then_repaired(tmp_path, with_settings=False)
    assert killed > 10 and completed == 1


def test_killed_first_install_corrupt_manifest_repair_uninstall_restores_settings(tmp_path):
    killed, completed = _first_install_killed_then_repaired(tmp_path, with_settings=True)
    assert killed > 10 and completed == 1


def test_killed_first_install_then_uninstall_removes_the_folder_it_created(tmp_path):
    content = ContentSource.from_dir(FIXTURE)
    cfg = tmp_path / "home" / ".claude"
    cfg.parent.mkdir()
    target = resolve_target("global", cfg)
    assert crash_at(3, False, lambda: install(target, source=content)) == 77
    assert cfg.is_dir()
    uninstall(target)  # nothing was installed, but msd created the folder
    assert not cfg.exists()


def test_status_of_a_repaired_install_is_clean(tmp_path, content_copy=None):
    from msd_core.install.health import inspect

    target = resolve_target("global", tmp_path / "cc")
    content = ContentSource.from_dir(FIXTURE)
    install(target, source=content)
    (target.config / "msd-core/manifest.json").write_text("[]")
    info = inspect(target)
    assert f"msd install --global --config-dir {target.config} --repair" in info["fix"]
    install(target, source=content, repair=True)
    info = inspect(target)
    assert info["installed"] and not info["modified"] and not info["missing"] and "error" not in info
    assert os.path.exists(target.config / "msd-core/.msd/manifest.copy.json")


def test_a_config_folder_another_installer_creates_meanwhile_is_never_undone(tmp_path, monkeypatch):
    """Two first installs at once: the one that loses the race to create the config folder
    records nothing and removes nothing (it used to delete the winner's marker and folder)."""
    from msd_core.ownership import record as ownership
    from msd_core.paths import resolve_target

    target = resolve_target("global", tmp_path / "cfg")
    real_mkdir = os.mkdir

    def rival_first(path, *a, **kw):  # the other installer creates the folder and its marker first
        real_mkdir(path)
        (target.config / ownership.MARKER).write_text('["%s"]' % target.config)
        raise FileExistsError(17, "File exists", str(path))

    monkeypatch.setattr(ownership.os, "mkdir", rival_first)
    assert ownership.ensure_config(target) == []
    assert target.config.is_dir() and (target.config / ownership.MARKER).is_file()
