"""kill -9 real `python -m msd_core install` processes at many points.

MSD_TEST_SLOW_INSTALL makes each file step sleep a few ms so the kills land inside the
transaction. After each kill, recovery (what the next run does first) must give back the
before-state or the complete install, and a rerun must succeed and give the complete install.
Claude Code's ~/.claude.json (the guard server's entry) is part of the state compared: its edit is
a step of the transaction. Bounded by count and by time.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from msd_core.files import txn
from msd_core.install.lock import LOCK_NAME
from tests.kit.installkit import FIXTURE, age_host_lock, snapshot

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name != "posix", reason="POSIX signals")]

KILLS = 10
BUDGET = 45.0
STEP_MS = "8"


def _state(home):
    snap = snapshot(home)
    snap.pop(".claude/" + LOCK_NAME, None)  # a SIGKILL can leave the empty lock file; the next run removes it
    return snap


def _run(args, home, slow=True):
    env = {**os.environ, "HOME": str(home), "MSD_LOCK_TIMEOUT": "10", "MSD_USER_CONFIG_DIR": str(home / ".config" / "msd")}
    env.pop("CLAUDE_CONFIG_DIR", None)
    if slow:
        env["MSD_TEST_SLOW_INSTALL"] = STEP_MS
    return subprocess.Popen([sys.executable, "-m", "msd_core", *args], env=env, cwd=str(home),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.mark.parametrize("scenario", ["install", "uninstall"])
def test_sigkill_at_many_points_leaves_before_or_after(tmp_path, scenario):
    home = tmp_path / "home"
    saved = tmp_path / "saved"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude/settings.json").write_text('{"theme": "dark"}\n')
    install_args = ["install", "--global", "--content-dir", str(FIXTURE)]
    if scenario == "uninstall":
        assert _run(install_args, home, slow=False).wait(60) == 0
        args = ["uninstall", "--global"]
    else:
        args = install_args
    shutil.copytree(home, saved, symlinks=True)
    before = _state(home)
    t0 = time.monotonic()
    proc = _run(args, home)
    assert proc.wait(60) == 0, proc.stderr.read()
    full = time.monotonic() - t0
    after = _state(home)
    assert after != before

    seen = {"before": 0, "after": 0, "mid": 0}
    start = time.monotonic()
    for i in range(KILLS):
        if time.monotonic() - start > BUDGET:
            break
        shutil.rmtree(home)
        shutil.copytree(saved, home, symlinks=True)
        delay = full * (0.3 + 0.75 * i / (KILLS - 1))
        proc = _run(args, home)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        if txn.pending(home / ".claude"):
            seen["mid"] += 1
        age_host_lock(home)  # a lock on ~/.claude.json the kill left before the journal named it: as if 10 s had passed
        txn.recover(home / ".claude")
        state = _state(home)
        if state == before:
            seen["before"] += 1
            rerun = _run(args, home, slow=False)
            assert rerun.wait(60) == 0, rerun.stderr.read()
            assert _state(home) == after
            assert not (home / ".claude" / LOCK_NAME).exists()
        elif state == after:
            seen["after"] += 1
        else:
            changed = sorted(set(state) ^ set(before) ^ set(after))[:8]
            pytest.fail(f"kill after {delay:.3f}s left a tree that is neither before nor after: {changed}")
    print(f"{scenario}: full run {full:.2f}s, outcomes {seen}")
    assert sum(v for k, v in seen.items() if k != "mid") >= 3
    assert seen["mid"] >= 1, f"no kill landed inside a transaction ({seen}, full run {full:.2f}s)"
