"""Several projects in one repository: `msd_run workspace`, and phases that depend on another root's phase."""

from __future__ import annotations

import json
from pathlib import Path

from msd_core.progress import autonomous
from msd_core.progress.root_walk import MAX_DEPTH, roots
from tests.kit.gitkit import git, new_repo
from tests.kit.gitkit import run_msd as msd_run
from tests.kit.rootskit import root, three_roots, write_phase


def js(proc) -> dict:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def tree_bytes(top: Path) -> dict:
    return {str(p.relative_to(top)): p.read_bytes() for p in sorted(top.rglob("*")) if p.is_file() and ".git" not in p.parts}


# --- the roots ---------------------------------------------------------------------------------


def test_workspace_lists_every_root_with_its_position_and_next_command(tmp_path):
    top = three_roots(tmp_path / "mono", api_stage="planned", web_stage="context")
    (top / "services/api/src").mkdir(parents=True)
    out = js(msd_run(["workspace", "--json"], cwd=top / "services" / "api" / "src"))
    assert out["top"] == str(top) and out["work_tree"] is True and out["count"] == 3
    assert out["current"] == "services/api"
    by = {r["root"]: r for r in out["roots"]}
    assert list(by) == [".", "apps/web", "services/api"]
    assert (by["."]["command"], by["."]["phases_done"], by["."]["phases_total"]) == ("/msd-discuss-phase 2", 1, 2)
    api = by["services/api"]
    assert (api["phase"], api["state"], api["command"]) == ("1", "execute", "/msd-execute-phase 1")
    assert by["services/api"]["current"] is True and by["."]["current"] is False
    # a phase that is only discussed may be planned before its dependency is done
    assert by["apps/web"]["command"] == "/msd-plan-phase 1"
    for rel, entry in by.items():  # the same answer `msd_run next` gives in that root
        assert js(msd_run(["next", "--cwd", str(top / rel)], cwd=tmp_path))["command"] == entry["command"]


def test_the_table_marks_the_current_root_and_says_who_waits(tmp_path):
    top = three_roots(tmp_path / "mono")
    proc = msd_run(["workspace"], cwd=top / "apps" / "web")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["root", "phase", "state", "done", "next"]
    web = next(ln for ln in lines if "apps/web" in ln)
    assert web.startswith("* apps/web") and "waits" in web
    assert "waits on phase 1 of services/api (there: /msd-execute-phase 1)" in web
    assert lines[-1] == f"3 root(s) under {top}"


def test_the_walk_skips_dependency_folders_venvs_hidden_folders_and_other_work_trees(tmp_path):
    top = new_repo(tmp_path / "mono")
    root(top, "services/api", {"1": "new"})
    for rel in ("node_modules/pkg", ".venv/lib", ".claude/x", "vendor/y", "sub/.hidden/z"):
        root(top, rel, {"1": "new"})
    venv = top / "tools" / "myenv"
    root(top, "tools/myenv/inner", {"1": "new"})
    (venv / "pyvenv.cfg").write_text("home = /usr\n")
    new_repo(top / "nested")  # another work tree: the project rule never reaches across it
    root(top, "nested/app", {"1": "new"})
    deep = top / "/".join(f"d{i}" for i in range(MAX_DEPTH + 2))
    root(top, str(deep.relative_to(top)), {"1": "new"})
    (top / "linked").symlink_to(top / "services")
    found, walked = roots(top)
    assert [p.relative_to(top).as_posix() for p in found] == ["services/api"]
    assert walked["too_deep"] >= 1 and walked["truncated"] is False


def test_a_planning_symlink_is_not_a_root(tmp_path):
    top = new_repo(tmp_path / "mono")
    real = root(top, "real", {"1": "new"})
    (top / "fake").mkdir()
    (top / "fake" / ".planning").symlink_to(real / ".planning")
    assert [p.name for p in roots(top)[0]] == ["real"]


