"""Phase surgery is whole or nothing, also where links and kills are involved.

- `.planning/phases` a symlink, or a phase folder the change would rename or delete a symlink:
  insert, remove and move are refused with one line and nothing changes (the readers do not
  follow such links, so renumbering around them would leave ROADMAP and the folders apart).
- A process killed after the renumbering transaction and before STATE.md is re-derived: the
  transaction itself recorded that STATE.md is due, and the next msd_run call that reads the
  project re-derives it (or, when it cannot, refuses), so no call reports a phase that is gone.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.planning.test_phase_ops import make_project, run, tree

STATE_LAST = """# Project State

## Current Position

Phase: 4 of 4 (Export)
Plan: Not planned yet
Status: Ready to plan
"""


def _outside(tmp_path: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted((tmp_path / "elsewhere").rglob("*")):
        if p.is_file():
            out[p.relative_to(tmp_path).as_posix()] = p.read_bytes()
    return out


def _link_phases_folder(tmp_path: Path, root: Path) -> None:
    phases = root / ".planning" / "phases"
    target = tmp_path / "elsewhere" / "phases"
    target.parent.mkdir(parents=True)
    shutil.move(str(phases), str(target))
    phases.symlink_to(target)


def _link_one_phase(tmp_path: Path, root: Path, name: str) -> None:
    folder = root / ".planning" / "phases" / name
    target = tmp_path / "elsewhere" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(folder), str(target))
    folder.symlink_to(target)


@pytest.mark.parametrize("argv", [["remove", "2"], ["move", "2", "--after", "4"], ["insert", "2", "Hotfix"]])
def test_a_symlinked_phases_folder_is_refused_by_every_operation(tmp_path, msd_run, argv):
    root = make_project(tmp_path / "p")
    _link_phases_folder(tmp_path, root)
    before, outside = tree(root), _outside(tmp_path)
    r, _ = run(msd_run, root, *argv)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and "phases is a symlink" in r.stderr, r.stderr
    assert tree(root) == before and _outside(tmp_path) == outside


@pytest.mark.parametrize("linked, argv", [
    ("03-search", ["remove", "2"]),          # a later phase that would be renumbered
    ("02-auth", ["remove", "2"]),            # the phase removed
    ("04-export", ["move", "2", "--after", "4"]),
    ("02-auth", ["move", "2", "--after", "4"]),  # the phase moved
])
def test_a_symlinked_phase_folder_the_change_touches_is_refused(tmp_path, msd_run, linked, argv):
    root = make_project(tmp_path / "p")
    _link_one_phase(tmp_path, root, linked)
    before, outside = tree(root), _outside(tmp_path)
    r, _ = run(msd_run, root, *argv)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stderr.count("\n") == 1 and f"phases/{linked} is a symlink" in r.stderr, r.stderr
    assert tree(root) == before and _outside(tmp_path) == outside


def test_any_phase_folder_no_reader_sees_blocks_every_change(tmp_path, msd_run):
    """A linked phase the change would not rename still blocks it: STATE.md is re-derived after
    every change, and a position derived without that phase would be written over the user's lines."""
    root = make_project(tmp_path / "p")
    _link_one_phase(tmp_path, root, "01-setup")
    (root / ".planning/phases/proj-05-extra").mkdir()
    (root / ".planning/phases/proj-05-extra/05-01-PLAN.md").write_text("# plan\n")
    (root / ".planning/phases/notes").mkdir()  # no plans in it: not a phase, and not in the way
    before = tree(root)
    for argv in (["remove", "3"], ["insert", "4", "Later"], ["move", "3", "--after", "4"]):
        r, _ = run(msd_run, root, *argv)
        assert r.returncode == 2 and "phases/01-setup is a symlink" in r.stderr and "1 more" in r.stderr, r.stderr
    assert tree(root) == before
    (root / ".planning/phases/01-setup").unlink()
    os.rename(tmp_path / "elsewhere" / "01-setup", root / ".planning/phases/01-setup")
    r, _ = run(msd_run, root, "remove", "3")
    assert r.returncode == 2 and "proj-05-extra is not a phase folder" in r.stderr, r.stderr
    shutil.rmtree(root / ".planning/phases/proj-05-extra")
    r, out = run(msd_run, root, "remove", "3")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (root / ".planning/phases").iterdir()) == ["01-setup", "02-auth", "03-export", "notes"]


