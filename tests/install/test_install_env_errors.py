"""Environment errors in install / update / uninstall / status (issue 13 item 8): disk full, file
too large, permission denied, a folder where a file should be, a symlinked or odd lock file. Each
gives one line naming the path and the cause, the documented exit code, never "internal error",
never a traceback, and leaves the previous install intact."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.errors import OperationFailed, UsageError
from msd_core.files import txn
from msd_core.install.health import status
from msd_core.install.installer import install
from msd_core.install.lock import LOCK_NAME
from msd_core.install.source import ContentSource
from msd_core.install.uninstaller import uninstall
from msd_core.paths import resolve_target
from tests.kit.installkit import copy_fixture, snapshot

SKILL = "skills/msd-hello/SKILL.md"


@pytest.fixture
def content(tmp_path) -> Path:
    return copy_fixture(tmp_path / "content")


def src(path: Path) -> ContentSource:
    return ContentSource.from_dir(path)


def one_line(proc, code: int) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and not ln.startswith("warning:")]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def _installed_then_changed(tmp_path, content):
    """An install of v1, and a v2 of the content to update to."""
    target = resolve_target("global", tmp_path / "cc")
    install(target, source=src(content))
    (content / "msd-core/references/gate.md").write_text("# Gate v2\n" + "x" * 4000 + "\n")
    (content / "msd-core/references/new.md").write_text("# New\n")
    return target


# --- disk full, file too large, permission denied, at the write primitive ------------------

@pytest.mark.parametrize("code, words", [(errno.ENOSPC, "the disk is full"), (errno.EFBIG, "too large"),
                                         (errno.EACCES, "permission denied"), (errno.EDQUOT, "quota")])
@pytest.mark.parametrize("op", ["install", "update", "repair"])
def test_write_failure_names_path_and_cause_and_changes_nothing(tmp_path, content, monkeypatch, code, words, op):
    target = resolve_target("global", tmp_path / "cc")
    if op != "install":
        target = _installed_then_changed(tmp_path, content)
        (target.config / "msd-core/workflows/hello.md").write_text("edited\n")
    before = snapshot(tmp_path / "cc")
    calls = [0]
    real = txn._stage

    def failing(path, data):
        calls[0] += 1
        if calls[0] == 3:  # part-way through staging
            raise OSError(code, os.strerror(code))
        return real(path, data)

    monkeypatch.setattr(txn, "_stage", failing)
    with pytest.raises(OperationFailed) as exc:
        install(target, source=src(content), repair=op == "repair")
    line = exc.value.one_line()
    assert words in line and "nothing was changed" in line
    assert str(target.config) + "/" in line  # names the installed path being written
    assert snapshot(tmp_path / "cc") == before
    assert not txn.pending(target.config)
    monkeypatch.setattr(txn, "_stage", real)
    install(target, source=src(content), repair=op == "repair")  # and the next run completes


def test_file_too_large_for_real_in_the_cli(msd, tmp_path, content):
    """RLIMIT_FSIZE makes the kernel refuse a large write with EFBIG (Python ignores SIGXFSZ)."""
    resource = pytest.importorskip("resource")
    cfg = tmp_path / "cc"
    args = ["install", "--global", "--config-dir", str(cfg), "--content-dir", str(content)]
    assert msd(args, cwd=tmp_path).returncode == 0
    (content / "msd-core/references/gate.md").write_text("# big\n" + "y" * 200_000 + "\n")
    before = snapshot(cfg)

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    proc = subprocess.run([sys.executable, "-m", "msd_core", *args], cwd=tmp_path, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, preexec_fn=limit, timeout=120)
    line = one_line(proc, 1)
    assert "too large" in line and str(cfg) in line
    assert snapshot(cfg) == before


def _tmpfs(path: Path, size: str) -> bool:
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    path.mkdir()
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                          capture_output=True).returncode == 0


def test_disk_full_for_real_in_the_cli(msd, tmp_path, content):
    disk = tmp_path / "disk"
    if not _tmpfs(disk, "1m"):
        pytest.skip("needs root and tmpfs to fill a real disk")
    try:
        cfg = disk / "cc"
        args = ["install", "--global", "--config-dir", str(cfg), "--content-dir", str(content)]
        assert msd(args, cwd=tmp_path).returncode == 0
        (content / "msd-core/references/gate.md").write_text("# big\n" + "z" * 300_000 + "\n")
        filler = disk / "filler"
        with open(filler, "wb") as fh:  # leave about 100 KB free
            fh.write(b"\0" * (1024 * 1024 - 100 * 1024 - sum(f.stat().st_size for f in cfg.rglob("*") if f.is_file())))
        before = snapshot(cfg)
        line = one_line(msd(args, cwd=tmp_path), 1)
        assert "the disk is full" in line and str(cfg) in line and "free some space" in line
        assert snapshot(cfg) == before
        filler.unlink()
        assert msd(args, cwd=tmp_path).returncode == 0  # with space again, the update completes
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)


def test_permission_denied_for_real_on_a_subfolder(msd, tmp_path, content):
    cfg = tmp_path / "cc"
    args = ["install", "--global", "--config-dir", str(cfg), "--content-dir", str(content)]
    assert msd(args, cwd=tmp_path).returncode == 0
    (content / "commands/msd/hello.md").write_text((content / "commands/msd/hello.md").read_text() + "More.\n")
    locked = cfg / "skills/msd-hello"
    if shutil.which("chattr") and subprocess.run(["chattr", "+i", str(locked)], capture_output=True).returncode == 0:
        undo = ["chattr", "-i", str(locked)]
    elif os.geteuid() != 0:
        locked.chmod(0o555)
        undo = None
    else:
        pytest.skip("root without chattr cannot make a folder unwritable")
    try:
        before = snapshot(cfg)
        line = one_line(msd(args, cwd=tmp_path), 1)
        assert str(locked) in line and ("not permitted" in line or "permission denied" in line)
        assert snapshot(cfg) == before
    finally:
        subprocess.run(undo, capture_output=True) if undo else locked.chmod(0o755)
    assert msd(args, cwd=tmp_path).returncode == 0


# --- a folder where a file should be -----------------------------------------------------------

def test_folder_where_an_installed_file_should_be(msd, tmp_path, content):
    cfg = tmp_path / "cc"
    args = ["--global", "--config-dir", str(cfg)]
    assert msd(["install", *args, "--content-dir", str(content)], cwd=tmp_path).returncode == 0
    (cfg / SKILL).unlink()
    (cfg / SKILL).mkdir()
    before = snapshot(cfg)
    for cmd in (["install", *args, "--content-dir", str(content)], ["update", *args, "--repair", "--content-dir", str(content)],
                ["uninstall", *args], ["uninstall", *args, "--force"]):
        line = one_line(msd(cmd, cwd=tmp_path), 1)
        assert f"{cfg / SKILL}: a folder is where msd installs a file" in line and "move it aside" in line
        assert snapshot(cfg) == before
    st = msd(["status", "--config-dir", str(cfg), "--json"], cwd=tmp_path)
    assert st.returncode == 0 and "a folder is where msd installs a file" in st.stdout
    (cfg / SKILL).rmdir()
    assert msd(["install", *args, "--content-dir", str(content)], cwd=tmp_path).returncode == 0


def test_fifo_where_an_installed_file_should_be_never_hangs(tmp_path, content):
    target = resolve_target("global", tmp_path / "cc")
    install(target, source=src(content))
    (target.config / SKILL).unlink()
    os.mkfifo(target.config / SKILL)
    os.mkfifo(target.config / "settings.json.fifo")
    with pytest.raises(OperationFailed) as exc:
        install(target, source=src(content))
    assert "not a regular file" in exc.value.message
    info = next(i for i in status(config_dir=target.config).data["installs"] if i["scope"] == "global")
    assert any(SKILL in m and "not a regular file" in m for m in info["modified"])


def test_fifo_settings_is_left_alone_without_hanging(tmp_path, content):
    target = resolve_target("global", tmp_path / "cc")
    target.config.mkdir()
    os.mkfifo(target.config / "settings.json")
    res = install(target, source=src(content))
    assert any("settings.json" in w and "not a regular file" in w for w in res.warnings)


# --- the lock file -----------------------------------------------------------------------------

def test_symlinked_lock_file_is_refused_without_touching_its_target(msd, tmp_path, content):
    cfg = tmp_path / "cc"
    args = ["--global", "--config-dir", str(cfg)]
    assert msd(["install", *args, "--content-dir", str(content)], cwd=tmp_path).returncode == 0
    victim = tmp_path / "victim"
    (cfg / LOCK_NAME).symlink_to(victim)
    before = snapshot(tmp_path)
    for cmd in (["install", *args, "--content-dir", str(content)], ["uninstall", *args]):
        line = one_line(msd(cmd, cwd=tmp_path), 2)
        assert str(cfg / LOCK_NAME) in line and "symlink" in line
    assert not victim.exists() and snapshot(tmp_path) == before


def test_lock_file_that_is_a_folder(tmp_path, content):
    target = resolve_target("global", tmp_path / "cc")
    install(target, source=src(content))
    (target.config / LOCK_NAME).mkdir()
    before = snapshot(tmp_path / "cc")
    with pytest.raises(OperationFailed) as exc:
        install(target, source=src(content))
    assert str(target.config / LOCK_NAME) in exc.value.message and "folder" in exc.value.message
    assert snapshot(tmp_path / "cc") == before


def test_lock_file_that_is_a_fifo_does_not_hang(tmp_path, content):
    target = resolve_target("global", tmp_path / "cc")
    install(target, source=src(content))
    os.mkfifo(target.config / LOCK_NAME)
    with pytest.raises(OperationFailed) as exc:
        uninstall(target)
    assert str(target.config / LOCK_NAME) in exc.value.message and "not a regular file" in exc.value.message


# --- the shared boundary -------------------------------------------------------------------------

@pytest.mark.parametrize("entry", ["install", "uninstall", "status"])
def test_any_os_error_is_one_line_never_internal(tmp_path, content, monkeypatch, entry):
    """Whatever OSError escapes an entry point is named by the shared mapper (exit 1)."""
    target = resolve_target("global", tmp_path / "cc")
    install(target, source=src(content))
    import msd_core.ownership.record as record

    def boom(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied", str(target.config / "msd-core"))

    monkeypatch.setattr(record, "load_manifest", boom)  # every entry point reads the record through this module
    call = {"install": lambda: install(target, source=src(content)), "uninstall": lambda: uninstall(target),
            "status": lambda: status(config_dir=target.config)}[entry]
    with pytest.raises(OperationFailed) as exc:
        call()
    assert exc.value.one_line().startswith(f"cannot use {target.config / 'msd-core'}: permission denied")


def test_symlink_lock_is_usage_error_in_process(tmp_path, content):
    target = resolve_target("global", tmp_path / "cc")
    install(target, source=src(content))
    (target.config / LOCK_NAME).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UsageError):
        install(target, source=src(content))


def test_disk_full_during_uninstall_keeps_the_install(tmp_path, content, monkeypatch):
    target = resolve_target("global", tmp_path / "cc")
    target.config.mkdir()
    (target.config / "settings.json").write_text('{"theme": "dark"}')
    install(target, source=src(content))
    before = snapshot(tmp_path / "cc")

    def full(path, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(txn, "_stage", full)  # restoring settings.json needs a staged write
    with pytest.raises(OperationFailed) as exc:
        uninstall(target)
    assert exc.value.one_line().startswith(f"cannot write {target.config / 'settings.json'}: the disk is full")
    assert snapshot(tmp_path / "cc") == before
