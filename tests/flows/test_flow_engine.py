"""Each shipped flow walked end to end with scripted results: happy path, failing step,
resumed run, conditional branches, bounded loops; plus the engine's guards."""

from __future__ import annotations

import json

import pytest

from msd_core.errors import OperationFailed, UsageError
from tests.kit.flowkit import FIXTURE_FLOWS, Walker, write_config


def _state_bytes(project):
    path = project / ".planning" / "state.json"
    return path.read_bytes() if path.exists() else None


# ---------------------------------------------------------------- new-project


def test_new_project_happy_path_with_research_and_a_roadmap_revision(tmp_path):
    project = tmp_path / "fresh"
    project.mkdir()
    w = Walker("new-project", project)
    step = w.next()
    assert step["step"] == "detect-existing" and step["action"] == "run"
    assert w.done("detect-existing", {"has_project": False, "has_code": False})["next_step"] == "questioning"
    assert w.done("questioning", {"summary": "a todo app"})["next_step"] == "ask-settings"
    with pytest.raises(UsageError, match="config.json does not exist"):
        w.done("ask-settings", {})
    write_config(project, {"mode": "yolo", "workflow": {"research": True}})
    out = w.done("ask-settings", {})
    assert out["next_step"] == "write-project"
    assert out["next"]["context_files"][0].endswith("msd-core/templates/project.md")
    w.touch(".planning/PROJECT.md")
    out = w.done("write-project")
    assert out["next_step"] == "research" and out["next"]["agent"] == "msd-project-researcher"
    w.touch(".planning/research/SUMMARY.md")
    assert w.done("research")["next_step"] == "write-requirements"
    w.touch(".planning/REQUIREMENTS.md")
    assert w.done("write-requirements")["next_step"] == "roadmap"
    w.touch(".planning/ROADMAP.md")
    with pytest.raises(UsageError, match="STATE.md does not exist"):
        w.done("roadmap")
    w.touch(".planning/STATE.md")
    assert w.done("roadmap")["next_step"] == "confirm-roadmap"
    assert w.done("confirm-roadmap", {"approved": False, "changes": "split phase 2"})["next_step"] == "roadmap"
    assert w.done("roadmap")["next_step"] == "confirm-roadmap"
    assert w.done("confirm-roadmap", {"approved": True})["next_step"] == "commit"
    out = w.done("commit", {"committed": True})
    assert out["status"] == "done" and out["next"]["action"] == "done"
    st = w.state()
    assert st["visits"]["roadmap"] == 2 and [h["step"] for h in st["history"]][-2:] == ["confirm-roadmap", "commit"]
    # after the run finished, next-step keeps saying done (no silent restart)
    assert w.next()["status"] == "done"


def test_new_project_branches_without_research_and_without_commit(tmp_path):
    project = tmp_path / "fresh"
    project.mkdir()
    w = Walker("new-project", project)
    w.done("detect-existing", {"has_project": False, "has_code": True})
    w.done("questioning", {"summary": "s"})
    write_config(project, {"workflow": {"research": False}, "commit_docs": False})
    w.done("ask-settings")
    w.touch(".planning/PROJECT.md")
    assert w.done("write-project")["next_step"] == "write-requirements"
    for name in ("REQUIREMENTS.md", "ROADMAP.md", "STATE.md"):
        w.touch(f".planning/{name}")
    w.done("write-requirements")
    w.done("roadmap")
    out = w.done("confirm-roadmap", {"approved": True})
    # commit_docs false: the commit step still runs; `msd_run commit` commits nothing and says so
    assert out["next_step"] == "commit"
    assert w.done("commit", {"committed": False, "reason": "commit_docs is false"})["status"] == "done"
    assert "research" not in w.state()["visits"]


def test_new_project_stops_when_a_project_exists(project):
    w = Walker("new-project", project)
    out = w.done("detect-existing", {"has_project": True, "has_code": True})
    assert out["next_step"] == "done" and out["status"] == "done"


