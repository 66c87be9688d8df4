"""Writes stay where they belong: no msd write follows a symlink out of the project, and a
killed write leaves no temp file behind once the next write of the same file has run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.files import atomic as fsutil
from tests.kit.hostile import one_clear_line, plant, snapshot
from tests.kit.installed import PHASE_STATE, make_world

TIMEOUT = 30


@pytest.fixture
def world(tmp_path):
    inst, proj = make_world(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep me\n")
    return inst, proj, outside


WRITERS = [
    ("config set", ["config", "set", "mode", "interactive"], {1}),
    ("state patch", ["state", "patch", "--status", "Done"], {1}),
    ("memory index", ["memory", "index"], {1}),
    ("history-digest", ["history-digest"], {0}),  # the cache is skipped, the digest still printed
    ("next-step", ["next-step", "--workflow", "plan-phase", "--restart", "--flows-dir",
                   str(Path(__file__).resolve().parents[2] / "msd_core/content/msd-core/flows")], {1}),
    ("compile-plan", ["compile-plan", ".planning/phases/01-core/01-02-PLAN.md", "--root", "{root}"], {1}),
]


@pytest.mark.parametrize("name,argv,codes", WRITERS, ids=[w[0] for w in WRITERS])
def test_symlinked_private_folder_is_never_written_through(world, msd_run, name, argv, codes):
    inst, proj, outside = world
    plant(proj / ".planning" / ".msd", "link-out", outside)
    before = snapshot(outside)
    argv = [a.replace("{root}", str(inst.root)) for a in argv]
    r = msd_run(argv, cwd=proj, timeout=TIMEOUT)
    assert snapshot(outside) == before  # no lock, cache, db or .gitignore written out there
    assert r.returncode in codes, (r.returncode, r.stderr)
    assert one_clear_line(r.stderr), r.stderr
    if r.returncode:
        assert "symlink" in r.stderr and ".msd" in r.stderr


def test_trace_never_follows_a_symlinked_log(world, msd_run):
    inst, proj, outside = world
    (proj / ".planning" / ".msd").mkdir()
    plant(proj / ".planning" / ".msd" / "loads.jsonl", "link-out", outside / "precious.txt")
    r = msd_run(["resolve", "plan-phase", "--root", str(inst.root)], cwd=proj, env={"MSD_TRACE": "1"}, timeout=TIMEOUT)
    assert r.returncode == 0
    assert (outside / "precious.txt").read_text() == "keep me\n"


def test_symlinked_planning_folder_is_not_written_through(world, msd_run, tmp_path):
    inst, proj, outside = world
    real = proj / ".planning"
    moved = outside / "planning"
    real.rename(moved)
    real.symlink_to(moved)
    before = snapshot(outside)
    r = msd_run(["config", "set", "mode", "interactive"], cwd=proj, timeout=TIMEOUT)
    assert r.returncode == 1 and one_clear_line(r.stderr) and "symlink" in r.stderr
    assert snapshot(outside) == before


@pytest.mark.parametrize("file,argv", [
    (".planning/config.json", ["config", "set", "mode", "interactive"]),
    (".planning/STATE.md", ["state", "patch", "--status", "Done"]),
])
def test_symlinked_target_file_is_refused_not_replaced(world, msd_run, file, argv):
    inst, proj, outside = world
    target = outside / "precious.txt"
    content = '{"mode": "yolo"}\n' if file.endswith(".json") else PHASE_STATE
    target.write_text(content)
    plant(proj / file, "link-out", target)
    r = msd_run(argv, cwd=proj, timeout=TIMEOUT)
    assert r.returncode == 1 and one_clear_line(r.stderr) and "symlink" in r.stderr, r.stderr
    assert target.read_text() == content and (proj / file).is_symlink()


def test_symlinked_memory_database_is_refused(world, msd_run):
    inst, proj, outside = world
    (proj / ".planning" / ".msd").mkdir()
    db = outside / "other.sqlite"
    db.write_bytes(b"")
    plant(proj / ".planning" / ".msd" / "memory.sqlite", "link-out", db)
    r = msd_run(["memory", "index"], cwd=proj, timeout=TIMEOUT)
    assert r.returncode == 1 and one_clear_line(r.stderr) and "symlink" in r.stderr
    assert db.read_bytes() == b""


def test_symlinked_memory_journal_is_not_followed(world, msd_run):
    inst, proj, outside = world
    assert msd_run(["memory", "index"], cwd=proj, timeout=TIMEOUT).returncode == 0
    plant(proj / ".planning" / ".msd" / "memory.sqlite-journal", "link-out", outside / "precious.txt")
    r = msd_run(["memory", "index"], cwd=proj, timeout=TIMEOUT)
    assert r.returncode == 1 and one_clear_line(r.stderr)
    assert (outside / "precious.txt").read_text() == "keep me\n"


def test_symlinked_lock_file_is_refused_and_its_target_kept(world, msd_run):
    """filelock opened lock files with O_TRUNC through symlinks: the target was emptied."""
    inst, proj, outside = world
    (proj / ".planning" / ".msd").mkdir()
    plant(proj / ".planning" / ".msd" / "config.lock", "link-out", outside / "precious.txt")
    r = msd_run(["config", "set", "mode", "interactive"], cwd=proj, timeout=TIMEOUT)
    assert r.returncode == 1 and one_clear_line(r.stderr), r.stderr
    assert "config.lock" in r.stderr and "symlink" in r.stderr
    assert (outside / "precious.txt").read_text() == "keep me\n"


def test_custom_state_file_in_a_symlinked_folder_inside_the_project_is_refused(world, msd_run):
    inst, proj, outside = world
    plant(proj / "flows", "link-out", outside)
    before = snapshot(outside)
    flows = Path(__file__).resolve().parents[2] / "msd_core/content/msd-core/flows"
    r = msd_run(["next-step", "--workflow", "plan-phase", "--restart", "--flows-dir", str(flows), "--state-file", "flows/s.json"],
                cwd=proj, timeout=TIMEOUT)
    assert r.returncode == 1 and one_clear_line(r.stderr) and "symlink" in r.stderr, r.stderr
    assert snapshot(outside) == before  # neither the state file nor its lock


# ---------------------------------------------------------------- temp files


def test_writer_unit_refuses_symlinked_parent_and_target(tmp_path):
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    out = tmp_path / "out"
    out.mkdir()
    (root / "a" / "b").symlink_to(out)
    with pytest.raises(fsutil.SymlinkRefused) as info:
        fsutil.atomic_write_bytes(root / "a" / "b" / "f", b"x", anchor=root)
    assert info.value.filename == str(root / "a" / "b")
    (root / "a" / "t").symlink_to(out / "t")
    with pytest.raises(fsutil.SymlinkRefused):
        fsutil.atomic_write_bytes(root / "a" / "t", b"x", anchor=root)
    assert list(out.iterdir()) == []
    fsutil.atomic_write_bytes(root / "new" / "deep" / "f", b"ok", anchor=root)  # missing folders are made
    assert (root / "new" / "deep" / "f").read_bytes() == b"ok"


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_stale_temp_of_a_dead_writer_is_removed_by_the_next_write(world, msd_run):
    inst, proj, outside = world
    planning = proj / ".planning"
    stale = planning / f".config.json.{_dead_pid()}-deadbeef{fsutil.TMP_SUFFIX}"
    stale.write_text('{"half": ')
    live = planning / f".config.json.{os.getpid()}-cafe{fsutil.TMP_SUFFIX}"  # a write in progress
    live.write_text("{")
    other = planning / f".STATE.md.{_dead_pid()}-beef{fsutil.TMP_SUFFIX}"  # another file's temp
    other.write_text("x")
    r = msd_run(["config", "set", "mode", "interactive"], cwd=proj, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert not stale.exists() and live.exists() and other.exists()
    old = 0  # an old temp is stale whatever its pid says
    os.utime(live, (old, old))
    assert msd_run(["config", "set", "mode", "yolo"], cwd=proj, timeout=TIMEOUT).returncode == 0
    assert not live.exists()


def test_temp_named_symlink_is_removed_not_followed(world, msd_run):
    inst, proj, outside = world
    planning = proj / ".planning"
    planted = planning / f".config.json.{_dead_pid()}-0000{fsutil.TMP_SUFFIX}"
    planted.symlink_to(outside / "precious.txt")
    assert msd_run(["config", "set", "mode", "interactive"], cwd=proj, timeout=TIMEOUT).returncode == 0
    assert not os.path.lexists(planted)
    assert (outside / "precious.txt").read_text() == "keep me\n"


KILL_DURING_WRITE = r"""
import os, signal, sys
def die(fd):
    os.kill(os.getpid(), signal.SIGKILL)
os.fsync = die
from msd_core.run.dispatch import main
main(sys.argv[1:])
"""


def test_a_write_killed_mid_way_leaves_nothing_after_the_next_run(world, msd_run):
    inst, proj, outside = world
    planning = proj / ".planning"
    assert msd_run(["state", "patch", "--status", "Before"], cwd=proj, timeout=TIMEOUT).returncode == 0
    before = (planning / "STATE.md").read_bytes()
    r = subprocess.run([sys.executable, "-c", KILL_DURING_WRITE, "state", "patch", "--status", "Done"],
                       cwd=proj, capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == -signal.SIGKILL
    temps = [p.name for p in planning.iterdir() if p.name.endswith(fsutil.TMP_SUFFIX)]
    assert temps and temps[0].startswith(".STATE.md.")  # recognisable, and the file itself untouched
    assert (planning / "STATE.md").read_bytes() == before
    r = msd_run(["state", "patch", "--status", "Done"], cwd=proj, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert [p.name for p in planning.iterdir() if p.name.endswith(fsutil.TMP_SUFFIX)] == []
    assert "Status: Done" in (planning / "STATE.md").read_text()
