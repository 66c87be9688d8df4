"""run_agent with `capture`: an agent's stdout and stderr are read in bounded chunks and kept
within their caps, its stdin still gets the whole brief, and the time limit still ends it."""

from __future__ import annotations

import os
import sys
import time

from msd_core.chain.agent_process import Capped, run_agent

LOUD = """
import sys
brief = sys.stdin.read()
sys.stdout.write("got %d characters\\n" % len(brief))
for _ in range(8):
    sys.stdout.write("o" * (1 << 20))
    sys.stderr.write("e" * (1 << 20))
sys.stdout.write("\\nstdout end\\n")
sys.stderr.write("stderr end\\n")
"""


def test_a_loud_agent_is_kept_within_the_caps_and_reads_its_whole_brief(tmp_path):
    out, err, passed = Capped("stdout", 4096), Capped("stderr", 1024, forward=None), []
    err.forward = passed.append
    brief = "b" * 300_000  # more than a pipe holds: written while the output is read
    code, timed_out = run_agent([sys.executable, "-c", LOUD], stdin_text=brief, cwd=str(tmp_path), env=dict(os.environ),
                                timeout=60, capture=(out, err))
    assert (code, timed_out) == (0, False)
    text = out.data().decode()
    assert text.startswith("got 300000 characters\n") and text.endswith("stdout end\n")
    total_out = len("got 300000 characters\n") + 8 * (1 << 20) + len("\nstdout end\n")
    assert f"… {total_out - 4096:,} bytes of stdout cut …" in text and len(out.head) + len(out.tail) == 4096
    shown = b"".join(passed).decode()
    assert shown == err.data().decode() and shown.endswith("stderr end\n")
    assert f"… {8 * (1 << 20) + len('stderr end') + 1 - 1024:,} bytes of stderr cut …" in shown


def test_a_silent_agent_over_its_time_is_ended(tmp_path):
    out, err = Capped("stdout", 1024), Capped("stderr", 1024)
    t0 = time.monotonic()
    code, timed_out = run_agent([sys.executable, "-c", "import time; print('started', flush=True); time.sleep(60)"],
                                stdin_text=None, cwd=str(tmp_path), env=dict(os.environ), timeout=1, capture=(out, err))
    assert (code, timed_out) == (None, True) and time.monotonic() - t0 < 20
    assert out.data() == b"started\n"
