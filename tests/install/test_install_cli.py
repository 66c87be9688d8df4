"""`msd install/update/uninstall/status` as a user runs them (subprocess, stdin closed)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.kit.installkit import FIXTURE

CONTENT = ["--content-dir", str(FIXTURE)]


def ok_json(proc) -> dict:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def one_clear_line(proc, code: int) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_no_scope_without_tty_exits_2_with_hint(msd, tmp_path):
    proc = msd(["install", *CONTENT], cwd=tmp_path)
    line = one_clear_line(proc, 2)
    assert "--global" in line and "--local" in line
    assert not (tmp_path / ".claude").exists()


def test_both_scopes_is_usage_error(msd, tmp_path):
    one_clear_line(msd(["install", "--global", "--local", *CONTENT], cwd=tmp_path), 2)


def test_json_install_update_status_uninstall(msd, tmp_path):
    data = ok_json(msd(["install", "--local", "--json", *CONTENT], cwd=tmp_path))
    assert data["schema_version"] == 1 and data["command"] == "install" and data["ok"] is True
    assert {f["verdict"] for f in data["files"]} == {"create"}
    assert len(data["files"]) == data["counts"]["create"] >= 9
    again = ok_json(msd(["update", "--local", "--json", *CONTENT], cwd=tmp_path))
    assert again["command"] == "update" and again["changed"] is False
    (tmp_path / ".claude/msd-core/references/gate.md").write_text("edited\n")
    (tmp_path / ".claude/msd-core/workflows/hello/detail/01-more.md").unlink()
    (tmp_path / ".claude/msd-core/references/extra.md").write_text("stray\n")
    st = ok_json(msd(["status", "--json"], cwd=tmp_path))
    local = next(i for i in st["installs"] if i["scope"] == "local")
    assert local["installed"] and local["up_to_date"]
    assert local["modified"] == ["msd-core/references/gate.md"]
    assert local["missing"] == ["msd-core/workflows/hello/detail/01-more.md"]
    assert local["unexpected"] == ["msd-core/references/extra.md"]
    glob = next(i for i in st["installs"] if i["scope"] == "global")
    assert glob["installed"] is False
    un = ok_json(msd(["uninstall", "--local", "--json"], cwd=tmp_path))
    assert un["counts"] == {"removed": len(un["files"]) - 2, "kept": 1, "missing": 1}
    assert (tmp_path / ".claude/msd-core/references/extra.md").read_text() == "stray\n"


def test_human_output_has_verdict_table(msd, tmp_path):
    proc = msd(["install", "--local", *CONTENT], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Installed msd-core" in proc.stdout and "create" in proc.stdout
    proc = msd(["install", "--local", "--dry-run", *CONTENT], cwd=tmp_path)
    assert "Would install" in proc.stdout and "identical" in proc.stdout


def test_status_msd_run_path_fix(msd, tmp_path):
    env = {"PATH": "/usr/bin:/bin"}
    st = ok_json(msd(["status", "--json"], cwd=tmp_path, env=env))
    if shutil.which("msd_run", path=env["PATH"]):
        pytest.skip("msd_run is installed system-wide")
    assert st["msd_run"]["on_path"] is False
    bindir = str(Path(sys.executable).parent)
    assert bindir in st["msd_run"]["fix"] and "PATH" in st["msd_run"]["fix"]
    st = ok_json(msd(["status", "--json"], cwd=tmp_path, env={"PATH": bindir + ":/usr/bin:/bin"}))
    assert st["msd_run"]["on_path"] is True and st["msd_run"]["path"].startswith(bindir)


def test_target_that_is_a_file_exits_2(msd, tmp_path):
    f = tmp_path / "afile"
    f.write_text("x")
    line = one_clear_line(msd(["install", "--global", "--config-dir", str(f), *CONTENT], cwd=tmp_path), 2)
    assert "is a file" in line
    line = one_clear_line(msd(["install", "--global", "--config-dir", str(f / "sub"), *CONTENT], cwd=tmp_path), 2)
    assert "is a file" in line
    assert f.read_text() == "x"


def test_symlinked_config_dir_refused_unless_allowed(msd, tmp_path, isolated_home):
    real = tmp_path / "real-claude"
    real.mkdir()
    (isolated_home / ".claude").symlink_to(real)
    line = one_clear_line(msd(["install", "--global", *CONTENT], cwd=tmp_path), 2)
    assert "symlink" in line and "--allow-symlink" in line
    assert list(real.iterdir()) == []
    proc = msd(["install", "--global", "--allow-symlink", *CONTENT], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (real / "msd-core/manifest.json").exists()
    assert (isolated_home / ".claude").is_symlink()
    one_clear_line(msd(["uninstall", "--global"], cwd=tmp_path), 2)
    assert msd(["uninstall", "--global", "--allow-symlink"], cwd=tmp_path).returncode == 0
    assert list(real.iterdir()) == []


def _make_unwritable(path: Path) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    if shutil.which("chattr") and subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0:
        return True
    path.chmod(0o555)
    try:
        (path / ".probe").write_text("x")
    except OSError:
        return True
    (path / ".probe").unlink()
    return False


def _undo_unwritable(path: Path) -> None:
    if shutil.which("chattr"):
        subprocess.run(["chattr", "-i", str(path)], capture_output=True)
    path.chmod(0o755)


def test_unwritable_target_exits_1(msd, tmp_path):
    cfg = tmp_path / "ro"
    if not _make_unwritable(cfg):
        _undo_unwritable(cfg)
        pytest.skip("cannot make a folder unwritable here (root without chattr)")
    try:
        line = one_clear_line(msd(["install", "--global", "--config-dir", str(cfg), *CONTENT], cwd=tmp_path), 1)
        assert str(cfg) in line and ("not permitted" in line or "permission denied" in line)
        assert list(cfg.iterdir()) == []
    finally:
        _undo_unwritable(cfg)


def test_corrupt_manifest_exits_3_naming_the_repair(msd, tmp_path):
    assert msd(["install", "--local", *CONTENT], cwd=tmp_path).returncode == 0
    (tmp_path / ".claude/msd-core/manifest.json").write_text("{broken")
    line = one_clear_line(msd(["install", "--local", *CONTENT], cwd=tmp_path), 3)
    named = f"msd install --local --config-dir {tmp_path / '.claude'} --repair"
    assert "corrupt" in line and f"`{named}`" in line
    st = ok_json(msd(["status", "--json"], cwd=tmp_path))
    local = next(i for i in st["installs"] if i["scope"] == "local")
    assert "corrupt" in local["error"] and named in local["fix"]
    # the command the message names is the one that repairs (run from anywhere)
    assert msd([*named.split()[1:], *CONTENT], cwd=tmp_path.parent).returncode == 0
    assert ok_json(msd(["install", "--local", "--json", *CONTENT], cwd=tmp_path))["changed"] is False


def test_uninstall_with_nothing_installed_is_success_and_says_so(msd, tmp_path):
    """Uninstall run twice, or where nothing was installed: exit 0, one line saying so, nothing written."""
    (tmp_path / ".claude").mkdir()
    proc = msd(["uninstall", "--local"], cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.strip().startswith("Nothing to uninstall: no msd-core install in")
    assert len(proc.stdout.strip().splitlines()) == 1
    assert list((tmp_path / ".claude").iterdir()) == []
    out = ok_json(msd(["uninstall", "--local", "--json"], cwd=tmp_path))
    assert out["ok"] and out["nothing_installed"] and out["target"] == str(tmp_path / ".claude")
    # no .claude folder at all: the same, and none is created
    other = tmp_path / "other"
    other.mkdir()
    assert ok_json(msd(["uninstall", "--local", "--json"], cwd=other))["nothing_installed"]
    assert not (other / ".claude").exists()


def test_uninstall_twice_after_a_real_install(msd, tmp_path):
    ok_json(msd(["install", "--local", "--json", *CONTENT], cwd=tmp_path))
    first = ok_json(msd(["uninstall", "--local", "--json"], cwd=tmp_path))
    assert first["counts"]["removed"] > 0 and not first.get("nothing_installed")
    second = ok_json(msd(["uninstall", "--local", "--json"], cwd=tmp_path))
    assert second["nothing_installed"] is True


def test_lock_held_exits_4_then_waits(msd, tmp_path):
    from msd_core.install.lock import install_lock, lock_path

    cfg = tmp_path / ".claude"
    cfg.mkdir()
    with install_lock(cfg, timeout=1):
        line = one_clear_line(msd(["install", "--local", *CONTENT], cwd=tmp_path, env={"MSD_LOCK_TIMEOUT": "0.3"}), 4)
        assert "another msd install" in line
        # a second install with a longer wait gets the lock once we release it
        proc = subprocess.Popen([sys.executable, "-m", "msd_core", "install", "--local", "--json", *CONTENT],
                                cwd=tmp_path, env={**os.environ, "MSD_LOCK_TIMEOUT": "20"},
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        assert proc.poll() is None  # still waiting
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert json.loads(out)["counts"]["create"] >= 9
    assert not lock_path(cfg).exists()


def test_two_concurrent_installs_both_finish_cleanly(tmp_path):
    env = {**os.environ, "MSD_LOCK_TIMEOUT": "60", "MSD_TEST_SLOW_INSTALL": "20"}
    procs = [subprocess.Popen([sys.executable, "-m", "msd_core", "install", "--local", "--json", *CONTENT],
                              cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=90) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    results = [json.loads(o) for o, _ in outs]
    assert sorted(r["changed"] for r in results) == [False, True], [r["files"][:3] for r in results]
    names = {p.name for p in (tmp_path / ".claude").iterdir()}
    assert ".msd-core.txn" not in names and ".msd-core.lock" not in names


def test_install_never_reads_stdin(tmp_path):
    """With a tty-less stdin that never closes, a scoped install still finishes."""
    proc = subprocess.Popen([sys.executable, "-m", "msd_core", "install", "--local", *CONTENT], cwd=tmp_path,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc.wait(timeout=60)
    finally:
        proc.stdin.close()
    assert proc.returncode == 0


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pty")
@pytest.mark.parametrize("answer, expect_local", [("local", True), ("", False)])
def test_no_scope_on_a_terminal_asks_default_global(tmp_path, isolated_home, answer, expect_local):
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "msd_core", "install", *CONTENT], cwd=tmp_path,
                                stdin=slave, stdout=slave, stderr=subprocess.PIPE, text=True)
        os.write(master, (answer + "\n").encode())
        proc.wait(timeout=60)
        output = b""
        while True:
            import select

            ready, _, _ = select.select([master], [], [], 0.2)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
    finally:
        os.close(slave)
        os.close(master)
    assert proc.returncode == 0, proc.stderr.read()
    assert b"global" in output  # the question names the default
    assert (tmp_path / ".claude/msd-core/manifest.json").exists() is expect_local
    assert (isolated_home / ".claude/msd-core/manifest.json").exists() is not expect_local


def test_uninstall_of_several_runtimes_goes_on_past_one_never_installed(msd, tmp_path):
    ok_json(msd(["install", "--local", "--json", *CONTENT], cwd=tmp_path))
    out = ok_json(msd(["uninstall", "--local", "--runtime", "gemini,claude", "--json"], cwd=tmp_path))
    gemini, claude = out["runtimes"]
    assert gemini["nothing_installed"] is True and gemini["runtime"] == "gemini"
    assert claude["counts"]["removed"] > 0
    assert not (tmp_path / ".claude" / "msd-core").exists()
