"""`msd_run commit --plan` in a `.planning/` root below the git work tree's top (several projects in one repository)."""

from __future__ import annotations

import json

from tests.kit.gitkit import git, run_msd
from tests.kit.rootskit import three_roots

PLAN = "---\nphase: 01-part\nplan: 1\nwave: 1\nfiles_modified: [src/api.py, lib/]\n---\n# Plan\n"


def test_a_plan_of_a_subfolder_root_commits_its_files_and_records_them_there(tmp_path):
    top = three_roots(tmp_path / "mono")
    api = top / "services" / "api"
    (api / ".planning/phases/01-part/01-01-PLAN.md").write_text(PLAN)
    (api / "src").mkdir()
    (api / "src/api.py").write_text("api = 1\n")
    (api / "lib").mkdir()
    (api / "lib/x.py").write_text("x = 1\n")
    proc = run_msd(["commit", "--plan", ".planning/phases/01-part/01-01-PLAN.md", "--files", "src/api.py", "lib/x.py",
                    "-m", "feat(01-01): the api"], api)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert sorted(out["files"]) == ["services/api/lib/x.py", "services/api/src/api.py"]
    # the run record is the api's, not the repository top's project's
    assert (api / ".planning/.msd/runs/01-part__01-01.json").is_file()
    assert not (top / ".planning/.msd/runs").exists()
    # the plan's own files only: a file of another root is outside it
    (top / "apps/web/src").mkdir(parents=True)
    (top / "apps/web/src/w.py").write_text("w\n")
    proc = run_msd(["commit", "--plan", ".planning/phases/01-part/01-01-PLAN.md", "--files", "../../apps/web/src/w.py",
                    "-m", "feat(01-01): not mine"], api)
    assert proc.returncode == 1 and "not in plan 01-01's files_modified: apps/web/src/w.py" in proc.stderr
    assert git(top, "status", "--porcelain", "--", "apps/web").strip() == "?? apps/web/src/"


def test_its_summary_counts_as_proven_by_those_commits(tmp_path):
    top = three_roots(tmp_path / "mono")
    api = top / "services" / "api"
    (api / ".planning/phases/01-part/01-01-PLAN.md").write_text(PLAN.replace(", lib/", ""))
    (api / "src").mkdir()
    (api / "src/api.py").write_text("api = 1\n")
    assert run_msd(["commit", "--plan", ".planning/phases/01-part/01-01-PLAN.md", "--files", "src/api.py",
                    "-m", "feat(01-01): the api"], api).returncode == 0
    (api / ".planning/phases/01-part/01-01-SUMMARY.md").write_text("---\nphase: 01-part\nplan: 1\n---\n# Summary\n")
    out = json.loads(run_msd(["wave", "plan", "--phase-dir", "01-part"], api).stdout)
    plan = out["plans"][0]
    assert plan["complete"] is True and "unproven" not in plan, plan
    assert json.loads(run_msd(["next"], api).stdout)["route"] == "verify-work"
