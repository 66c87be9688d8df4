"""msd_run's process handling (msd_core.run.entry): the fast exit loses no output, runs
atexit handlers and finalizers, waits for a thread left running, and turns an undeliverable
output into one line (a full disk) or nothing (a reader that went away)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import repo_env

REPO = Path(__file__).resolve().parents[2]


def _python(code: str, tmp_path: Path, **kw) -> subprocess.CompletedProcess:
    env = repo_env()
    return subprocess.run([sys.executable, "-c", code], cwd=str(tmp_path), env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=60, **kw)


def test_buffered_output_is_delivered_whole(tmp_path):
    r = _python("import sys\nfrom msd_core.run.entry import leave\nsys.stdout.write('x' * 2_000_000)\nleave(0)\n",
                tmp_path)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout) == 2_000_000


def test_exit_code_is_the_commands(tmp_path):
    r = _python("from msd_core.run.entry import leave\nprint('partial')\nleave(4)\n", tmp_path)
    assert (r.returncode, r.stdout) == (4, b"partial\n")


def test_atexit_handlers_and_finalizers_run(tmp_path):
    mark = tmp_path / "ran"
    code = ("import atexit, tempfile\nfrom msd_core.run.entry import leave\n"
            f"atexit.register(lambda: open({str(mark)!r}, 'w').write('ran'))\n"
            "d = tempfile.TemporaryDirectory(dir='.')\nopen(d.name + '/f', 'w').close()\nprint(d.name)\nleave(0)\n")
    r = _python(code, tmp_path)
    assert r.returncode == 0, r.stderr
    assert mark.read_text() == "ran"
    left = Path(r.stdout.decode().strip())
    assert left.name and not (tmp_path / left).exists()  # TemporaryDirectory's finalizer removed it


def test_a_thread_left_running_is_waited_for(tmp_path):
    mark = tmp_path / "done"
    code = ("import threading, time\nfrom msd_core.run.entry import leave\n"
            f"t = threading.Thread(target=lambda: (time.sleep(0.3), open({str(mark)!r}, 'w').write('done')))\n"
            "t.start()\nleave(0)\n")
    r = _python(code, tmp_path)
    assert r.returncode == 0, r.stderr
    assert mark.read_text() == "done"


def test_full_disk_behind_stdout_is_one_line_and_exit_1(tmp_path):
    if not os.path.exists("/dev/full"):
        import pytest

        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "msd_core.run", "--help"], cwd=str(tmp_path), stdout=full,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=60,
                           env=repo_env())
    lines = r.stderr.decode().splitlines()
    assert r.returncode == 1
    assert len(lines) == 1 and lines[0].startswith("msd_run: could not write the output"), lines
    # a command's own output: the command reports the failed write once, the exit adds nothing
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "msd_core.run", "config", "list", "--cwd", str(tmp_path)],
                           cwd=str(tmp_path), stdout=full, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                           timeout=60, env=repo_env())
    lines = r.stderr.decode().splitlines()
    assert r.returncode != 0 and len(lines) == 1 and ("disk full" in lines[0] or "No space" in lines[0]), lines


def test_reader_gone_is_no_traceback_and_keeps_the_code(tmp_path):
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will read: every write fails with EPIPE
    try:
        r = subprocess.run([sys.executable, "-m", "msd_core.run", "--help"], cwd=str(tmp_path), stdout=write_end,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=60,
                           env=repo_env())
    finally:
        os.close(write_end)
    assert r.returncode == 0
    assert r.stderr == b""


def test_console_script_targets_the_process_entry():
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'msd_run = "msd_core.run.entry:main"' in text
    main_py = (REPO / "msd_core" / "run" / "__main__.py").read_text(encoding="utf-8")
    assert "msd_core.run.entry" in main_py
