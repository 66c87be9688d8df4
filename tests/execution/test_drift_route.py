"""`msd_run next` routes to a drift review when drift makes its proposal wrong; the status line shows
the count kept for HEAD (issue 49, item 1: msd_core.execution.drift_route, msd_core.planning.drift_count).

Real git histories again (tests/execution/test_drift.py's helpers): phase 1 built by msd and verified,
then changed outside the workflow, by msd's own later commit, or renamed under a plan not yet run.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from tests.execution.test_drift import MUST, PLAN_REF, commit, git, project
from tests.execution.test_plan_check import plan

ROADMAP2 = """# Roadmap

## Phases

- [ ] Phase 1: Core — habits
- [ ] Phase 2: Reports

### Phase 1: Core
Goal: habits can be created
Requirements: HABIT-01, HABIT-02
Plans: TBD

### Phase 2: Reports
Goal: habits are reported
Requirements: REP-01
Plans: TBD
"""


def nxt(msd_run, root: Path, **kw) -> dict:
    r = msd_run(["next"], cwd=root, **kw)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def hotfix(root: Path) -> str:
    return commit(root, "fix: hotfix", {"src/habits.py": "def create(n):\n    return n.strip()\n"})


def test_no_drift_leaves_the_proposal_alone(msd_run, tmp_path):
    root = project(tmp_path)
    out = nxt(msd_run, root)
    assert out["route"] == "audit-milestone" and "drift" not in out and "proposed" not in out


def test_a_stale_verification_of_a_phase_next_calls_done_routes_to_the_review(msd_run, tmp_path):
    root = project(tmp_path)
    fix = hotfix(root)
    out = nxt(msd_run, root)
    assert out["route"] == "review-drift" and out["command"] == "/msd-verify-work 01"
    assert out["proposed"] == {"route": "audit-milestone", "command": "/msd-audit-milestone"}
    assert "msd_run drift --text" in out["reason"] and "msd_run drift accept" in out["reason"]
    assert out["drift"]["count"] == 2 and out["drift"]["findings"][0]["kind"] == "stale-verification"
    r = msd_run(["next", "--raw"], cwd=root)
    assert r.stdout.strip() == "/msd-verify-work 01"
    # accepted with a reason (not yet committed): the kept figure no longer matches, next proposes again
    assert msd_run(["drift", "accept", fix, "--reason", "reviewed hotfix"], cwd=root).returncode == 0
    assert nxt(msd_run, root)["route"] == "audit-milestone"


def test_msds_own_later_commit_on_a_verified_file_is_counted_not_routed(msd_run, tmp_path):
    root = project(tmp_path)
    commit(root, "feat(01-01): more", {"src/habits.py": "def create(n):\n    return n or 0\n"}, PLAN_REF)
    out = nxt(msd_run, root)
    assert out["route"] == "audit-milestone" and out["drift"] == {"count": 1, "review": "msd_run drift --text"}


def test_a_plan_whose_declared_file_was_renamed_is_not_executed_blind(msd_run, tmp_path):
    root = project(tmp_path)
    commit(root, "docs: phase 2", {".planning/ROADMAP.md": ROADMAP2,
                                   ".planning/phases/02-reports/02-01-PLAN.md":
                                       plan(pid="02-01", files=("src/habits.py", "src/report.py"), reqs=("REP-01",),
                                            must=MUST).replace("phase: 01-core", "phase: 02-reports")})
    assert nxt(msd_run, root)["route"] == "execute-phase"
    git(root, "mv", "src/habits.py", "src/store.py")
    commit(root, "refactor: rename by hand")
    out = nxt(msd_run, root)
    assert out["route"] == "review-drift" and out["proposed"]["route"] == "execute-phase"
    kinds = [f["kind"] for f in out["drift"]["findings"]]
    assert "missing-file" in kinds and out["command"] in ("/msd-verify-work 01", "/msd-plan-phase 01 --gaps")
    assert any(f["kind"] == "missing-file" and f["phase"] == "02" and f["command"] == "/msd-plan-phase 02 --gaps"
               for f in out["drift"]["findings"])


def test_the_figure_is_kept_by_head_and_a_broken_cache_is_computed_again(msd_run, tmp_path):
    root = project(tmp_path)
    hotfix(root)
    kept = root / ".planning/.msd/drift.json"
    assert nxt(msd_run, root)["route"] == "review-drift"
    doc = json.loads(kept.read_text())
    assert doc["head"] == git(root, "rev-parse", "HEAD") and doc["count"] == 2
    # a figure for this HEAD is believed (next reads it, computes nothing): a planted one proves it
    kept.write_text(json.dumps({**doc, "count": 0, "findings": [], "outside": []}))
    assert nxt(msd_run, root)["route"] == "audit-milestone"
    for junk in ("{not json", "[1]", json.dumps({**doc, "count": -3}), json.dumps({**doc, "head": "0" * 40})):
        kept.write_text(junk)
        assert nxt(msd_run, root)["route"] == "review-drift", junk
    kept.unlink()
    kept.mkdir()  # not a file: the cache is skipped, next still answers
    out = nxt(msd_run, root)
    assert out["route"] == "review-drift"


def test_next_outside_git_is_unchanged(msd_run, tmp_path):
    root = tmp_path / "q"
    (root / ".planning").mkdir(parents=True)
    from tests.execution.test_plan_check import ROADMAP

    (root / ".planning/ROADMAP.md").write_text(ROADMAP)
    out = nxt(msd_run, root)
    assert out["route"] == "discuss-phase" and "drift" not in out


def _no_git_path(tmp_path: Path) -> tuple[dict, Path]:
    """A PATH whose `git` records that it ran (the status line must never start one)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "git-ran"
    fake = bin_dir / "git"
    fake.write_text(f"#!/bin/sh\necho ran >> {marker}\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}, marker


def test_the_status_line_shows_the_count_kept_for_head_and_starts_no_git(msd_run, tmp_path):
    root = project(tmp_path)
    hotfix(root)
    payload = json.dumps({"cwd": str(root), "context_window": {"used_percentage": 10}})
    env, marker = _no_git_path(tmp_path)
    r = msd_run(["statusline"], cwd=root, input=payload, env=env)
    assert r.returncode == 0 and "drift" not in r.stdout  # nothing counted yet: nothing shown, nothing computed
    assert msd_run(["drift"], cwd=root).returncode == 0
    r = msd_run(["statusline"], cwd=root, input=payload, env=env)
    assert r.returncode == 0 and r.stdout == "msd · ctx 10% · drift 2\n", r.stdout
    commit(root, "docs: notes", {".planning/notes.md": "x\n"})  # another HEAD: the figure is not shown for it
    r = msd_run(["statusline"], cwd=root, input=payload, env=env)
    assert r.returncode == 0 and "drift" not in r.stdout
    assert not marker.exists()


def test_drift_that_cannot_be_read_leaves_the_proposal_with_a_note(msd_run, tmp_path):
    root = project(tmp_path)
    hotfix(root)
    (tmp_path / "elsewhere.md").write_text("- " + "a" * 40 + " x\n")
    (root / ".planning" / "drift-accepted.md").symlink_to(tmp_path / "elsewhere.md")
    out = nxt(msd_run, root)
    assert out["route"] == "audit-milestone" and "drift" not in out
    assert any(n.startswith("drift not read (") and "symlink" in n for n in out["notes"]), out.get("notes")


def test_a_file_msds_undo_took_back_does_not_stop_the_plan_that_makes_it(msd_run, tmp_path):
    root = project(tmp_path)
    commit(root, "docs: phase 2", {".planning/ROADMAP.md": ROADMAP2,
                                   ".planning/phases/02-reports/02-01-PLAN.md":
                                       plan(pid="02-01", files=("src/report.py",), reqs=("REP-01",),
                                            must="").replace("phase: 01-core", "phase: 02-reports")})
    commit(root, "feat(02-01): report", {"src/report.py": "r = 1\n"}, "02-reports/02-01")
    commit(root, "revert(02-01): undo plan 02-01", {"src/report.py": None})  # msd_run undo's subject
    out = nxt(msd_run, root)
    assert out["route"] == "execute-phase" and out["drift"]["count"] >= 1  # counted (missing-file), not routed
