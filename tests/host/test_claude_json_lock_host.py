"""~/.claude.json written by msd and by the real `claude` at the same time: nobody's update is
lost (issue 29 item 2). Claude Code 2.1.332 saves the file under a lock folder
`~/.claude.json.lock` (mkdir; seen with strace), re-reading the file under it; msd's edit
(msd_core/runtimes/claude_json.py) holds that same folder and re-reads under it.

- while msd holds the lock, `claude mcp add` waits for it and then saves (both entries there);
- `claude mcp add` runs and msd edits run at the same time, repeatedly: every server claude
  added and every key msd added are in the file at the end (an msd edit every 0.1 s: edits
  back to back, every 10 ms, kept the lock busy enough that a claude on a loaded machine gave up
  after its ~13 s of retries, so msd never edits in a loop);
- the fixture that shows the check can fail: a writer that reads, lets claude save, and writes
  its old copy back without the lock loses claude's server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import hostkit
import pytest

EDITOR = r"""
import os, sys, time
from pathlib import Path
from msd_core.runtimes import claude_json as cjson
path, stop = Path(sys.argv[1]), sys.argv[2]
n = 0
while not os.path.exists(stop) and n < 600:  # bounded: stops when told, or after 600 edits
    def change(obj, key=f"k{n}"):
        obj.setdefault("msdLockProbe", {})[key] = True
        return "added"
    cjson.edit_json(path, change)
    n += 1
    time.sleep(0.1)  # an edit every tenth of a second: far more often than msd ever edits the file
print(n)
"""


def _claude(host: hostkit.Host, *args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    env = host.env()
    env["ANTHROPIC_API_KEY"] = "sk-ant-msd-host-test-dummy"
    return subprocess.run([str(host.claude), *args], cwd=str(host.project), env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def _servers(path: Path) -> set[str]:
    return set(json.loads(path.read_text()).get("mcpServers", {}))


def test_claude_waits_for_the_lock_msd_holds(host):
    cfg = host.home / ".claude.json"
    cfg.write_text('{"numStartups": 1}\n')
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from pathlib import Path; from msd_core.runtimes import claude_json as c\n"
        "with c.host_lock(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(3)\n"
        "print('released', time.time(), flush=True)\n"), str(cfg)], stdout=subprocess.PIPE, text=True, env={**os.environ, "HOME": str(host.home)})
    assert holder.stdout.readline().strip() == "held"
    t0 = time.time()
    r = _claude(host, "mcp", "add", "--scope", "user", "waited", "--", "/bin/echo", "hi")
    released = float(holder.stdout.readline().split()[1])
    holder.wait(timeout=30)
    assert r.returncode == 0, r.stderr
    assert cfg.stat().st_mtime >= released - 0.05  # saved after msd let go, not over msd's edit
    assert time.time() - t0 >= 2.0 and "waited" in _servers(cfg)


def test_claude_and_msd_editing_at_once_lose_nothing(host):
    cfg = host.home / ".claude.json"
    cfg.write_text('{"numStartups": 1}\n')
    rounds = 5
    stop = host.root / "stop-editing"
    editor = subprocess.Popen([sys.executable, "-c", EDITOR, str(cfg), str(stop)], env={**os.environ, "HOME": str(host.home)},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    try:
        for i in range(rounds):  # msd edits the file all the while
            r = _claude(host, "mcp", "add", "--scope", "user", f"srv{i}", "--", "/bin/echo", str(i))
            assert r.returncode == 0, r.stderr
            assert time.monotonic() < deadline
    finally:
        stop.write_text("")
        out, err = editor.communicate(timeout=120)
    assert editor.returncode == 0, err
    edits = int(out.strip())
    obj = json.loads(cfg.read_text())
    assert {f"srv{i}" for i in range(rounds)} <= set(obj.get("mcpServers", {}))
    assert edits > 5 and set(obj["msdLockProbe"]) == {f"k{n}" for n in range(edits)}


def test_a_writer_without_the_lock_loses_claudes_update(host):
    """What the two tests above guard against, shown: read, claude saves, write the old copy back."""
    cfg = host.home / ".claude.json"
    cfg.write_text('{"numStartups": 1}\n')
    stale = json.loads(cfg.read_text())
    r = _claude(host, "mcp", "add", "--scope", "user", "lost", "--", "/bin/echo", "hi")
    assert r.returncode == 0 and "lost" in _servers(cfg)
    stale["mine"] = True
    cfg.write_text(json.dumps(stale))
    assert "lost" not in _servers(cfg)


@pytest.mark.skipif(not os.path.exists("/usr/bin/strace"), reason="strace shows which lock the host takes")
def test_the_lock_is_the_folder_claude_makes(host):
    cfg = host.home / ".claude.json"
    cfg.write_text('{"numStartups": 1}\n')
    log = host.root / "strace.txt"
    env = host.env()
    env["ANTHROPIC_API_KEY"] = "sk-ant-msd-host-test-dummy"
    r = subprocess.run(["strace", "-f", "-qq", "-o", str(log), "-e", "trace=mkdir,mkdirat,rename,renameat,renameat2,rmdir,flock",
                        str(host.claude), "mcp", "add", "--scope", "user", "traced", "--", "/bin/echo"],
                       cwd=str(host.project), env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    trace = log.read_text()
    from msd_core.runtimes.claude_json import host_lock  # noqa: F401 - the lock msd takes: <file>.lock, a folder

    lock = f'"{cfg}.lock"'
    assert f"mkdir({lock}, 0777) = 0" in trace and f"rmdir({lock}) = 0" in trace
    assert f'rename("{cfg}.tmp.' in trace and "flock(" not in trace
