"""A dependency on a phase of another root whose milestone was completed (its phases archived)."""

from __future__ import annotations

import json
import shutil

from tests.kit.gitkit import git, run_msd
from tests.kit.rootskit import roadmap, three_roots


def test_a_phase_archived_by_a_completed_milestone_is_done_for_the_roots_that_wait_on_it(tmp_path):
    top = three_roots(tmp_path / "mono", api_stage="verified")  # apps/web's phase 1 depends on services/api's phase 1
    web = top / "apps" / "web"
    assert json.loads(run_msd(["next"], web).stdout)["command"] == "/msd-execute-phase 1"
    # services/api completes its milestone: phase 1's folder goes to the archive, ROADMAP.md lists the next milestone's
    planning = top / "services/api/.planning"
    (planning / "milestones").mkdir()
    shutil.move(planning / "phases/01-part", planning / "milestones/v1.0-phases/01-part")
    (planning / "ROADMAP.md").write_text(roadmap({"2": "new"}, {}))
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "api: v1.0 complete")
    nxt = json.loads(run_msd(["next"], web).stdout)
    assert nxt["command"] == "/msd-execute-phase 1" and nxt["route"] != "wait-for-root", nxt
    assert run_msd(["wave", "plan", "--phase-dir", "01-part"], web).returncode == 0
    # a phase no milestone of services/api ever had is still missing
    road = web / ".planning/ROADMAP.md"
    road.write_text(road.read_text().replace("Phase 1 of services/api", "Phase 7 of services/api"))
    nxt = json.loads(run_msd(["next"], web).stdout)
    assert nxt["command"] == "/msd-health" and "lists no phase 7" in nxt["reason"], nxt
