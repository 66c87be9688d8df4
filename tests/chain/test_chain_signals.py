"""Chain signals end the whole tree.

SIGTERM or SIGHUP to `msd chain` ends the running agent's process group, as SIGINT and the time
limit do, and the chain exits 128 + the signal's number with one line. On Linux, a process the
agent moved out of its group (`setsid`, a double fork) is ended too: at a timeout, at a signal,
and when the agent exits normally (the chain is a child subreaper and ends what is below it).
Elsewhere only the group is guaranteed (msd_core.chain.agent_process says which holds where)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.chain.test_chain import _gone
from tests.kit.flowkit import fake_install

LINUX = sys.platform.startswith("linux") and os.path.isdir("/proc/self")

# An agent that starts: a grandchild in its group (a shell's background sleep), and one that left
# the group (fork, setsid, fork again; the middle process exits), then hangs or exits.
AGENT = textwrap.dedent(r'''
    import os, subprocess, sys, time
    from pathlib import Path
    sys.stdin.read()
    out = Path(sys.argv[1])
    subprocess.Popen(["/bin/sh", "-c", "sleep 1000 & echo $! > " + str(out / "in-group.pid") + "; wait"])
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            (out / "escaped.pid").write_text(str(os.getpid()))
            time.sleep(1000)
            os._exit(0)
        os._exit(0)
    for _ in range(300):
        if all((out / n).exists() and (out / n).read_text().strip() for n in ("in-group.pid", "escaped.pid")):
            break
        time.sleep(0.02)
    (out / "ready").write_text("1")
    if sys.argv[2] == "hang":
        time.sleep(1000)
''')


@pytest.fixture
def agent(tmp_path):
    project = tmp_path / "proj"
    (project / ".planning").mkdir(parents=True)
    install = fake_install(tmp_path / "cfg", extra={"agents/msd-executor.md": "executor\n"})
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    pids = tmp_path / "pids"
    pids.mkdir()
    return project, install, script, pids


def _start(agent, how: str, timeout: str = "120"):
    project, install, script, pids = agent
    cmd = f"{sys.executable} {script} {pids} {how}"
    return subprocess.Popen([sys.executable, "-m", "msd_core", "chain", "execute-phase", "--root", str(install),
                             "--cwd", str(project), "--timeout", timeout, "--agent-cmd", cmd],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_ready(pids: Path, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and not (pids / "ready").exists():
        time.sleep(0.05)
    assert (pids / "ready").exists(), "the agent did not start its processes"


def _pids(pids: Path) -> dict[str, int]:
    return {n: int((pids / f"{n}.pid").read_text()) for n in ("in-group", "escaped")}


def _finish(proc: subprocess.Popen, found: dict[str, int], within: float) -> tuple[str, str]:
    """The chain's output once it and every holder of its pipes are gone; past `within` seconds, a
    failure that says who is still there (the chain itself, or a process of the step keeping its
    pipes open)."""
    try:
        return proc.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        alive = {name: pid for name, pid in found.items() if not _gone(pid, within=0.1)}
        raise AssertionError(f"the chain did not finish in {within:g}s: chain exit code {proc.poll()}, the step's "
                             f"processes still there {alive}") from None


def _cleanup(found: dict[str, int]) -> None:
    for pid in found.values():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_to_the_chain_ends_the_agent_and_everything_it_started(agent, sig):
    proc = _start(agent, "hang")
    found = {}
    try:
        _wait_ready(agent[3])
        found = _pids(agent[3])
        proc.send_signal(sig)
        _out, err = _finish(proc, found, 60)
        assert _gone(found["in-group"]), "the agent's group survived"
        if LINUX:
            assert _gone(found["escaped"]), "a process that left the group (setsid, double fork) survived"
        assert proc.returncode == (130 if sig == signal.SIGINT else 128 + sig), (proc.returncode, err)
        last = err.strip().splitlines()[-1]
        assert "Traceback" not in err
        if sig != signal.SIGINT:
            assert last == (f"msd chain: ended by {signal.Signals(sig).name}; the running agent and every process "
                            "it started were ended"), err
    finally:
        proc.kill()
        _cleanup(found)


@pytest.mark.skipif(not LINUX, reason="processes that leave the group are tracked on Linux only (subreaper)")
@pytest.mark.parametrize("how", ["hang", "exit"])
def test_a_process_that_left_the_group_does_not_survive_the_step(agent, how):
    """--timeout (hang) and a normal exit (exit) both end the escaped process."""
    proc = _start(agent, how, timeout="3")
    found = {}
    try:
        _out, err = proc.communicate(timeout=90)
        found = _pids(agent[3])
        assert _gone(found["in-group"]) and _gone(found["escaped"]), err
        assert proc.returncode == 1
    finally:
        proc.kill()
        _cleanup(found)


def test_other_children_of_the_chain_process_are_left_alone(tmp_path):
    """In-process: a child the caller had before the step (and its own children) is not the step's;
    the step's own escaped process is ended. Judged by this step's processes alone: the test process
    may hold others (a subreaper since an earlier in-process step, it adopts other tests' orphans)."""
    from msd_core.chain.agent_process import _below, _parents, run_agent, tracks_escapes

    mine = subprocess.Popen(["/bin/sh", "-c", "sleep 60 & wait"])
    escaped = tmp_path / "escaped.pid"
    agent = ("import os, sys, time\n"
             "if os.fork() == 0:\n"
             "    os.setsid(); open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60); os._exit(0)\n"
             "for _ in range(500):\n"
             "    if os.path.exists(sys.argv[1]) and open(sys.argv[1]).read(): break\n"
             "    time.sleep(0.01)\n")
    try:
        had = _below(os.getpid(), _parents()) if tracks_escapes() else set()
        code, timed_out = run_agent([sys.executable, "-c", agent, str(escaped)], stdin_text=None, cwd=str(tmp_path),
                                    env=dict(os.environ), timeout=30)
        assert (code, timed_out) == (0, False)
        assert mine.poll() is None, "a child the chain had before the step was ended"
        if tracks_escapes():
            assert _gone(int(escaped.read_text())), "the step's escaped process survived it"
            new = _below(os.getpid(), _parents(), exclude={mine.pid}) - had
            assert new == set(), "a process of the step is still below the chain"
    finally:
        mine.kill()
        mine.wait()


def test_the_guarantee_is_stated_per_platform():
    from msd_core.chain import agent_process

    doc = agent_process.__doc__
    assert "Linux" in doc and "PR_SET_CHILD_SUBREAPER" in doc and "macOS" in doc
    assert agent_process.tracks_escapes() == LINUX
