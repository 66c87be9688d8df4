"""`msd_run autonomous`: run discuss → plan → execute → verify; stop only on a failed gate or a human checkpoint."""

from __future__ import annotations

import os
import time

import pytest

from msd_core.progress.autonomous import decide
from tests.kit.lifecyclekit import as_json, msd_run

ROADMAP = "# Roadmap\n\n## Phases\n\n- [ ] **Phase 1: Core** - core\n- [ ] **Phase 2: Api** - api\n"


def _proj(tmp_path):
    root = tmp_path / "proj"
    for rel, text in {".planning/PROJECT.md": "# P\n", ".planning/ROADMAP.md": ROADMAP}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / ".planning/phases/01-core").mkdir(parents=True)
    return root


def _step(root, *extra):
    proc = msd_run(["autonomous", *extra], root)
    assert proc.returncode == 0, proc.stderr
    return as_json(proc)


def _touch(path, text, when=None):
    path.write_text(text)
    if when is not None:
        os.utime(path, (when, when))


def test_walks_a_phase_end_to_end_and_is_done_at_the_milestone(tmp_path):
    root = _proj(tmp_path)
    phase = root / ".planning/phases/01-core"
    assert _step(root) | {} and _step(root, "--reset")["command"] == "/msd-discuss-phase 1"
    (phase / "01-CONTEXT.md").write_text("ctx")
    assert _step(root)["command"] == "/msd-plan-phase 1"
    (phase / "01-01-PLAN.md").write_text("plan")
    assert _step(root)["command"] == "/msd-execute-phase 1"
    now = time.time()
    _touch(phase / "01-01-SUMMARY.md", "s", now)
    # summaries, no verification yet: execute-phase again (its verify step runs the verifier)
    out = _step(root)
    assert out["action"] == "run" and out["command"] == "/msd-execute-phase 1"
    _touch(phase / "01-VERIFICATION.md", "---\nstatus: passed\n---\n", now + 1)
    out = _step(root)
    assert out["command"] == "/msd-discuss-phase 2" and out["phase"] == "2"
    (root / ".planning/ROADMAP.md").write_text(ROADMAP.replace("[ ]", "[x]"))
    out = _step(root)
    assert out["action"] == "done" and out["command"] == "/msd-audit-milestone"


def test_human_checkpoint_stops(tmp_path):
    root = _proj(tmp_path)
    phase = root / ".planning/phases/01-core"
    (phase / "01-01-PLAN.md").write_text("plan")
    _touch(phase / "01-01-SUMMARY.md", "s", time.time())
    _touch(phase / "01-VERIFICATION.md", "---\nstatus: human_needed\n---\n", time.time() + 1)
    out = _step(root)
    assert out["action"] == "stop" and "human checkpoint" in out["why"] and out["command"] == "/msd-verify-work 1"


def test_gaps_are_fixed_at_most_max_rounds_then_stop(tmp_path):
    root = _proj(tmp_path)
    phase = root / ".planning/phases/01-core"
    (phase / "01-01-PLAN.md").write_text("plan")
    t = time.time()
    _touch(phase / "01-01-SUMMARY.md", "s", t)
    _touch(phase / "01-VERIFICATION.md", "---\nstatus: gaps_found\n---\n", t + 1)
    assert _step(root, "--max-gap-rounds", "1")["command"] == "/msd-plan-phase 1 --gaps"
    # the gap fix ran and was verified again: still gaps
    _touch(phase / "01-02-PLAN.md", "fix", t + 2)
    _touch(phase / "01-02-SUMMARY.md", "s", t + 3)
    _touch(phase / "01-VERIFICATION.md", "---\nstatus: gaps_found\n---\n", t + 4)
    out = _step(root, "--max-gap-rounds", "1")
    assert out["action"] == "stop" and "still has gaps after 1 rounds" in out["why"]


def test_no_progress_stops_the_run(tmp_path):
    root = _proj(tmp_path)
    (root / ".planning/phases/01-core/01-01-PLAN.md").write_text("plan")
    assert _step(root)["action"] == "run"
    assert _step(root)["action"] == "run"  # one retry (a resumed run)
    out = _step(root)
    assert out["action"] == "stop" and "made no progress" in out["why"]
    assert _step(root, "--reset")["action"] == "run"  # resumable afresh


def test_until_and_paused_and_damaged_memory(tmp_path):
    root = _proj(tmp_path)
    (root / ".planning/ROADMAP.md").write_text(ROADMAP.replace("- [ ] **Phase 1", "- [x] **Phase 1"))
    assert _step(root, "--until", "1")["action"] == "done"
    (root / ".planning/.continue-here.md").write_text("paused")
    out = _step(root)
    assert out["action"] == "stop" and out["route"] == "resume-work"
    (root / ".planning/.msd/autonomous.json").write_text("{torn")
    proc = msd_run(["autonomous"], root)
    assert proc.returncode == 1 and "damaged" in proc.stderr
    assert (root / ".planning/.msd/autonomous.json").read_text() == "{torn"
    assert msd_run(["autonomous", "--until", "x"], root).returncode == 2
    for bad in ('{"steps": "many"}', '{"gap_rounds": {"1": "x"}}', '[1]', '{"last": 5}'):
        (root / ".planning/.msd/autonomous.json").write_text(bad)
        proc = msd_run(["autonomous"], root)
        assert proc.returncode == 1 and "damaged" in proc.stderr and "internal error" not in proc.stderr, bad
    assert _step(root, "--reset")["action"] == "stop"  # --reset never reads the damaged file


@pytest.mark.parametrize("route", ["complete-milestone", "audit-milestone", "new-milestone"])
def test_milestone_end_is_done(route):
    assert decide({"route": route, "command": f"/msd-{route}"}, {}, 2, None)["action"] == "done"
