"""`Msd-Plan:` trailers in a repository of several `.planning/` roots: two roots may both hold `01-part/01-01`,
and a commit proves a plan of its own root only (`Msd-Root:`, msd_core.git.trailers.plans_of)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.kit.gitkit import git, new_repo, run_msd
from tests.kit.rootskit import root, three_roots

PLAN = "---\nphase: 01-part\nplan: 1\nwave: 1\nfiles_modified: [src/{name}.py]\n---\n# Plan\n"
SUMMARY = "---\nphase: 01-part\nplan: 1\n---\n# Summary\n"


def complete(project: Path) -> dict[str, bool]:
    proc = run_msd(["wave", "plan", "--phase-dir", "01-part"], project)
    assert proc.returncode == 0, proc.stderr
    return {p["id"]: p["complete"] for p in json.loads(proc.stdout)["plans"]}


def commit_plan(project: Path, name: str, extra: list[str] = ()) -> str:
    (project / "src").mkdir(exist_ok=True)
    (project / f"src/{name}.py").write_text(f"{name} = 1\n")
    proc = run_msd(["commit", "--plan", ".planning/phases/01-part/01-01-PLAN.md", "--files", f"src/{name}.py",
                    "-m", f"feat(01-01): {name}", *extra], project)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hash"]


def two_roots_same_plan(tmp_path: Path) -> tuple[Path, Path]:
    """The top's and services/api's phase 1 each hold plan 01-01 (declaring src/<name>.py), neither executed."""
    top = three_roots(tmp_path / "mono")
    api = top / "services" / "api"
    for project, name in ((top, "core"), (api, "api")):
        folder = project / ".planning/phases/01-part"
        (folder / "01-01-PLAN.md").write_text(PLAN.format(name=name))
        for leftover in ("01-01-SUMMARY.md", "01-VERIFICATION.md"):
            (folder / leftover).unlink(missing_ok=True)
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "both planned")
    return top, api


def test_a_commit_for_one_roots_plan_does_not_prove_the_same_plan_id_in_another(tmp_path):
    top, api = two_roots_same_plan(tmp_path)
    # the api's executor commits plan 01-01's file; its commit says which root it was for
    commit_plan(api, "api")
    assert git(top, "log", "-1", "--format=%(trailers:key=Msd-Root,valueonly)").strip() == "services/api"
    # the top's plan 01-01 is summarised with no commit of its own; its run record is lost (a fresh clone)
    assert run_msd(["evidence", "adopt"], top).returncode == 0
    (top / ".planning/phases/01-part/01-01-SUMMARY.md").write_text(SUMMARY)
    (api / ".planning/phases/01-part/01-01-SUMMARY.md").write_text(SUMMARY)
    for project in (top, api):
        for record in (project / ".planning/.msd/runs").glob("*.json"):
            record.unlink()
    # declared files alone do not tell them apart when a plan declares a folder both roots have
    for project in (top, api):
        plan = project / ".planning/phases/01-part/01-01-PLAN.md"
        plan.write_text(plan.read_text().replace("files_modified: [src/core.py]", "files_modified: []"))
    assert complete(api) == {"01-01": True}  # its own commit, found in git
    assert complete(top) == {"01-01": False}  # services/api's commit is not the top's


def test_an_old_trailer_is_the_tops_and_the_only_roots(tmp_path):
    top, api = two_roots_same_plan(tmp_path)
    # a commit made before roots were named: `Msd-Plan:` alone, for the top's plan
    (top / "src").mkdir()
    (top / "src/core.py").write_text("core\n")
    git(top, "add", "src/core.py")
    git(top, "commit", "-q", "-m", "feat(01-01): core\n\nMsd-Plan: 01-part/01-01")
    for project in (top, api):
        assert run_msd(["evidence", "adopt"], project).returncode == 0
        (project / ".planning/phases/01-part/01-01-SUMMARY.md").write_text(SUMMARY)
        plan = project / ".planning/phases/01-part/01-01-PLAN.md"
        plan.write_text(plan.read_text().replace("files_modified: [src/api.py]", "files_modified: []"))
    assert complete(top) == {"01-01": True}
    assert complete(api) == {"01-01": False}  # another root is there: the old trailer is the top's
    # a repository whose only root is services/api: its old trailers are its own
    solo = tmp_path / "solo"
    new_repo(solo)
    only = root(solo, "services/api", {"1": "planned"})
    (only / ".planning/phases/01-part/01-01-PLAN.md").write_text(PLAN.format(name="api"))
    (only / "src").mkdir()
    (only / "src/api.py").write_text("api\n")
    git(solo, "add", "-A")
    git(solo, "commit", "-q", "-m", "feat(01-01): api\n\nMsd-Plan: 01-part/01-01")
    assert run_msd(["evidence", "adopt"], only).returncode == 0
    (only / ".planning/phases/01-part/01-01-SUMMARY.md").write_text(SUMMARY)
    assert complete(only) == {"01-01": True}


def test_undo_in_a_subfolder_root_undoes_its_own_plan_and_checks_the_root(tmp_path):
    top, api = two_roots_same_plan(tmp_path)
    core = commit_plan(top, "core")
    mine = commit_plan(api, "api")
    dry = run_msd(["undo", "--plan", "01-01", "--dry-run"], api)
    assert dry.returncode == 0, dry.stderr
    assert [c["hash"] for c in json.loads(dry.stdout)["commits"]] == [mine], dry.stdout
    # a run record naming the top's commit for the api's 01-01 (forged, or copied across) is refused
    record = api / ".planning/.msd/runs/01-part__01-01.json"
    data = json.loads(record.read_text())
    data["commits"] = [{**data["commits"][0], "hash": core, "files": ["src/core.py"]}]
    record.write_text(json.dumps(data))
    proc = run_msd(["undo", "--plan", "01-01"], api)
    out = json.loads(proc.stdout)
    assert out["ok"] is False and "made for 01-part/01-01 of the repository's top" in out["refused"], out
    assert (top / "src/core.py").is_file() and (api / "src/api.py").is_file()


def test_wave_merge_refuses_a_branch_commit_made_for_another_roots_plan(tmp_path):
    top, api = two_roots_same_plan(tmp_path)
    tree = top / ".claude/worktrees/agent-01-01"
    git(top, "worktree", "add", "-q", "-b", "worktree-agent-01-01", str(tree), "HEAD")
    commit_plan(tree / "services/api", "api")
    # on the same branch, a commit msd made for the top's plan 01-01 (same phase folder, same plan id)
    commit_plan(tree, "core")
    proc = run_msd(["wave", "merge", "--phase-dir", "01-part", "--wave", "1"], api)
    assert proc.returncode == 1, proc.stdout
    assert "not made by `msd_run commit` for 01-01" in proc.stderr and "made for 01-part/01-01 of the repository's top" \
        in proc.stdout, proc.stdout
    assert not (api / "src/api.py").exists()


def test_recorded_commits_and_code_review_scope_are_the_subfolder_roots_own(tmp_path):
    top, api = two_roots_same_plan(tmp_path)
    core = commit_plan(top, "core")
    mine = commit_plan(api, "api")
    out = json.loads(run_msd(["recorded", "--plan", "01-01"], api).stdout)
    assert [c["hash"] for c in out["commits"]] == [mine], out
    out = json.loads(run_msd(["recorded", "--plan", "01-01"], top).stdout)
    assert [c["hash"] for c in out["commits"]] == [core], out
    # from an executor's worktree too: the run records are the main checkout's services/api's
    tree = top / ".claude/worktrees/agent-x"
    git(top, "worktree", "add", "-q", "-b", "agent-x", str(tree), "HEAD")
    out = json.loads(run_msd(["recorded", "--plan", "01-01"], tree / "services/api").stdout)
    assert [c["hash"] for c in out["commits"]] == [mine], out