def test_roadmap_revisions_are_bounded(tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    w = Walker("new-project", project)
    w.done("detect-existing", {"has_project": False, "has_code": False})
    w.done("questioning", {"summary": "s"})
    write_config(project, {"workflow": {"research": False}})
    for name in ("config.json", "PROJECT.md", "REQUIREMENTS.md", "ROADMAP.md", "STATE.md"):
        if name != "config.json":
            w.touch(f".planning/{name}")
    w.done("ask-settings")
    w.done("write-project")
    w.done("write-requirements")
    seen = []
    for _ in range(5):
        w.done("roadmap")
        out = w.done("confirm-roadmap", {"approved": False})
        seen.append(out["next_step"])
        if out["next_step"] != "roadmap":
            break
    assert seen == ["roadmap", "roadmap", "commit"]  # max_visits = 3 on roadmap


# ---------------------------------------------------------------- plan-phase


def test_plan_phase_happy_path_with_research_check_and_one_revision(project):
    w = Walker("plan-phase", project)
    first = w.next("phase=02")
    assert first["step"] == "load-context" and "phase 02" in first["prompt"]
    out = w.done("load-context", {"phase": "02", "phase_dir": "02-auth"})
    assert out["next_step"] == "research"
    assert ".planning/phases/02-auth/02-RESEARCH.md" in out["next"]["expects"]["files"]
    w.touch(".planning/phases/02-auth/02-RESEARCH.md")
    out = w.done("research")
    assert out["next_step"] == "plan"
    assert any(p.endswith("/.planning/phases/02-auth/") for p in out["next"]["context_files"])
    assert w.done("plan", {"plans": 3})["next_step"] == "check"
    assert w.done("check", {"issues_found": 2, "issues": ["a", "b"]})["next_step"] == "revise"
    assert w.done("revise", {"plans": 3})["next_step"] == "check"
    assert w.done("check", {"issues_found": 0})["next_step"] == "commit"
    assert w.done("commit", {"committed": True})["status"] == "done"


def test_plan_phase_counts_the_plans_itself_whatever_the_agent_reports(project):
    """The planner's `plans` is the runtime's count of PLAN.md files, shown in the commit prompt."""
    w = Walker("plan-phase", project)
    write_config(project, {"workflow": {"research": False, "plan_check": False}})
    w.next("phase=02")
    w.done("load-context", {"phase": "02", "phase_dir": "02-a"})
    w.plans("02-a", {"02-01": 1, "02-02": 2})
    out = w.done("plan", {"plans": 5})
    assert out["derived"] == {"plans": {"reported": 5, "derived": 2}}
    assert out["next_step"] == "commit" and "Commit the 2 plans of phase 02" in out["next"]["prompt"]


def test_new_milestone_counts_the_new_requirement_ids_itself(project):
    """`new_ids` is what REQUIREMENTS.md defines and ROADMAP.md does not name yet; no report is taken."""
    planning = project / ".planning"
    (planning / "ROADMAP.md").write_text("# Roadmap\n\n- [x] **Phase 1: Core** - x\n  Requirements: CORE-01, CORE-02\n")
    (planning / "REQUIREMENTS.md").write_text(
        "# Requirements\n\n- [x] **CORE-01**: one\n- [x] **CORE-02**: two\n"
        "\n## v2 Requirements\n\n- [ ] **CORE-03**: three\n- [ ] **SYNC-01**: four\n- [ ] **CORE-010**: five\n")
    w = Walker("new-milestone", project)
    w.next()
    w.done("check-previous", {"finished": True, "last_phase": "1"})
    w.done("shipped", {"summary": "core"})
    w.done("questioning", {"version": "v2", "name": "Sync", "goals": "sync"})
    out = w.done("write-requirements", {"new_ids": 9})
    assert out["derived"] == {"new_ids": {"reported": 9, "derived": 3}}
    assert "(3 ids ROADMAP.md does not name yet)" in out["next"]["prompt"]


def test_plan_phase_skips_research_when_it_exists_and_check_when_off(project):
    write_config(project, {"workflow": {"plan_check": False}})
    w = Walker("plan-phase", project)
    w.touch(".planning/phases/03-ui/03-RESEARCH.md")
    w.next("phase=03")
    assert w.done("load-context", {"phase": "03", "phase_dir": "03-ui"})["next_step"] == "plan"
    assert w.done("plan", {"plans": 1})["next_step"] == "commit"


def test_plan_phase_research_off(project):
    write_config(project, {"workflow": {"research": False}})
    w = Walker("plan-phase", project)
    assert w.done("load-context", {"phase": "01", "phase_dir": "01-x"})["next_step"] == "plan"


def _three_rounds(project, phase_dir="02-a"):
    w = Walker("plan-phase", project)
    w.touch(f".planning/phases/{phase_dir}/02-RESEARCH.md")
    w.done("load-context", {"phase": "02", "phase_dir": phase_dir})
    w.done("plan", {"plans": 1})
    path = []
    for i in range(6):
        out = w.done("check", {"issues_found": 1, "issues": [f"round {i}"]})
        path.append(out["next_step"])
        if out["next_step"] != "revise":
            break
        w.done("revise", {"plans": 1})
    return w, path, out


def test_plan_phase_checker_loop_hands_the_issues_to_the_user_after_three_revisions(project):
    """Issue 28, seam 5: after the last allowed revision, issues still found never advance to
    commit silently: the flow asks the user (proceed, guide or stop)."""
    w, path, out = _three_rounds(project)
    assert path == ["revise", "revise", "revise", "issues-left"]
    assert w.state()["visits"]["revise"] == 3
    assert out["next"]["action"] == "ask_user" and out["next"]["expects"]["fields"]["choice"] == "proceed|guide|stop"
    assert "--add-blocker" in out["next"]["prompt"]
    with pytest.raises(UsageError, match="must be one of proceed, guide, stop"):
        w.done("issues-left", {"choice": "Proceed"})
    assert w.done("issues-left", {"choice": "proceed"})["next_step"] == "commit"


def test_plan_phase_issues_left_guided_once_then_stop(project):
    w, _path, _out = _three_rounds(project)
    assert w.done("issues-left", {"choice": "guide", "guidance": "merge 02-02 into 02-01"})["next_step"] == "guided-revise"
    assert w.done("guided-revise", {"plans": 1})["next_step"] == "check"
    assert w.done("check", {"issues_found": 1, "issues": ["still"]})["next_step"] == "issues-left"
    # the guided round is spent: "guide" again ends the run with the plans uncommitted, as "stop" does
    assert w.done("issues-left", {"choice": "guide"})["next_step"] == "done"


def test_plan_phase_issues_left_stop(project):
    w, _path, _out = _three_rounds(project)
    assert w.done("issues-left", {"choice": "stop"})["next_step"] == "done"


def test_plan_phase_issues_left_proceed_without_commit_docs_still_reaches_commit(project):
    write_config(project, {"commit_docs": False})
    w, _path, _out = _three_rounds(project)
    assert w.done("issues-left", {"choice": "proceed"})["next_step"] == "commit"  # msd_run commit decides


def test_failing_step_changes_nothing(project):
    w = Walker("plan-phase", project)
    w.done("load-context", {"phase": "02", "phase_dir": "02-a"})
    before = _state_bytes(project)
    bad = [
        ("research", None),                       # expected file missing
        ("plan", {"plans": 1}),                   # not the current step
        ("nope", {}),                             # no such step
    ]
    for step, result in bad:
        with pytest.raises(UsageError):
            w.done(step, result)
    w.touch(".planning/phases/02-a/02-RESEARCH.md")
    w.done("research")
    assert w.done("plan", {})["next_step"] == "check"
    before = _state_bytes(project)
    for result in ({}, {"issues_found": "three"}, {"issues_found": True}, {"issues_found": 1.5}):
        with pytest.raises(UsageError, match="issues_found"):
            w.done("check", result)
    assert _state_bytes(project) == before


def test_repeating_step_done_is_harmless(project):
    w = Walker("plan-phase", project)
    w.done("load-context", {"phase": "02", "phase_dir": "02-a"})
    before = _state_bytes(project)
    again = w.done("load-context", {"phase": "02", "phase_dir": "02-a"})
    assert again["repeated"] is True and again["next_step"] == "research"
    assert _state_bytes(project) == before
    with pytest.raises(UsageError, match="different result"):
        w.done("load-context", {"phase": "03", "phase_dir": "03-b"})
    assert _state_bytes(project) == before


def test_resumed_run_continues_where_it_stopped(project, msd_run):
    w = Walker("plan-phase", project)
    w.next("phase=04")
    w.touch(".planning/phases/04-api/04-RESEARCH.md")
    w.done("load-context", {"phase": "04", "phase_dir": "04-api"})
    # a new process (another agent session) picks the run up from .planning/state.json
    r = msd_run(["next-step", "--workflow", "plan-phase", "--flows-dir", str(w.flows_dir)], cwd=project)
    assert r.returncode == 0, r.stderr
    step = json.loads(r.stdout)
    assert step["step"] == "plan" and "phase 04" in step["prompt"]
    r = msd_run(["step-done", "--workflow", "plan-phase", "--flows-dir", str(w.flows_dir), "--step", "plan",
                 "--result", '{"plans": 2}'], cwd=project)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["next_step"] == "check"
    assert w.state()["current"] == "check"


def test_var_guards(project):
    w = Walker("plan-phase", project)
    with pytest.raises(UsageError, match="takes no variable"):
        w.next("stem=x")
    with pytest.raises(UsageError, match="name=value"):
        w.next("phase")
    with pytest.raises(UsageError, match="one line"):
        w.next("phase=0\n2")
    w.next("phase=02")
    with pytest.raises(UsageError, match="phase=02"):
        w.next("phase=03")
    assert w.next("phase=03", restart=True)["prompt"].count("phase 03") == 1


def test_finished_run_restarts_for_another_phase(project):
    write_config(project, {"workflow": {"research": False, "plan_check": False}, "commit_docs": False})
    w = Walker("plan-phase", project)
    w.next("phase=01")
    w.done("load-context", {"phase": "01", "phase_dir": "01-a"})
    assert w.done("plan", {"plans": 1})["next_step"] == "commit"
    assert w.done("commit", {"committed": False, "reason": "commit_docs is false"})["status"] == "done"
    step = w.next("phase=02")
    assert step["step"] == "load-context" and step["status"] == "running"


def test_unsafe_variable_never_becomes_a_path(project):
    w = Walker("plan-phase", project)
    (project.parent / "outside").mkdir()
    (project.parent / "outside" / "02-RESEARCH.md").write_text("planted")
    out = w.done("load-context", {"phase": "02", "phase_dir": "../../outside"})
    nxt = out["next"]
    assert all("outside" not in p for p in nxt["context_files"])
    assert any("not safe in a path" in u["reason"] for u in nxt["unavailable_context"])
    with pytest.raises(UsageError, match="not safe in a path"):
        w.done("research")


def test_oversized_and_non_object_results_are_refused(project):
    w = Walker("plan-phase", project)
    with pytest.raises(UsageError, match="larger than"):
        w.service.step_done(w.ctx(), "load-context", json.dumps({"phase": "x" * 70000, "phase_dir": "a"}))
    for text in ("[1]", "not json", '"x"'):
        with pytest.raises(UsageError):
            w.service.step_done(w.ctx(), "load-context", text)
    assert _state_bytes(project) is None


# ---------------------------------------------------------------- execute-phase


def test_execute_phase_waves_then_verify(project):
    w = Walker("execute-phase", project)
    w.plans("02-a", {"02-01": 1, "02-02": 1, "02-03": 2})
    w.next("phase=02")
    out = w.done("discover-plans", {"phase": "02", "phase_dir": "02-a"})
    assert out["next_step"] == "execute-wave"
    assert "Execute wave 1 of phase 02" in out["next"]["prompt"] and "--wave 1`" in out["next"]["prompt"]
    w.summarise("02-a", "02-01", "02-02")
    assert w.done("execute-wave", {"stuck": False})["next_step"] == "gate"
    # the same result again is a repeat, not a new wave
    assert w.done("execute-wave", {"stuck": False})["repeated"] is True
    out = w.done("gate", {"status": "passed"})
    assert out["next_step"] == "execute-wave"  # msd_run counted plan 02-03 left, nobody reported it
    # the second visit names the wave the files say is next, never the one the last visit ran
    assert "Execute wave 2 of phase 02" in out["next"]["prompt"] and "--wave 2`" in out["next"]["prompt"]
    assert "<wave>" not in w.next()["prompt"]
    w.summarise("02-a", "02-03")
    assert w.done("execute-wave", {"stuck": False})["next_step"] == "gate"
    assert w.done("gate", {"status": "passed"})["next_step"] == "verify"
    with pytest.raises(UsageError, match="02-VERIFICATION.md does not exist"):
        w.done("verify", {"status": "passed"})
    w.touch(".planning/phases/02-a/02-VERIFICATION.md")
    assert w.done("verify", {"status": "passed"})["next_step"] == "update-state"
    assert w.done("update-state", {"updated": True})["status"] == "done"
    assert w.state()["visits"]["execute-wave"] == 2
    before = _state_bytes(project)
    again = w.done("update-state", {"updated": True})  # repeating the last report after the end
    assert again["repeated"] is True and again["status"] == "done"
    assert _state_bytes(project) == before


def test_execute_phase_without_verifier_and_nothing_left(project):
    write_config(project, {"workflow": {"verifier": False}})
    w = Walker("execute-phase", project)
    w.plans("02-a", {"02-01": 1})
    w.summarise("02-a", "02-01")
    assert w.done("discover-plans", {"phase": "02", "phase_dir": "02-a"})["next_step"] == "gate"
    assert w.done("gate", {"status": "skipped"})["next_step"] == "update-state"


def test_execute_phase_counts_plans_itself_whatever_the_agent_reports(project):
    """issue 45: `plans_remaining: 0` from the agent no longer moves a phase with an open plan to the gate."""
    w = Walker("execute-phase", project)
    w.plans("02-a", {"02-01": 1, "02-02": 2})
    w.summarise("02-a", "02-01")
    out = w.done("discover-plans", {"phase": "02", "phase_dir": "02-a", "plans_remaining": 0})
    assert out["next_step"] == "execute-wave"
    assert out["derived"] == {"plans_remaining": {"reported": 0, "derived": 1}}
    assert "Execute wave 2 of phase 02" in out["next"]["prompt"]


def test_execute_phase_an_unproven_summary_is_not_done(project):
    """Once msd holds the evidence marker, a SUMMARY without recorded commits leaves its plan open (progress.evidence)."""
    from msd_core.progress import evidence

    evidence.mark_since(project)
    w = Walker("execute-phase", project)
    w.plans("02-a", {"02-01": 1})
    w.summarise("02-a", "02-01")  # written after the marker, no `msd_run commit --plan` behind it
    assert w.done("discover-plans", {"phase": "02", "phase_dir": "02-a", "plans_remaining": 0})["next_step"] == "execute-wave"


def test_execute_phase_refuses_when_it_cannot_count(project):
    """No phase folder: step-done refuses, naming what is missing and the command that finds it; nothing recorded."""
    w = Walker("execute-phase", project)
    with pytest.raises(UsageError, match=r"cannot count plans_remaining: no phase folder \.planning/phases/02-a: run `msd_run wave plan"):
        w.done("discover-plans", {"phase": "02", "phase_dir": "02-a", "plans_remaining": 0})
    assert _state_bytes(project) is None


def test_execute_phase_stuck_wave_leaves_the_loop(project):
    w = Walker("execute-phase", project)
    w.plans("02-a", {"02-01": 1, "02-02": 1, "02-03": 2})
    w.done("discover-plans", {"phase": "02", "phase_dir": "02-a"})
    w.done("execute-wave", {"stuck": True})
    assert w.done("gate", {"status": "passed"})["next_step"] == "update-state"


def test_execute_phase_gate_failure_routes_on_the_recorded_file(project):
    """The report says passed; the gate's marker file says otherwise: fix-up, never verify."""
    w = Walker("execute-phase", project)
    w.plans("02-a", {"02-01": 1})
    w.done("discover-plans", {"phase": "02", "phase_dir": "02-a"})
    w.summarise("02-a", "02-01")
    w.done("execute-wave", {"stuck": False})
    w.touch(".planning/.msd/gate/failed")
    assert w.done("gate", {"status": "passed"})["next_step"] == "fix-up"
    assert w.done("fix-up", {"fixed": True})["next_step"] == "gate"
    (project / ".planning" / ".msd" / "gate" / "failed").unlink()
    assert w.done("gate", {"status": "passed"})["next_step"] == "verify"


# ---------------------------------------------------------------- the fixture flow: bounds and config


def test_loop_fixture_bounded_when_and_exhausted_next(project):
    w = Walker("loop", project, flows_dir=FIXTURE_FLOWS / "valid")
    step = w.next("name=alpha")
    assert step["prompt"] == "Ask for alpha." and step["action"] == "ask_user"
    w.done("ask", {"answer": "yes"})
    w.touch(".planning/out/alpha.md")
    write_config(project, {"workflow": {"verifier": False}})
    assert w.done("work", {"ok": False})["next_step"] == "work"          # retry (visit 2 of 2)
    assert w.done("work", {"ok": False, "again": 1})["next_step"] == "finish"  # bound reached: when passed over


def test_exhausted_default_transition_fails_and_changes_nothing(project, tmp_path):
    flows = tmp_path / "flows"
    flows.mkdir()
    (flows / "spin.toml").write_text(
        'workflow = "spin"\nversion = 1\nstart = "a"\n'
        '[[steps]]\nid = "a"\naction = "run"\nprompt = "p"\nexpects = { fields = { n = "int" } }\nnext = "b"\n'
        '[[steps.when]]\nif = "result.n > 5"\ngoto = "z"\n'
        '[[steps]]\nid = "b"\naction = "run"\nprompt = "p"\nmax_visits = 1\nnext = "a"\n'
        '[[steps]]\nid = "z"\naction = "done"\n'
    )
    w = Walker("spin", project, flows_dir=flows)
    w.done("a", {"n": 1})
    w.done("b")
    before = _state_bytes(project)
    with pytest.raises(OperationFailed, match="max_visits"):
        w.done("a", {"n": 2})
    assert _state_bytes(project) == before
    assert w.done("a", {"n": 9})["status"] == "done"


def test_config_condition_reads_user_defaults(project, isolated_home):
    import os

    user = isolated_home / ".config" / "msd" / "defaults.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"workflow": {"research": False}}))
    assert os.environ["MSD_USER_CONFIG_DIR"] == str(user.parent)
    w = Walker("plan-phase", project)
    assert w.done("load-context", {"phase": "01", "phase_dir": "01-x"})["next_step"] == "plan"


def test_symlinked_phase_folder_leading_outside_is_refused(project, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "02-RESEARCH.md").write_text("planted")
    (project / ".planning" / "phases").mkdir()
    (project / ".planning" / "phases" / "02-a").symlink_to(outside, target_is_directory=True)
    w = Walker("plan-phase", project)
    out = w.done("load-context", {"phase": "02", "phase_dir": "02-a"})
    assert out["next_step"] == "research"  # exists() does not see through the link
    assert all("outside" not in p for p in out["next"]["context_files"])
    assert {"path": ".planning/phases/02-a/", "reason": "leaves .planning/"} in out["next"]["unavailable_context"]
    with pytest.raises(UsageError, match="leaves .planning/"):
        w.done("research")


def test_stored_step_missing_from_the_flow_asks_for_restart(project):
    (project / ".planning" / "state.json").write_text(json.dumps(
        {"version": 1, "workflows": {"plan-phase": {"current": "gone", "status": "running"}}}))
    w = Walker("plan-phase", project)
    with pytest.raises(UsageError, match="no longer has") as exc:
        w.next()
    assert "--restart" in exc.value.hint
    with pytest.raises(UsageError, match="no longer has"):
        w.done("load-context", {"phase": "1", "phase_dir": "01-a"})
    assert w.next(restart=True)["step"] == "load-context"