def test_outside_a_work_tree_the_list_is_the_project_the_rule_finds(tmp_path):
    base = tmp_path / "plain"
    root(base, ".", {"1": "new"})
    (base / "sub").mkdir()
    out = js(msd_run(["workspace", "--json", "--cwd", str(base / "sub")], cwd=tmp_path))
    assert out["work_tree"] is False and [r["path"] for r in out["roots"]] == [str(base)]
    empty = tmp_path / "none"
    empty.mkdir()
    proc = msd_run(["workspace"], cwd=empty)
    assert proc.returncode == 0 and "no .planning/ root" in proc.stdout and "/msd-new-project" in proc.stdout


def test_workspace_refuses_a_cwd_that_is_not_a_folder(tmp_path):
    proc = msd_run(["workspace", "--cwd", str(tmp_path / "nope")], cwd=tmp_path)
    assert proc.returncode == 2 and "--cwd" in proc.stderr and proc.stdout == ""


# --- a phase that depends on another root's phase ---------------------------------------------------


def test_next_waits_for_the_other_root_and_names_its_command(tmp_path):
    top = three_roots(tmp_path / "mono")  # web 1 planned, depends on api 1 (planned: execute next)
    out = js(msd_run(["next"], cwd=top / "apps" / "web"))
    assert (out["route"], out["command"], out["run_in"]) == ("wait-for-root", "/msd-progress", "services/api")
    assert "/msd-execute-phase 1 in services/api" in out["reason"]
    assert "msd_run next --cwd ../../services/api" in out["reason"]
    assert [(d["root"], d["phase"], d["state"], d["next"]) for d in out["waiting_on"]] == [
        ("services/api", "1", "execute", "/msd-execute-phase 1")]
    # the command the reason names, run from the web root, is the other root's answer
    there = js(msd_run(["next", "--cwd", "../../services/api"], cwd=top / "apps" / "web"))
    assert there["command"] == "/msd-execute-phase 1"


def test_the_phase_is_ready_once_the_other_root_verified_its_phase(tmp_path):
    top = three_roots(tmp_path / "mono")
    write_phase(top / "services/api/.planning", "1", "executed")
    out = js(msd_run(["next"], cwd=top / "apps" / "web"))
    assert out["route"] == "wait-for-root" and out["waiting_on"][0]["state"] == "verify"
    write_phase(top / "services/api/.planning", "1", "verified")
    out = js(msd_run(["next"], cwd=top / "apps" / "web"))
    assert (out["route"], out["command"]) == ("execute-phase", "/msd-execute-phase 1")
    assert out["depends_on_roots"][0]["done"] is True


def test_the_top_root_is_named_by_a_dot(tmp_path):
    top = three_roots(tmp_path / "mono", web_depends="Phase 2 of .")
    out = js(msd_run(["next"], cwd=top / "apps" / "web"))
    assert out["route"] == "wait-for-root" and out["waiting_on"][0]["next"] == "/msd-discuss-phase 2"
    (top / ".planning/ROADMAP.md").write_text((top / ".planning/ROADMAP.md").read_text().replace("- [ ] **Phase 2", "- [x] **Phase 2"))
    assert js(msd_run(["next"], cwd=top / "apps" / "web"))["route"] == "execute-phase"


def test_two_roots_waiting_on_each_other_do_not_loop(tmp_path):
    top = new_repo(tmp_path / "mono")
    root(top, "a", {"1": "planned"}, depends={"1": "Phase 1 of b"})
    root(top, "b", {"1": "planned"}, depends={"1": "Phase 1 of a"})
    out = js(msd_run(["next"], cwd=top / "a"))
    assert out["route"] == "wait-for-root" and out["waiting_on"][0]["root"] == "b"
    assert js(msd_run(["workspace", "--json"], cwd=top))["count"] == 2


