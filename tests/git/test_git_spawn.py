"""msd_core.lean.spawn and the git runner on it: the same answers as subprocess.run, no
deadlock on large output, a hung child killed at its time bound, no descriptor leaked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from msd_core.errors import OperationFailed
from msd_core.git import runner
from msd_core.lean import spawn
from tests.kit.gitkit import git as git_cli
from tests.kit.gitkit import new_repo

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fake git scripts and /proc are POSIX only")
LINUX_FDS = Path("/proc/self/fd")
LISTER = [sys.executable, "-c", "import json, os; print(json.dumps(sorted(int(f) for f in os.listdir('/proc/self/fd'))))"]


def _repo(tmp_path: Path) -> Path:
    root = new_repo(tmp_path / "r")
    (root / "a.txt").write_text("alpha\n")
    (root / "b dir").mkdir()
    (root / "b dir" / "ünï.txt").write_text("beta\r\nline\n")
    git_cli(root, "add", "-A")
    git_cli(root, "commit", "-q", "-m", "first")
    (root / "a.txt").write_text("alpha changed\n")
    return root


GIT_COMMANDS = [
    ["status", "--porcelain"],
    ["log", "--format=%H %s"],
    ["diff-tree", "--root", "--name-only", "-r", "-z", "HEAD"],
    ["diff"],
    ["show", "HEAD:b dir/ünï.txt"],  # \r\n in the output: text mode turns it into \n
    ["rev-parse", "--verify", "no-such-ref"],  # fails: exit 128, message on stderr
    ["ls-files", "--error-unmatch", "--", "missing.txt"],
    ["no-such-command"],
]


@pytest.mark.parametrize("args", GIT_COMMANDS, ids=lambda a: " ".join(a)[:30])
def test_git_answers_as_subprocess_run_does(tmp_path, args):
    root = _repo(tmp_path)
    expected = subprocess.run(["git", *args], cwd=str(root), env=runner._env(), capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)
    got = runner.git(args, root, check=False)
    assert (got.returncode, got.stdout, got.stderr) == (expected.returncode, expected.stdout, expected.stderr)
    assert isinstance(got, spawn.Completed)


def test_output_is_decoded_as_text_mode_does(tmp_path):
    code = "import sys; sys.stdout.buffer.write(b'a\\r\\nb\\rc\\n\\xc3\\xa9'); sys.stderr.buffer.write(b'e\\r\\n')"
    argv = [sys.executable, "-c", code]
    expected = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    got = spawn.run(argv, dict(os.environ), 60)
    assert (got.stdout, got.stderr) == (expected.stdout, expected.stderr) == ("a\nb\nc\né", "e\n")


def test_a_megabyte_on_both_pipes_does_not_deadlock():
    code = ("import sys\nfor i in range(16):\n    sys.stdout.write('o' * 65536)\n    sys.stdout.flush()\n"
            "    sys.stderr.write('e' * 65536)\n    sys.stderr.flush()\n")
    t0 = time.monotonic()
    got = spawn.run([sys.executable, "-c", code], dict(os.environ), 30)
    assert got.returncode == 0
    assert len(got.stdout) == len(got.stderr) == 1 << 20 and set(got.stdout) == {"o"} and set(got.stderr) == {"e"}
    assert time.monotonic() - t0 < 30


def test_a_signalled_child_has_a_negative_return_code():
    got = spawn.run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"],
                    dict(os.environ), 30)
    assert got.returncode == -15


def test_sigpipe_and_sigxfsz_are_default_in_the_child_as_with_restore_signals():
    """Python ignores SIGPIPE; like subprocess (restore_signals), the child gets it back."""
    if not Path("/proc/self/status").is_file():
        pytest.skip("needs /proc to read the child's ignored signals")
    argv = ["grep", "^SigIgn", "/proc/self/status"]
    expected = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30).stdout
    got = spawn.run(argv, dict(os.environ), 30).stdout
    classic = (1 << 31) - 1  # signals 1-31 (glibc's posix_spawn ignores its own internal 32 and 33 in the child)
    assert int(got.split()[1], 16) & classic == int(expected.split()[1], 16) & classic
    assert not int(got.split()[1], 16) & ((1 << 12) | (1 << 24))  # SIGPIPE (13), SIGXFSZ (25) not ignored
    no_restore = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30,
                                restore_signals=False).stdout
    assert int(no_restore.split()[1], 16) & (1 << 12)  # the fixture: without the reset it would be ignored


def test_stdin_is_empty():
    got = spawn.run([sys.executable, "-c", "import sys; print(repr(sys.stdin.read()))"], dict(os.environ), 30)
    assert got.stdout == "''\n"


def _fake_git(tmp_path: Path, body: str) -> Path:
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    script = bindir / "git"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return bindir


def test_a_hung_git_is_killed_at_its_time_bound(tmp_path, monkeypatch):
    pidfile = tmp_path / "pid"
    bindir = _fake_git(tmp_path, f'echo $$ > "{pidfile}"\nexec sleep 30\n')
    monkeypatch.setenv("PATH", str(bindir) + os.pathsep + os.environ["PATH"])
    t0 = time.monotonic()
    with pytest.raises(OperationFailed, match=r"`git status` did not finish within 0.5s"):
        runner.git(["status"], tmp_path, timeout=0.5)
    assert time.monotonic() - t0 < 10
    pid = int(pidfile.read_text())
    with pytest.raises(ProcessLookupError):  # killed and reaped: no such process any more
        os.kill(pid, 0)


def test_a_child_that_closes_its_pipes_but_runs_on_still_meets_the_bound(tmp_path, monkeypatch):
    bindir = _fake_git(tmp_path, "exec >/dev/null 2>&1\nexec sleep 30\n")
    monkeypatch.setenv("PATH", str(bindir) + os.pathsep + os.environ["PATH"])
    t0 = time.monotonic()
    with pytest.raises(OperationFailed, match="did not finish within"):
        runner.git(["status"], tmp_path, timeout=0.5)
    assert time.monotonic() - t0 < 10


def test_git_missing_is_one_clear_error(tmp_path, monkeypatch):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(OperationFailed, match="git is not installed"):
        runner.git(["status"], tmp_path)


def test_input_text_still_reaches_git(tmp_path):
    root = _repo(tmp_path)
    head = git_cli(root, "rev-parse", "HEAD").strip()
    assert runner.git(["rev-list", "--stdin"], root, input_text="HEAD\n").stdout.split() == [head]


def _open_fds() -> set[str]:
    return set(os.listdir(LINUX_FDS)) if LINUX_FDS.is_dir() else set(os.listdir("/dev/fd"))


def test_no_descriptor_is_left_open_across_runs(tmp_path):
    root = _repo(tmp_path)
    runner.git(["rev-parse", "HEAD"], root)  # anything loaded once (modules) is loaded now
    before = _open_fds()
    for _ in range(50):
        runner.git(["rev-parse", "HEAD"], root)
        runner.git(["rev-parse", "--verify", "nope"], root, check=False)
    assert _open_fds() == before


def test_concurrent_threads_get_their_own_answers_and_no_other_pipes(tmp_path):
    """Children started at once from several threads (the MCP server) each get their own
    output, and none inherits another's pipe: a child sees only 0, 1 and 2."""
    if not LINUX_FDS.is_dir():
        pytest.skip("needs /proc/self/fd")
    root = _repo(tmp_path)
    head = git_cli(root, "rev-parse", "HEAD").strip()
    lister = LISTER
    errors: list[str] = []

    def work(i: int) -> None:
        try:
            for _ in range(5):
                if i % 2:
                    got = runner.git(["rev-parse", "HEAD"], root).stdout.strip()
                    if got != head:
                        errors.append(f"thread {i}: {got!r}")
                else:
                    fds = json.loads(spawn.run(lister, dict(os.environ), 30).stdout)
                    # 0-2, and the descriptor the listing itself opened
                    if fds[:3] != [0, 1, 2] or len(fds) > 4:
                        errors.append(f"thread {i}: child saw {fds}")
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(f"thread {i}: {exc!r}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert errors == []


def test_an_interrupted_wait_kills_and_reaps_the_child(tmp_path, monkeypatch):
    pidfile = tmp_path / "pid"
    code = f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); print('x', flush=True); time.sleep(30)"
    import select

    real_poll = select.poll

    class Interrupting:
        def __init__(self):
            self.p = real_poll()
            self.calls = 0

        def register(self, *a):
            self.p.register(*a)

        def unregister(self, *a):
            self.p.unregister(*a)

        def poll(self, ms):
            self.calls += 1
            if self.calls > 1 and pidfile.exists():
                raise KeyboardInterrupt
            return self.p.poll(ms)

    monkeypatch.setattr(select, "poll", Interrupting)
    with pytest.raises(KeyboardInterrupt):
        spawn.run([sys.executable, "-c", code], dict(os.environ), 30)
    with pytest.raises(ProcessLookupError):
        os.kill(int(pidfile.read_text()), 0)


