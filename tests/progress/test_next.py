"""`msd_run next`: a fixture for every route, guards, and every corpus tree (copied)."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest

from msd_core.planning.roadmap import roadmap_phases
from msd_core.progress.route import decide
from tests.conftest import corpus_tree_names

ROUTES = {"new-project", "resume-work", "discuss-phase", "plan-phase", "execute-phase", "verify-work",
          "plan-gaps", "complete-milestone", "new-milestone", "audit-milestone", "reconcile-phases"}

ROADMAP = """# Roadmap

## Phases

- [x] **Phase 1: Foundation** - scaffold
- [ ] **Phase 2: Auth** - login
- [ ] **Phase 3: Payments** - cards
"""

STATE = """# Project State

## Current Position
Phase: 2 of 3 (Auth)
Status: In progress

## Session Continuity
Last session: 2026-11-30 14:00
Stopped at: {stopped}
Resume file: {resume}
"""


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def _base(tmp_path, extra=None, roadmap=ROADMAP, stopped="Completed 01-01-PLAN.md", resume="None"):
    files = {
        ".planning/PROJECT.md": "# P\n",
        ".planning/ROADMAP.md": roadmap,
        ".planning/STATE.md": STATE.format(stopped=stopped, resume=resume),
        ".planning/phases/01-foundation/01-01-PLAN.md": "p",
        ".planning/phases/01-foundation/01-01-SUMMARY.md": "s",
    }
    files.update(extra or {})
    return _tree(tmp_path / "proj", files)


def _route(project, msd_run=None):
    return decide(project)


def test_no_planning_is_new_project(tmp_path):
    out = decide(tmp_path)
    assert out["route"] == "new-project" and out["command"] == "/msd-new-project" and "no .planning/" in out["reason"]


def test_empty_planning_is_new_project(tmp_path):
    (tmp_path / ".planning").mkdir()
    assert decide(tmp_path)["route"] == "new-project"


def test_project_without_roadmap_is_new_project(tmp_path):
    _tree(tmp_path, {".planning/PROJECT.md": "# P\n"})
    out = decide(tmp_path)
    assert out["route"] == "new-project" and "ROADMAP.md does not" in out["reason"]


def test_next_phase_without_context_is_discuss(tmp_path):
    out = decide(_base(tmp_path))
    assert out["route"] == "discuss-phase" and out["command"] == "/msd-discuss-phase 2"
    assert "phase 1 is done" in out["reason"] and out["phase"]["number"] == "2"


def test_context_without_plans_is_plan(tmp_path):
    out = decide(_base(tmp_path, {".planning/phases/02-auth/02-CONTEXT.md": "c"}))
    assert out["route"] == "plan-phase" and out["command"] == "/msd-plan-phase 2"


def test_plans_without_summary_is_execute(tmp_path):
    out = decide(_base(tmp_path, {
        ".planning/phases/02-auth/02-01-PLAN.md": "p", ".planning/phases/02-auth/02-01-SUMMARY.md": "s",
        ".planning/phases/02-auth/02-02-PLAN.md": "p",
    }))
    assert out["route"] == "execute-phase" and out["command"] == "/msd-execute-phase 2"
    assert out["phase"]["unsummarised"] == ["02-02-PLAN.md"]


def test_all_summarised_without_verification_is_verify(tmp_path):
    out = decide(_base(tmp_path, {
        ".planning/phases/02-auth/02-01-PLAN.md": "p", ".planning/phases/02-auth/02-01-SUMMARY.md": "s",
    }))
    assert out["route"] == "verify-work" and out["command"] == "/msd-verify-work 2"


def test_verifier_off_skips_verification(tmp_path):
    project = _base(tmp_path, {
        ".planning/phases/02-auth/02-01-PLAN.md": "p", ".planning/phases/02-auth/02-01-SUMMARY.md": "s",
        ".planning/config.json": json.dumps({"workflow": {"verifier": False}}),
    })
    out = decide(project)
    assert out["route"] == "discuss-phase" and out["phase"]["number"] == "3"


def test_verification_gaps_are_plan_gaps_then_reverify(tmp_path):
    project = _base(tmp_path, {
        ".planning/phases/02-auth/02-01-PLAN.md": "p", ".planning/phases/02-auth/02-01-SUMMARY.md": "s",
        ".planning/phases/02-auth/02-VERIFICATION.md": "---\nphase: 02-auth\nstatus: gaps_found\n---\n",
    })
    old = time.time() - 100
    os.utime(project / ".planning/phases/02-auth/02-01-SUMMARY.md", (old, old))
    out = decide(project)
    assert out["route"] == "plan-gaps" and out["command"] == "/msd-plan-phase 2 --gaps" and "gaps_found" in out["reason"]
    # gap plans written and executed after the verification: verify again
    _tree(project, {".planning/phases/02-auth/02-02-PLAN.md": "gap", ".planning/phases/02-auth/02-02-SUMMARY.md": "fixed"})
    newer = time.time() + 100
    os.utime(project / ".planning/phases/02-auth/02-02-SUMMARY.md", (newer, newer))
    assert decide(project)["route"] == "verify-work"


def test_passed_verification_moves_to_next_phase(tmp_path):
    project = _base(tmp_path, {
        ".planning/phases/02-auth/02-01-PLAN.md": "p", ".planning/phases/02-auth/02-01-SUMMARY.md": "s",
        ".planning/phases/02-auth/02-VERIFICATION.md": "---\nstatus: passed\n---\n",
        ".planning/phases/03-payments/03-CONTEXT.md": "c",
    })
    out = decide(project)
    assert out["route"] == "plan-phase" and out["command"] == "/msd-plan-phase 3" and "phase 2 is done" in out["reason"]


def _aged(project: Path, rel: str, seconds: float) -> None:
    t = time.time() + seconds
    os.utime(project / rel, (t, t))


SUMMARISED_2 = {".planning/phases/02-auth/02-01-PLAN.md": "p", ".planning/phases/02-auth/02-01-SUMMARY.md": "s",
                ".planning/phases/02-auth/02-VERIFICATION.md": "---\nphase: 02-auth\nstatus: passed\n---\n"}


@pytest.mark.parametrize("uat_status", ["issues_found", "diagnosed"])
def test_uat_issues_beside_passed_verification_are_plan_gaps(tmp_path, uat_status):
    uat = f"---\nstatus: {uat_status}\nphase: 02-auth\n---\n# Phase 2 - UAT\n\n## Gaps\n- id: U2\n  status: failed\n"
    project = _base(tmp_path, {**SUMMARISED_2, ".planning/phases/02-auth/02-UAT.md": uat})
    _aged(project, ".planning/phases/02-auth/02-01-SUMMARY.md", -300)
    _aged(project, ".planning/phases/02-auth/02-VERIFICATION.md", -200)
    out = decide(project)
    assert out["route"] == "plan-gaps" and out["command"] == "/msd-plan-phase 2 --gaps"
    assert "02-UAT.md" in out["reason"] and uat_status in out["reason"]
    assert out["phase"]["verification_status"] == "passed" and out["phase"]["uat_status"] == uat_status
    # the gap plan is executed after the UAT: re-test, do not move on and do not plan again
    _tree(project, {".planning/phases/02-auth/02-02-PLAN.md": "gap", ".planning/phases/02-auth/02-02-SUMMARY.md": "fix"})
    _aged(project, ".planning/phases/02-auth/02-02-SUMMARY.md", +300)
    out = decide(project)
    assert out["route"] == "verify-work" and out["command"] == "/msd-verify-work 2" and "02-UAT.md" in out["reason"]
    # the re-test passes: phase 2 is done, phase 3 is next
    (project / ".planning/phases/02-auth/02-UAT.md").write_text("---\nstatus: complete\n---\n")
    _aged(project, ".planning/phases/02-auth/02-UAT.md", +400)
    assert decide(project)["command"] == "/msd-discuss-phase 3"


def test_passed_verification_and_complete_uat_move_on(tmp_path):
    project = _base(tmp_path, {**SUMMARISED_2, ".planning/phases/02-auth/02-UAT.md": "---\nstatus: complete\n---\n"})
    assert decide(project)["command"] == "/msd-discuss-phase 3"


def test_uat_issues_without_verification_are_plan_gaps(tmp_path):
    files = dict(SUMMARISED_2)
    del files[".planning/phases/02-auth/02-VERIFICATION.md"]
    files[".planning/phases/02-auth/02-UAT.md"] = "---\nstatus: issues_found\n---\n"
    project = _base(tmp_path, files)
    _aged(project, ".planning/phases/02-auth/02-01-SUMMARY.md", -100)
    assert decide(project)["route"] == "plan-gaps"


def test_human_needed_verification_goes_to_uat_until_a_uat_finishes(tmp_path):
    files = dict(SUMMARISED_2)
    files[".planning/phases/02-auth/02-VERIFICATION.md"] = "---\nstatus: human_needed\n---\n"
    project = _base(tmp_path, files)
    out = decide(project)
    assert out["route"] == "verify-work" and out["command"] == "/msd-verify-work 2" and "human_needed" in out["reason"]
    _tree(project, {".planning/phases/02-auth/02-UAT.md": "---\nstatus: testing\n---\n"})
    _aged(project, ".planning/phases/02-auth/02-UAT.md", +100)
    assert decide(project)["route"] == "verify-work"  # half-done UAT: still verify
    _tree(project, {".planning/phases/02-auth/02-UAT.md": "---\nstatus: complete\n---\n"})
    _aged(project, ".planning/phases/02-auth/02-UAT.md", +100)
    assert decide(project)["command"] == "/msd-discuss-phase 3"


@pytest.mark.parametrize("summary_age", [-100, +100])  # a half-done UAT, before or after later fixes
def test_uat_in_progress_is_verify(tmp_path, summary_age):
    project = _base(tmp_path, {**SUMMARISED_2, ".planning/phases/02-auth/02-UAT.md": "---\nstatus: testing\n---\n"})
    _aged(project, ".planning/phases/02-auth/02-01-SUMMARY.md", summary_age)
    out = decide(project)
    assert out["route"] == "verify-work" and "testing" in out["reason"]


def test_uat_issues_in_a_passed_over_phase_are_not_routed(tmp_path):
    roadmap = ROADMAP + "- [ ] **Phase 4: Later** - x\n"
    project = _base(tmp_path, {**SUMMARISED_2, ".planning/phases/02-auth/02-UAT.md": "status: issues_found\n",
                               ".planning/phases/03-payments/03-01-PLAN.md": "p",
                               ".planning/phases/03-payments/03-01-SUMMARY.md": "s",
                               ".planning/phases/03-payments/03-VERIFICATION.md": "status: passed\n"},
                    roadmap=roadmap)
    out = decide(project)
    assert out["route"] == "discuss-phase" and out["phase"]["number"] == "4"


def test_a_phase_taken_up_again_after_the_project_moved_on_is_routed_until_verified(tmp_path):
    """UAT issues a person found in phase 2 after phase 3 was summarised: gap plans for 2, then their
    execution, then their verification, before the project goes on (an older UAT is passed over:
    the test above)."""
    roadmap = ROADMAP + "- [ ] **Phase 4: Later** - x\n"
    project = _base(tmp_path, {**SUMMARISED_2,
                               ".planning/phases/03-payments/03-01-PLAN.md": "p",
                               ".planning/phases/03-payments/03-01-SUMMARY.md": "s",
                               ".planning/phases/03-payments/03-VERIFICATION.md": "status: passed\n",
                               ".planning/phases/04-later/04-01-PLAN.md": "p"}, roadmap=roadmap)
    assert decide(project)["command"] == "/msd-execute-phase 4"
    _tree(project, {".planning/phases/02-auth/02-UAT.md": "---\nstatus: issues_found\n---\n"})
    _aged(project, ".planning/phases/02-auth/02-UAT.md", 10)
    out = decide(project)
    assert out["command"] == "/msd-plan-phase 2 --gaps" and "passed_over" not in out, out
    _tree(project, {".planning/phases/02-auth/02-02-PLAN.md": "gap plan"})
    _aged(project, ".planning/phases/02-auth/02-02-PLAN.md", 20)
    assert decide(project)["command"] == "/msd-execute-phase 2"
    _tree(project, {".planning/phases/02-auth/02-02-SUMMARY.md": "s"})
    _aged(project, ".planning/phases/02-auth/02-02-SUMMARY.md", 30)
    assert decide(project)["command"] == "/msd-verify-work 2"
    _tree(project, {".planning/phases/02-auth/02-UAT.md": "---\nstatus: complete\n---\n"})
    _aged(project, ".planning/phases/02-auth/02-UAT.md", 40)
    assert decide(project)["command"] == "/msd-execute-phase 4"


def test_all_done_without_audit_is_audit_milestone(tmp_path):
    out = decide(_base(tmp_path, roadmap=ROADMAP.replace("[ ]", "[x]")))
    assert out["route"] == "audit-milestone" and out["command"] == "/msd-audit-milestone"
    assert "no milestone audit" in out["reason"]


def test_all_done_and_audited_is_complete_milestone(tmp_path):
    project = _base(tmp_path, {".planning/v1.0-MILESTONE-AUDIT.md": "---\nstatus: passed\n---\n"},
                    roadmap=ROADMAP.replace("[ ]", "[x]"))
    audit = project / ".planning/v1.0-MILESTONE-AUDIT.md"
    later = time.time() + 5
    os.utime(audit, (later, later))
    out = decide(project)
    assert out["route"] == "complete-milestone" and out["command"] == "/msd-complete-milestone"
    # a SUMMARY written after the audit: audit again
    summary = project / ".planning/phases/01-foundation/01-01-SUMMARY.md"
    os.utime(summary, (later + 5, later + 5))
    out = decide(project)
    assert out["route"] == "audit-milestone" and "after the last milestone audit" in out["reason"]


def test_phase_answers_name_their_state(tmp_path):
    assert decide(_base(tmp_path))["state"] == "discuss"


def test_open_debug_sessions_are_named_closed_ones_are_not(tmp_path):
    project = _base(tmp_path, {".planning/debug/login-cookie-lost.md": "---\nstatus: investigating\n---\n",
                               ".planning/debug/resolved/old-bug.md": "---\nstatus: resolved\n---\n"})
    assert decide(project)["debug_open"] == ["login-cookie-lost"]
    assert "debug_open" not in decide(_base(tmp_path / "other"))


def test_archived_milestone_is_new_milestone(tmp_path):
    project = _base(tmp_path, roadmap=ROADMAP.replace("[ ]", "[x]"))
    state = project / ".planning/STATE.md"
    state.write_text(state.read_text().replace("Status: In progress", "Status: v1.0 milestone archived"))
    assert decide(project)["route"] == "new-milestone"


def test_continue_here_is_resume(tmp_path):
    out = decide(_base(tmp_path, {".planning/.continue-here.md": "---\nstatus: in_progress\n---\n"}))
    assert out["route"] == "resume-work" and out["resume_file"] == ".planning/.continue-here.md"


def test_continue_here_in_current_phase_is_resume_but_stale_one_is_not(tmp_path):
    project = _base(tmp_path, {".planning/phases/01-foundation/.continue-here.md": "old handoff"})
    assert decide(project)["route"] == "discuss-phase"  # phase 1 is done: a leftover, not a pause
    _tree(project, {".planning/phases/02-auth/.continue-here.md": "handoff"})
    assert decide(project)["route"] == "resume-work"


def test_state_resume_file_is_resume(tmp_path):
    project = _base(tmp_path, {".planning/phases/02-auth/02-01-PLAN.md": "p"},
                    stopped="Task 2 of 02-01", resume="`.planning/phases/02-auth/02-01-PLAN.md`")
    out = decide(project)
    assert out["route"] == "resume-work" and out["resume_file"] == ".planning/phases/02-auth/02-01-PLAN.md"


@pytest.mark.parametrize("resume", ["None", "../../etc/passwd", "/etc/passwd", ".planning/missing.md",
                                    ".planning/phases/01-foundation/01-01-SUMMARY.md"])
def test_resume_file_guards(tmp_path, resume):
    out = decide(_base(tmp_path, stopped="somewhere", resume=resume))
    assert out["route"] == "discuss-phase", resume


def test_passed_over_phases_are_listed_not_routed(tmp_path):
    roadmap = ROADMAP + "- [ ] **Phase 4: Later** - x\n"
    project = _base(tmp_path, {
        ".planning/phases/02-auth/02-01-PLAN.md": "p",  # abandoned: never executed
        ".planning/phases/03-payments/03-01-PLAN.md": "p", ".planning/phases/03-payments/03-01-SUMMARY.md": "s",
        ".planning/phases/03-payments/03-VERIFICATION.md": "status: passed\n",
    }, roadmap=roadmap)
    out = decide(project)
    assert out["passed_over"] == ["2"] and out["route"] == "discuss-phase" and out["phase"]["number"] == "4"


def test_corrupt_config_still_routes_with_a_note(tmp_path):
    project = _base(tmp_path, {".planning/config.json": "{nope"})
    out = decide(project)
    assert out["route"] == "discuss-phase" and "assuming workflow.verifier = true" in out["notes"][0]


def test_oversized_and_symlinked_files_are_skipped(tmp_path):
    project = _base(tmp_path)
    big = project / ".planning/phases/02-auth"
    big.mkdir(parents=True)
    (big / "02-01-PLAN.md").write_text("p")
    (big / "02-01-SUMMARY.md").write_text("s")
    (big / "02-VERIFICATION.md").write_text("status: passed\n" + "x" * (3 * 1024 * 1024))
    out = decide(project)
    assert out["skipped"][0]["reason"].startswith("larger than")
    assert out["route"] == "discuss-phase" and out["phase"]["number"] == "3"  # unread status: no gaps claimed
    (project / ".planning/ROADMAP.md").unlink()
    (tmp_path / "elsewhere.md").write_text(ROADMAP)
    (project / ".planning/ROADMAP.md").symlink_to(tmp_path / "elsewhere.md")
    out = decide(project)
    assert any(s["reason"] == "symlink not followed" for s in out["skipped"])


def test_roadmap_reader_shapes():
    text = (
        "- [x] **Phase 1: A** - a\n- [ ] Phase 2: B (0/2 plans)\n- [x] **Phase 2.1: C** (INSERTED)\n"
        "### Phase 3: D ✅\n### Phase 04: E\n```\n- [ ] Phase 9: in a fence\n```\n### Phase 5: ~~F~~ — SUPERSEDED\n"
    )
    got = [(p.number, p.name, p.done) for p in roadmap_phases(text)]
    assert got == [("1", "A", True), ("2", "B", False), ("2.1", "C", True), ("3", "D", True), ("4", "E", False),
                   ("5", "~~F~~", True)]


def test_unfinished_flow_runs_are_listed(tmp_path):
    project = _base(tmp_path)
    state = project / ".planning" / "state.json"
    state.write_text(json.dumps({"version": 1, "workflows": {
        "plan-phase": {"current": "check", "status": "running"}, "new-project": {"current": "done", "status": "done"}}}))
    assert decide(project)["flows_in_progress"] == [{"workflow": "plan-phase", "step": "check"}]
    state.write_text("{corrupt")
    out = decide(project)
    assert "flows_in_progress" not in out and any("flow state not read" in n for n in out["notes"])
    assert out["route"] == "discuss-phase"


def test_cli_next_and_raw(msd_run, tmp_path):
    project = _base(tmp_path, {".planning/phases/02-auth/02-CONTEXT.md": "c"})
    r = msd_run(["next", "--cwd", str(project / ".planning" / "phases")])
    assert r.returncode == 0 and json.loads(r.stdout)["route"] == "plan-phase"
    r = msd_run(["next", "--raw"], cwd=project)
    assert r.stdout == "/msd-plan-phase 2\n"
    r = msd_run(["next", "--cwd", str(tmp_path / "missing")])
    assert r.returncode == 2 and r.stderr.count("\n") == 1


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        h.update(str(p.relative_to(root)).encode())
        if p.is_file() and not p.is_symlink():
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.mark.corpus
@pytest.mark.parametrize("name", corpus_tree_names() or ["<no corpus>"])
def test_every_corpus_tree_gets_a_route_and_nothing_changes(name, copy_corpus_tree):
    if name == "<no corpus>":
        pytest.skip("corpus not present")
    project = copy_corpus_tree(name)
    before = _digest(project)
    out = decide(project)
    assert out["route"] in ROUTES and out["reason"] and out["command"].startswith("/msd-")
    json.dumps(out)
    assert _digest(project) == before
    planning = project / ".planning"
    if (planning / ".continue-here.md").exists():
        assert out["route"] == "resume-work"
    if not (planning / "ROADMAP.md").exists():
        assert out["route"] == "new-project"


def test_next_imports_no_yaml_or_cli_frameworks(tmp_path):
    import subprocess
    import sys

    project = _base(tmp_path, {".planning/STATE.md": "---\nstatus: executing\nstopped_at: x\n---\n# State\n"})
    code = ("import sys; from msd_core.run.dispatch import main; main(['next']); "
            "sys.stderr.write(repr([m for m in ('yaml', 'typer', 'rich', 'click', 'pydantic') if m in sys.modules]))")
    r = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True, timeout=60)
    assert r.stderr.strip().endswith("[]"), r.stderr
    assert json.loads(r.stdout)["route"] == "discuss-phase"
