"""kill -9 at random instants of real `msd install`, update and `msd uninstall` processes: after
each kill and the recovery the next run makes first, msd's tree, settings.json and the guard
server's entry in ~/.claude.json agree, and are exactly the state before or after the run.

The guard server's entry is one step of the install's transaction (files/txn.py `Outside`), so a
kill anywhere is rolled back (or finished) with the rest. An uninstall killed after its
transaction leaves msd's marker in the ~/.claude/ msd created; the next uninstall removes both:
nothing msd made is left behind. The instants are drawn from a seeded generator: half anywhere in the
run (process start included), half from the moment its transaction folder appears to a little
past the time the transaction took in a timed run; bounded by count and by time. The figures are printed
(`pytest -s`): kills, kills that landed inside the transaction, states that disagreed.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import pytest

from msd_core.files import txn
from msd_core.install.guard_server_setup import SERVER
from msd_core.install.lock import LOCK_NAME
from tests.kit.installkit import FIXTURE, age_host_lock, copy_fixture, snapshot

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name != "posix", reason="POSIX signals")]

KILLS = 16
BUDGET = 30.0  # seconds per scenario
STEP_MS = "10"
SEED = 44
USER_JSON = b'{\n  "numStartups": 7,\n  "mcpServers": {\n    "db": {"type": "stdio", "command": "db-mcp", "args": [], "env": {}}\n  }\n}\n'
MARKER = ".claude/.msd-core.created"


def _env(home, slow: bool) -> dict:
    env = {**os.environ, "HOME": str(home), "MSD_LOCK_TIMEOUT": "10", "MSD_USER_CONFIG_DIR": str(home / ".config" / "msd")}
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop("MSD_TEST_SLOW_INSTALL", None)
    if slow:
        env["MSD_TEST_SLOW_INSTALL"] = STEP_MS
    return env


def _start(args, home, slow=True):
    return subprocess.Popen([sys.executable, "-m", "msd_core", *args], env=_env(home, slow), cwd=str(home),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _ok(args, home, slow=False):
    proc = _start(args, home, slow)
    assert proc.wait(60) == 0, proc.stderr.read()


def _timed(args, home) -> tuple[float, tuple[float, float]]:
    """Run `args` once (slowed); (its whole time, (from, to): when its transaction folder existed)."""
    config = home / ".claude"
    t0 = time.monotonic()
    proc = _start(args, home)
    seen: list[float] = []
    while proc.poll() is None:
        if txn.pending(config):
            seen.append(time.monotonic() - t0)
        time.sleep(0.005)
    assert proc.wait() == 0, proc.stderr.read()
    full = time.monotonic() - t0
    return full, ((min(seen), max(seen)) if seen else (0.0, full))


def _state(home) -> dict:
    snap = snapshot(home)
    snap.pop(".claude/" + LOCK_NAME, None)  # a kill can leave the empty lock file; the next run removes it
    return snap


def agreement(home) -> str | None:
    """What disagrees between msd's three records of an install (None: they agree): its manifest,
    the guard rows in settings.json calling msd's server, the server's entry in ~/.claude.json."""
    manifest = (home / ".claude/msd-core/manifest.json").is_file()
    try:
        settings = json.loads((home / ".claude/settings.json").read_bytes())
    except (OSError, ValueError):
        settings = {}
    rows = [h for g in settings.get("hooks", {}).get("PreToolUse", []) for h in g.get("hooks", [])
            if h.get("type") == "mcp_tool" and h.get("server") == SERVER]
    try:
        servers = json.loads((home / ".claude.json").read_bytes() or b"{}").get("mcpServers", {})
    except (OSError, ValueError):
        servers = {}
    facts = {"manifest": manifest, "guard rows": bool(rows), "server entry": SERVER in servers}
    return None if len(set(facts.values())) == 1 else ", ".join(f"{k}: {v}" for k, v in facts.items())


def _v2(tmp_path):
    v2 = copy_fixture(tmp_path / "v2")
    wf = v2 / "msd-core/workflows/hello.md"
    wf.write_text(wf.read_text().replace("Step 5: done.", "Step 5: finish."))
    (v2 / "msd-core/flows/hello.toml").unlink()
    (v2 / "msd-core/references/new.md").write_text("new\n")
    return v2


def _prepare(scenario, home, tmp_path) -> list[str]:
    """Make the before-state in `home`; return the command killed."""
    install = ["install", "--global", "--content-dir", str(FIXTURE)]
    home.mkdir()
    (home / ".claude.json").write_bytes(USER_JSON)
    os.chmod(home / ".claude.json", 0o600)
    if scenario == "install":
        (home / ".claude").mkdir()
        (home / ".claude/settings.json").write_text('{"theme": "dark"}\n')
        return install
    if scenario == "update":
        (home / ".claude").mkdir()
        (home / ".claude/settings.json").write_text('{"theme": "dark"}\n')
        _ok(install, home)
        # the entry of an older msd (another interpreter): the update rewrites it with the content
        obj = json.loads((home / ".claude.json").read_bytes())
        obj["mcpServers"][SERVER]["command"] = "/opt/old-msd/bin/python3"
        (home / ".claude.json").write_text(json.dumps(obj, indent=2) + "\n")
        return ["install", "--global", "--content-dir", str(_v2(tmp_path))]
    _ok(install, home)  # uninstall: ~/.claude made by msd's install
    assert (home / MARKER).exists() or (home / ".claude/msd-core/manifest.json").exists()
    return ["uninstall", "--global"]


@pytest.mark.parametrize("scenario", ["install", "update", "uninstall"])
def test_a_kill_at_any_instant_leaves_content_settings_and_server_entry_agreeing(tmp_path, scenario):
    home, saved = tmp_path / "home", tmp_path / "saved"
    original = None
    if scenario == "uninstall":
        original = tmp_path / "original"
        original.mkdir()
        (original / ".claude.json").write_bytes(USER_JSON)
        os.chmod(original / ".claude.json", 0o600)
    args = _prepare(scenario, home, tmp_path)
    shutil.copytree(home, saved, symlinks=True)
    before = _state(home)
    assert agreement(home) is None
    full, window = _timed(args, home)
    after = _state(home)
    assert after != before and agreement(home) is None
    if original is not None:
        assert after == _state(original)  # uninstall gives HOME back exactly: ~/.claude gone, the file byte for byte

    rng = random.Random(f"{SEED}-{scenario}")
    seen = {"runs": 0, "kills": 0, "inside the transaction": 0, "before": 0, "after": 0, "finished by the next uninstall": 0,
            "lock folder left": 0, "half-states": 0}
    failures: list[str] = []
    start = time.monotonic()
    while seen["kills"] < KILLS and seen["runs"] < 2 * KILLS and time.monotonic() - start < BUDGET:
        shutil.rmtree(home)
        shutil.copytree(saved, home, symlinks=True)
        proc = _start(args, home)
        t0 = time.monotonic()
        if seen["runs"] % 2:  # anywhere in the run, process start included
            time.sleep(rng.uniform(0.0, full * 1.1))
        else:  # inside its transaction and right after it: from when its folder appears
            after_txn = rng.uniform(0.0, (window[1] - window[0]) + 0.1)
            while not txn.pending(home / ".claude") and proc.poll() is None and time.monotonic() - t0 < 2 * full + 5:
                time.sleep(0.002)
            time.sleep(after_txn)
        delay = time.monotonic() - t0
        proc.send_signal(signal.SIGKILL)
        seen["runs"] += 1
        if proc.wait(30) == -signal.SIGKILL:
            seen["kills"] += 1  # else it finished first: its state is checked all the same
        config = home / ".claude"
        if txn.pending(config):
            seen["inside the transaction"] += 1
        if (home / ".claude.json.lock").exists():
            seen["lock folder left"] += 1
            age_host_lock(home)  # as if the next run came after the host's stale age (its own run takes over a lock it recorded)
        if config.is_dir():
            txn.recover(config)  # what the next run does first
        state = _state(home)
        problem = agreement(home)
        if problem:
            seen["half-states"] += 1
            failures.append(f"kill after {delay:.3f}s of a {full:.2f}s run: {problem}")
            continue
        if state == before:
            seen["before"] += 1
        elif state == after:
            seen["after"] += 1
        elif scenario == "uninstall" and {k for k in set(state) ^ set(after)} <= {".claude/", MARKER}:
            seen["finished by the next uninstall"] += 1  # killed after the transaction: the marker names ~/.claude as msd's
            _ok(args, home)
            assert _state(home) == after
        else:
            changed = sorted(k for k in set(state) | set(before) | set(after)
                             if not (state.get(k) == before.get(k) or state.get(k) == after.get(k)))[:8]
            seen["half-states"] += 1
            failures.append(f"kill after {delay:.3f}s of a {full:.2f}s run left neither the before nor the after state: {changed}")
            continue
        if state == before and seen["runs"] % 4 == 0:  # the next run completes cleanly
            _ok(args, home)
            assert _state(home) == after
    print(f"{scenario}: full run {full:.2f}s, {seen}")
    assert not failures, f"{len(failures)} of {seen['kills']} kills left a half-state: " + "; ".join(failures[:4])
    assert seen["kills"] >= 8, seen
    assert seen["inside the transaction"] >= 1, f"no kill landed inside the transaction ({seen}, full run {full:.2f}s)"
    assert seen["before"] >= 1 and seen["after"] + seen["finished by the next uninstall"] >= 1, seen