def test_an_inheritable_descriptor_of_the_parent_never_reaches_the_child():
    """subprocess closes them (close_fds); so does spawn: a host's pipe leaked into msd_run
    must not stay open in git or in a process git leaves running."""
    if not LINUX_FDS.is_dir():
        pytest.skip("needs /proc/self/fd")
    r, w = os.pipe()
    try:
        os.set_inheritable(w, True)
        seen = json.loads(spawn.run(LISTER, dict(os.environ), 30).stdout)
        assert w not in seen and r not in seen
        forked = json.loads(subprocess.run(LISTER, capture_output=True, text=True, close_fds=False,
                                           stdin=subprocess.DEVNULL, timeout=30).stdout)
        assert w in forked  # the fixture: a child that keeps inherited descriptors does see it
    finally:
        os.close(r)
        os.close(w)


def test_a_missing_working_folder_is_git_s_own_error_not_a_missing_git(tmp_path):
    got = runner.git(["status"], tmp_path / "gone", check=False)
    assert got.returncode == 128 and "cannot change to" in got.stderr
    with pytest.raises(OperationFailed, match="cannot change to"):
        runner.git(["status"], tmp_path / "gone")


def test_without_posix_spawn_the_same_answer_comes_through_subprocess(tmp_path, monkeypatch):
    root = _repo(tmp_path)
    spawned = runner.git(["status", "--porcelain"], root)
    monkeypatch.delattr(os, "posix_spawnp")
    fallback = runner.git(["status", "--porcelain"], root)
    assert (fallback.returncode, fallback.stdout, fallback.stderr) == (spawned.returncode, spawned.stdout, spawned.stderr)
    assert "a.txt" in fallback.stdout
    bindir = _fake_git(tmp_path, "exec sleep 30\n")
    monkeypatch.setenv("PATH", str(bindir) + os.pathsep + os.environ["PATH"])
    with pytest.raises(OperationFailed, match="did not finish within"):
        runner.git(["status"], tmp_path, timeout=0.5)