# ---------------------------------------------------------------- killed before STATE.md is re-derived


def _state_line(root: Path) -> str:
    text = (root / ".planning" / "STATE.md").read_text()
    return next(line for line in text.splitlines() if line.startswith("Phase:"))


def _interrupted_remove(root: Path, ref: str) -> None:
    """What a kill right after the transaction leaves: the change applied, STATE.md not re-derived."""
    from msd_core.planning import phase_ops

    phase_ops.apply(root, phase_ops.plan_remove(root, ref))


@pytest.mark.parametrize("argv", [["state", "get", "Phase"], ["next"], ["state", "sync", "--check"], ["autonomous"],
                                  ["state", "patch", "--status", "Ready to plan"]])
def test_the_next_call_that_reads_state_re_derives_it_first(tmp_path, msd_run, argv):
    root = make_project(tmp_path / "p")
    (root / ".planning" / "STATE.md").write_text(STATE_LAST)
    _interrupted_remove(root, "4")  # phase 4 is gone; STATE.md still names it
    assert _state_line(root) == "Phase: 4 of 4 (Export)"
    r = msd_run([*argv, "--cwd", str(root)])
    assert r.returncode in (0, 1), (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    assert "4 of 4" not in r.stdout and "Export" not in r.stdout, r.stdout
    assert _state_line(root) == "Phase: 2 of 3 (Auth)"
    assert not (root / ".planning" / ".msd" / "state-due").exists()


def test_a_state_that_cannot_be_re_derived_is_refused_not_reported(tmp_path, msd_run):
    root = make_project(tmp_path / "p")
    (root / ".planning" / "STATE.md").write_text(STATE_LAST)
    _interrupted_remove(root, "4")
    (root / ".planning" / "STATE.md").write_bytes(b"\xff\xfe not text")
    r = msd_run(["state", "get", "--cwd", str(root)])
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "interrupted phase change" in r.stderr, r.stderr
    assert r.stdout == ""


def test_a_completed_phase_change_leaves_no_due_marker(tmp_path, msd_run):
    root = make_project(tmp_path / "p")
    r, out = run(msd_run, root, "remove", "2")
    assert r.returncode == 0 and out["state"]["synced"] is not False, out
    assert not (root / ".planning" / ".msd" / "state-due").exists()
    r, out = run(msd_run, root, "remove", "2", "--dry-run")
    assert not (root / ".planning" / ".msd" / "state-due").exists()


def test_kills_at_random_moments_never_leave_a_report_of_a_gone_phase(tmp_path, msd_run):
    """Bounded: 8 rounds, each `phase remove 4` killed at a different moment (the transaction
    slowed to 3 ms per step); after each, `msd_run state get` names a phase that exists."""
    start = time.monotonic()
    outcomes = set()
    for i in range(8):
        assert time.monotonic() - start < 120
        root = make_project(tmp_path / f"r{i}")
        (root / ".planning" / "STATE.md").write_text(STATE_LAST)
        env = {**os.environ, "MSD_TEST_SLOW_INSTALL": "3"}
        proc = subprocess.Popen([sys.executable, "-m", "msd_core.run", "phase", "remove", "4", "--cwd", str(root)],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.15 + 0.04 * i)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        r = msd_run(["state", "get", "Phase", "--raw", "--cwd", str(root)])
        assert r.returncode == 0, r.stderr
        folders = sorted(p.name for p in (root / ".planning/phases").iterdir())
        assert folders in (["01-setup", "02-auth", "03-search", "04-export"], ["01-setup", "02-auth", "03-search"])
        shown = r.stdout.strip()
        if len(folders) == 3:
            assert shown == "2 of 3 (Auth)", shown
            outcomes.add("new")
        else:
            assert shown in ("4 of 4 (Export)", "2 of 4 (Auth)"), shown
            outcomes.add("old")
    assert outcomes, "no round ran"
