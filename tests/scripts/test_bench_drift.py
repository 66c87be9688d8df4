"""scripts/bench_drift.py builds its history and times drift against next (small: one round).
Timing is not asserted: the script prints it, tests never time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_bench_drift_builds_a_history_and_reads_all_of_it():
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "bench_drift.py"), "--commits", "80", "--phases", "2",
                        "--runs", "1", "--json"], cwd=str(REPO), stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    assert out["commits"] == 80 and out["plans"] == 6
    assert out["commits_read"] == 78  # from the first msd commit (the two commits before it are not read)
    assert out["drift_s"] > 0 and out["next_s"] > 0 and out["by_kind"].get("outside-commit", 0) > 0
    assert out["next_cold_s"] > 0 and out["statusline_s"] > 0 and out["code"] == str(REPO)
    # next's first call after one new commit and next without drift, as ratios of the same rounds
    assert out["next_first_s"] > 0 and out["next_no_drift_s"] > 0
    assert set(out["vs_no_drift"]) == {"next_kept", "next_first_after_commit", "next_full_recompute"}