# --- start: the child runs while the caller works ---------------------------------------------

def test_start_returns_at_once_and_wait_gives_what_run_gives(tmp_path):
    code = "import sys, time; time.sleep(0.4); print('out'); print('err', file=sys.stderr); sys.exit(3)"
    t0 = time.monotonic()
    running = spawn.start([sys.executable, "-c", code], dict(os.environ), 30)
    started = time.monotonic() - t0
    got = running.wait()
    assert started < 0.3 <= time.monotonic() - t0
    assert (got.returncode, got.stdout, got.stderr) == (3, "out\n", "err\n")
    assert running.wait() is got  # collected once
    with pytest.raises(ChildProcessError):
        os.waitpid(running.pid, os.WNOHANG)  # reaped


def test_output_waits_in_the_pipes_while_the_caller_works():
    code = "import sys; sys.stdout.write('o' * 1_000_000); sys.stderr.write('e' * 1_000_000)"
    with spawn.start([sys.executable, "-c", code], dict(os.environ), 30) as running:
        time.sleep(0.2)  # the child fills both pipes and pauses: no deadlock, nothing lost
    got = running.wait()
    assert (len(got.stdout), len(got.stderr), got.returncode) == (1_000_000, 1_000_000, 0)


def test_a_with_block_collects_the_child_when_the_caller_raises():
    with pytest.raises(ValueError):
        with spawn.start([sys.executable, "-c", "import time; time.sleep(0.2); print('done')"], dict(os.environ),
                         30) as running:
            raise ValueError("the caller's own work failed")
    assert running.wait().stdout == "done\n"  # waited for, not killed
    with pytest.raises(ChildProcessError):
        os.waitpid(running.pid, os.WNOHANG)


def test_the_time_bound_runs_from_start(tmp_path):
    pidfile = tmp_path / "pid"
    code = f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(30)"
    running = spawn.start([sys.executable, "-c", code], dict(os.environ), 0.5)
    time.sleep(0.6)  # the caller's work outlasts the bound
    t0 = time.monotonic()
    with pytest.raises(spawn.Timeout):
        running.wait()
    assert time.monotonic() - t0 < 1.0
    with pytest.raises(ProcessLookupError):
        os.kill(int(pidfile.read_text()), 0)


def test_git_start_answers_as_git_and_waits_out_a_held_index_lock(tmp_path):
    root = _repo(tmp_path)
    with runner.git_start(["status", "--porcelain"], root) as started:
        pass
    plain = runner.git(["status", "--porcelain"], root)
    assert (started.result().returncode, started.result().stdout) == (plain.returncode, plain.stdout)
    lock = root / ".git" / "index.lock"
    lock.write_text("")
    threading.Timer(0.4, lock.unlink).start()  # a hand-run git lets go of the index
    (root / "c.txt").write_text("gamma\n")
    with runner.git_start(["add", "--", "c.txt"], root, lock_wait=5) as adding:
        pass
    assert adding.result().returncode == 0, adding.result().stderr
    assert "c.txt" in runner.git(["diff", "--cached", "--name-only"], root).stdout
    # without lock_wait the refusal is git's own
    lock.write_text("")
    try:
        refused = runner.git_start(["add", "--", "a.txt"], root).result()
        assert refused.returncode != 0 and "index.lock" in refused.stderr
    finally:
        lock.unlink()


def test_git_start_missing_git_and_no_posix_spawn(tmp_path, monkeypatch):
    root = _repo(tmp_path)
    want = runner.git(["status", "--porcelain"], root)
    monkeypatch.delattr(os, "posix_spawnp")
    deferred = runner.git_start(["status", "--porcelain"], root)
    assert (deferred.result().returncode, deferred.result().stdout) == (want.returncode, want.stdout)
    monkeypatch.undo()
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(OperationFailed, match="git is not installed"):
        runner.git_start(["status"], root)