def test_a_wrong_reference_routes_to_health_and_health_names_the_fix(tmp_path):
    wrong = "Phase 1 of services/api, Phase 7 of services/api, Phase 1 of ../out, Phase 1 of libs/none"
    top = three_roots(tmp_path / "mono", web_depends=wrong)
    out = js(msd_run(["next"], cwd=top / "apps" / "web"))
    assert (out["route"], out["command"]) == ("wait-for-root", "/msd-health")
    assert "Depends on:" in out["reason"] and "msd_run health" in out["reason"]
    health = msd_run(["health"], cwd=top / "apps" / "web")
    found = [f for f in json.loads(health.stdout)["findings"] if f["code"].startswith("cross-root")]
    assert sorted((f["code"], f["message"].split(" but ")[1]) for f in found) == [
        ("cross-root-missing", "'../out' is not a folder under the work tree's top"),
        ("cross-root-missing", "libs/none holds no .planning/ (no project there)"),
        ("cross-root-phase-missing", "services/api's ROADMAP.md lists no phase 7")]
    assert all(f["severity"] == "error" and f["file"] == ".planning/ROADMAP.md" and f["next"] for f in found)
    assert "msd_run workspace" in next(f for f in found if f["code"] == "cross-root-missing")["next"]
    # a root whose references are right has none of these findings
    api = json.loads(msd_run(["health"], cwd=top / "services" / "api").stdout)
    assert not [f for f in api["findings"] if f["code"].startswith("cross-root")]


def test_wave_plan_refuses_while_the_other_root_is_not_done_and_writes_nothing(tmp_path):
    top = three_roots(tmp_path / "mono")
    web = top / "apps" / "web"
    before = tree_bytes(top)
    proc = msd_run(["wave", "plan", "--phase-dir", "01-part"], cwd=web)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.strip() == ("msd_run wave plan: phase 1 depends on phase 1 of services/api: phase 1 of services/api "
                                   "is not done (it is at execute): finish it first (`msd_run next --cwd ../../services/api` "
                                   "names the command)")
    assert tree_bytes(top) == before and not (web / ".planning" / ".msd").exists()
    write_phase(top / "services/api/.planning", "1", "verified")
    proc = msd_run(["wave", "plan", "--phase-dir", "01-part"], cwd=web)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["runnable"]


def test_verify_fails_a_phase_whose_dependency_in_another_root_is_not_done(tmp_path):
    top = three_roots(tmp_path / "mono", web_stage="executed")
    web = top / "apps" / "web"
    proc = msd_run(["verify", "1", "--no-write", "--no-tests", "--json"], cwd=web)
    out = json.loads(proc.stdout)
    dep = [c for c in out["checks"] if c["check"] == "root-dependency"]
    assert [(c["subject"], c["result"]) for c in dep] == [("phase 1 of services/api", "failed")]
    assert "msd_run next --cwd ../../services/api" in dep[0]["detail"]
    write_phase(top / "services/api/.planning", "1", "verified")
    out = json.loads(msd_run(["verify", "1", "--no-write", "--no-tests", "--json"], cwd=web).stdout)
    assert [c["result"] for c in out["checks"] if c["check"] == "root-dependency"] == ["ok"]


def test_an_autonomous_run_stops_at_a_phase_waiting_on_another_root():
    answer = {"route": "wait-for-root", "command": "/msd-progress", "reason": "phase 1 is not ready: ...",
              "phase": {"number": "1"}, "state": "execute"}
    out = autonomous.decide(answer, {}, 2, None)
    assert (out["action"], out["why"]) == ("stop", "phase 1 is not ready: ...")


def test_git_top_is_where_folders_are_named_from_even_in_a_nested_root(tmp_path):
    top = three_roots(tmp_path / "mono")
    root(top, "apps/web/admin", {"1": "planned"}, depends={"1": "Phase 1 of apps/web"})
    git(top, "add", "-A")
    out = js(msd_run(["next"], cwd=top / "apps" / "web" / "admin"))
    assert out["waiting_on"][0]["root"] == "apps/web" and "msd_run next --cwd .." in out["reason"]
    listed = js(msd_run(["workspace", "--json"], cwd=top))["roots"]
    assert [r["root"] for r in listed] == [".", "apps/web", "apps/web/admin", "services/api"]
