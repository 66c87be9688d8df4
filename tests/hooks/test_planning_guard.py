"""The planning write guard (msd_core/hooks/planning_guard.py through `msd_run hook pre-tool-use`):
each refusal shown with its fixture, next to the normal write of the same file that goes ahead."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from tests.hooks.conftest import PLAN, REQUIREMENTS, ROADMAP, STATE


def write(proj, rel, content):
    return {"file_path": str(proj / ".planning" / rel), "content": content}


def edit(proj, rel, old, new, replace_all=False):
    out = {"file_path": str(proj / ".planning" / rel), "old_string": old, "new_string": new}
    if replace_all:
        out["replace_all"] = True
    return out


# --- shrink ----------------------------------------------------------------------------------

def test_a_write_that_wipes_most_of_a_document_is_refused_with_the_numbers(planning_project, decide):
    reason = decide(planning_project, "Write", write(planning_project, "phases/02-accounts/02-01-PLAN.md",
                                                     PLAN.split("<task")[0] + "(rest of the plan unchanged)\n"))
    assert reason.startswith("msd guard: Write of .planning/phases/02-accounts/02-01-PLAN.md refused: it would keep ")
    assert "% of the document's text" in reason and "under the 40% a write may leave" in reason
    assert "msd guard allow .planning/phases/02-accounts/02-01-PLAN.md" in reason


def test_a_full_rewrite_and_a_moderate_cut_go_ahead(planning_project, decide):
    rel = "phases/02-accounts/02-01-PLAN.md"
    assert decide(planning_project, "Write", write(planning_project, rel, PLAN + "<task>one more</task>\n")) is None
    half = PLAN[: int(len(PLAN) * 0.6)]
    assert decide(planning_project, "Write", write(planning_project, rel, half)) is None


def test_small_documents_are_not_measured(planning_project, decide):
    assert decide(planning_project, "Write", write(planning_project, "PROJECT.md", "# Shop\n")) is None


def test_the_guard_remembers_earlier_cuts_across_sessions(planning_project, decide):
    """Ten small cuts add up: each is measured against the text before the first cut, and a later
    session (or a write with no session id) starts from that reference, not from what is left."""
    rel = "phases/02-accounts/02-01-PLAN.md"
    path = planning_project / ".planning" / rel
    size = len(PLAN)
    refused_at = None
    for step in range(1, 10):
        keep = PLAN[: size * (10 - step) // 10 + 1]  # each write cuts another tenth of the original
        reason = decide(planning_project, "Write", write(planning_project, rel, keep), session=f"S{step}")
        if reason:
            refused_at = step
            assert "its reference is the larger of" in reason
            break
        path.write_text(keep)  # the host ran the allowed write
    assert refused_at == 6  # 39% of the text left (the last tenth's lines are longer than its first's)
    assert decide(planning_project, "Write", write(planning_project, rel, path.read_text()[:-300]), session=None)


def test_three_sessions_each_cutting_to_55_percent_end_refused(planning_project, decide):
    rel = "phases/02-accounts/02-01-PLAN.md"
    path = planning_project / ".planning" / rel
    verdicts = []
    for session in ("A", "B", "C"):
        text = path.read_text()
        keep = text[: len(text) * 55 // 100]
        reason = decide(planning_project, "Write", write(planning_project, rel, keep), session=session)
        verdicts.append(reason is None)
        if reason is None:
            path.write_text(keep)
    assert verdicts == [True, False, False] and len(path.read_text()) < len(PLAN) * 56 // 100


def test_a_persons_allowance_makes_what_it_leaves_the_new_reference(planning_project, decide):
    from msd_core.hooks import guard_memory

    rel = "phases/02-accounts/02-01-PLAN.md"
    path = planning_project / ".planning" / rel
    half = PLAN[: len(PLAN) * 55 // 100]
    assert decide(planning_project, "Write", write(planning_project, rel, half)) is None
    path.write_text(half)
    quarter = half[: len(half) * 55 // 100]
    assert decide(planning_project, "Write", write(planning_project, rel, quarter))
    guard_memory.grant(str(planning_project / ".planning"), rel, 5)
    assert decide(planning_project, "Write", write(planning_project, rel, quarter)) is None
    path.write_text(quarter)
    # measured from here on: a cut to 80% of it is allowed (24% of the first reference)
    assert decide(planning_project, "Write", write(planning_project, rel, quarter[: len(quarter) * 8 // 10]), session="S9") is None


def test_shrink_percent_is_the_projects_setting(planning_project, decide):
    cfg = planning_project / ".planning" / "config.json"
    cut = write(planning_project, "phases/02-accounts/02-01-PLAN.md", PLAN[: len(PLAN) * 7 // 10])
    cfg.write_text(json.dumps({"guards": {"shrink_percent": 80}}))
    assert "under the 80%" in decide(planning_project, "Write", cut)
    cfg.write_text(json.dumps({"guards": {"shrink_percent": 0}}))
    assert decide(planning_project, "Write", write(planning_project, "phases/02-accounts/02-01-PLAN.md", "---\nphase: x\n---\n")) is None


# --- frontmatter and protected sections ---------------------------------------------------------

def test_dropping_the_frontmatter_is_refused(planning_project, decide):
    body = PLAN.split("---\n", 2)[2]
    reason = decide(planning_project, "Write", write(planning_project, "phases/02-accounts/02-01-PLAN.md", body))
    assert "it drops the file's frontmatter" in reason
    kept = PLAN.replace("wave: 1", "wave: 2")
    assert decide(planning_project, "Write", write(planning_project, "phases/02-accounts/02-01-PLAN.md", kept)) is None


def test_an_edit_that_removes_the_frontmatter_is_refused(planning_project, decide):
    head = PLAN.split("<objective>")[0]
    reason = decide(planning_project, "Edit", edit(planning_project, "phases/02-accounts/02-01-PLAN.md", head, ""))
    assert "it drops the file's frontmatter" in reason


@pytest.mark.parametrize("section", ["Decisions", "Blockers", "Session", "Position"])
def test_dropping_a_state_section_is_refused(planning_project, decide, section):
    start = STATE.index(f"## {section}")
    end = STATE.find("\n## ", start + 3)
    cut = STATE[:start] + (STATE[end + 1:] if end > 0 else "")
    reason = decide(planning_project, "Write", write(planning_project, "STATE.md", cut))
    assert f"it drops STATE.md's {section} section" in reason and "msd_run state patch" in reason


def test_state_edits_that_keep_the_sections_go_ahead(planning_project, decide):
    assert decide(planning_project, "Edit", edit(planning_project, "STATE.md", "- Use Postgres", "- Use Postgres\n- Use JWT")) is None
    older = STATE.replace("## Position", "## Current Position").replace("## Session", "## Session Continuity")
    (planning_project / ".planning" / "STATE.md").write_text(older)
    renamed = older.replace("## Current Position", "## Position")  # another spelling of the same section
    assert decide(planning_project, "Write", write(planning_project, "STATE.md", renamed)) is None


def test_dropping_a_phase_with_work_is_refused_and_one_without_is_not(planning_project, decide):
    without_2 = ROADMAP.replace("- [ ] Phase 2: Accounts — people register and log in\n", "").replace(
        ROADMAP[ROADMAP.index("### Phase 2"):ROADMAP.index("### Phase 3")], "")
    reason = decide(planning_project, "Write", write(planning_project, "ROADMAP.md", without_2))
    assert "it drops phase 2 (Accounts) from the roadmap while its work is in .planning/phases/02-accounts/" in reason
    assert "msd_run phase remove" in reason
    # phase 3 has no folder yet: a roadmap revision may merge or drop it (new-project's revise pass)
    without_3 = ROADMAP.replace("- [ ] Phase 3: Payments — people pay\n", "").replace(ROADMAP[ROADMAP.index("### Phase 3"):ROADMAP.index("<!--")], "")
    assert decide(planning_project, "Write", write(planning_project, "ROADMAP.md", without_3)) is None


def test_complete_milestone_collapses_the_roadmap_once_the_phases_are_archived(planning_project, decide):
    pl = planning_project / ".planning"
    collapsed = ("# Roadmap: Shop\n\n## Completed Milestones\n\n- **v1.0 Shop** (Phases 1-3, 4 plans) - shipped 2026-12-01;\n"
                 "  archive: `.planning/milestones/v1.0-ROADMAP.md`\n")
    assert "refused" in decide(planning_project, "Write", write(planning_project, "ROADMAP.md", collapsed))
    (pl / "milestones" / "v1.0-phases").mkdir(parents=True)
    for name in ("01-foundation", "02-accounts"):
        os.rename(pl / "phases" / name, pl / "milestones" / "v1.0-phases" / name)  # step 3.4: `git mv` of each folder
    (pl / "milestones" / "v1.0-ROADMAP.md").write_text(ROADMAP)
    assert decide(planning_project, "Write", write(planning_project, "ROADMAP.md", collapsed)) is None


def test_dropping_a_mapped_requirement_is_refused(planning_project, decide):
    cut = REQUIREMENTS.replace("- [ ] **PAY-01**: A person pays\n", "").replace("| PAY-01 | Phase 3 | Pending |\n", "")
    reason = decide(planning_project, "Write", write(planning_project, "REQUIREMENTS.md", cut))
    assert "it drops requirement PAY-01, which ROADMAP.md maps to phases" in reason
    # SHARE-01 is on no phase yet: scoping it out is the user's choice during new-project
    unmapped = REQUIREMENTS.replace("- [ ] **SHARE-01**: A person shares a list\n", "")
    assert decide(planning_project, "Write", write(planning_project, "REQUIREMENTS.md", unmapped)) is None
    # out of scope with its id kept: allowed
    moved = cut + "\n## Out of Scope\n\n- PAY-01: payments — dropped, the shop is free\n"
    assert decide(planning_project, "Write", write(planning_project, "REQUIREMENTS.md", moved)) is None


# --- msd's own files, config -----------------------------------------------------------------

@pytest.mark.parametrize("rel", [".msd/guard/allowed.json", ".msd/checkpoint.json", "state.json"])
def test_msd_runtime_files_are_never_written_by_the_agent(planning_project, decide, rel):
    reason = decide(planning_project, "Write", write(planning_project, rel, "{}"))
    assert reason and ("msd_run" in reason)


def test_the_guard_settings_in_config_json_are_the_users(planning_project, decide):
    cfg = planning_project / ".planning" / "config.json"
    text = cfg.read_text()
    off = json.dumps({"mode": "interactive", "guards": {"secret_read": False}}, indent=2) + "\n"
    assert "guards` settings, which are the user's" in decide(planning_project, "Write", write(planning_project, "config.json", off))
    other = json.dumps({"mode": "yolo"}, indent=2) + "\n"
    assert decide(planning_project, "Write", write(planning_project, "config.json", other)) is None
    assert decide(planning_project, "Edit", edit(planning_project, "config.json", '"interactive"', '"yolo"')) is None
    assert cfg.read_text() == text


# --- Edit: the new content --------------------------------------------------------------------

def test_edits_are_judged_on_the_content_they_produce(planning_project, decide):
    rel = "phases/02-accounts/02-01-PLAN.md"
    # replace_all of every task line wipes the plan
    reason = decide(planning_project, "Edit", edit(planning_project, rel, "Step", "", replace_all=True))
    assert reason is None  # removing a word everywhere keeps most of it
    big = PLAN[PLAN.index("<task"):]
    assert "would keep" in decide(planning_project, "Edit", edit(planning_project, rel, big, "<task>todo</task>\n"))
    # the host refuses these edits itself: nothing to judge
    assert decide(planning_project, "Edit", edit(planning_project, rel, "no such text", "")) is None
    assert decide(planning_project, "Edit", edit(planning_project, rel, "<task", "")) is None  # ambiguous without replace_all


def test_new_files_and_files_outside_planning_go_ahead(planning_project, decide, tmp_path):
    assert decide(planning_project, "Write", write(planning_project, "phases/03-payments/03-CONTEXT.md", "# Context\n")) is None
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "big.py").write_text("x = 1\n" * 1000)
    assert decide(planning_project, "Write", {"file_path": str(tmp_path / "src" / "big.py"), "content": ""}) is None


def test_a_symlinked_path_into_planning_is_guarded(planning_project, decide):
    os.symlink(planning_project / ".planning", planning_project / "plans")
    reason = decide(planning_project, "Write", {"file_path": str(planning_project / "plans" / "STATE.md"), "content": "# State\n"})
    assert reason and "STATE.md" in reason


# --- a person's override -----------------------------------------------------------------------

def _msd(*args, cwd):
    return subprocess.run([sys.executable, "-m", "msd_core", *args], cwd=str(cwd), capture_output=True, text=True, timeout=120)


def test_msd_guard_allow_lets_one_refused_write_through(planning_project, decide):
    wipe = write(planning_project, "ROADMAP.md", "# Roadmap\n")
    assert decide(planning_project, "Write", wipe)
    r = _msd("guard", "allow", ".planning/ROADMAP.md", "--json", cwd=planning_project)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["path"] == ".planning/ROADMAP.md"
    assert decide(planning_project, "Write", wipe) is None  # used up by this write
    assert decide(planning_project, "Write", wipe)  # and not again


def test_an_expired_allowance_is_not_honoured(planning_project, decide):
    from msd_core.hooks import guard_memory

    guard_memory.grant(str(planning_project / ".planning"), "ROADMAP.md", 1)
    path = planning_project / ".planning" / ".msd" / "guard" / "allowed.json"
    path.write_text(json.dumps({"ROADMAP.md": time.time() - 5}))
    assert decide(planning_project, "Write", write(planning_project, "ROADMAP.md", "# Roadmap\n"))


@pytest.mark.parametrize("args,message", [
    (["guard", "allow", "README.md"], "is not a file under a .planning/ folder"),
    (["guard", "allow", ".planning/ROADMAP.md", "--minutes", "0"], "--minutes must be from 1 to 1440"),
])
def test_msd_guard_allow_refuses_bad_usage(planning_project, args, message):
    r = _msd(*args, cwd=planning_project)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_the_project_can_turn_the_planning_guard_off(planning_project, decide):
    (planning_project / ".planning" / "config.json").write_text(json.dumps({"guards": {"planning_write": False}}))
    assert decide(planning_project, "Write", write(planning_project, "ROADMAP.md", "# Roadmap\n")) is None


def test_msd_guards_off_in_the_hosts_environment_turns_every_guard_off(planning_project, decide, monkeypatch):
    wipe = write(planning_project, "ROADMAP.md", "# Roadmap\n")
    monkeypatch.setenv("MSD_GUARDS", "off")
    assert decide(planning_project, "Write", wipe) is None
    monkeypatch.setenv("MSD_GUARDS", "on")
    assert decide(planning_project, "Write", wipe)


def test_the_agents_runtime_cannot_change_guard_settings(planning_project):
    for args in (["config", "set", "guards.planning_write", "false"], ["config", "unset", "guards.secret_allow"]):
        r = subprocess.run([sys.executable, "-m", "msd_core.run", *args], cwd=str(planning_project), capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 2 and "is a guard setting, which msd_run does not change" in r.stderr
    r = _msd("config", "set", "guards.secret_allow", ".env.test, .env.ci", cwd=planning_project)
    assert r.returncode == 0, r.stderr
    assert json.loads((planning_project / ".planning" / "config.json").read_text())["guards"] == {"secret_allow": [".env.test", ".env.ci"]}


# --- the hook as the host runs it ---------------------------------------------------------------

@pytest.mark.parametrize("stdin", ["", "{not json", "[1]", json.dumps({"tool_name": "Write"}),
                                   json.dumps({"tool_name": "Write", "tool_input": {"file_path": 7}}),
                                   json.dumps({"tool_name": "Edit", "tool_input": {"file_path": "/nonexistent/.planning/x.md", "old_string": 1}})])
def test_bad_input_lets_the_call_through_quietly(planning_project, stdin):
    r = subprocess.run([sys.executable, "-m", "msd_core.run", "hook", "pre-tool-use"], input=stdin, cwd=str(planning_project),
                       capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_the_refusal_is_the_hosts_deny_json_on_stdout(planning_project):
    payload = {"cwd": str(planning_project), "tool_name": "Write", "session_id": "S",
               "tool_input": write(planning_project, "STATE.md", "# State\n")}
    r = subprocess.run([sys.executable, "-m", "msd_core.run", "hook", "pre-tool-use"], input=json.dumps(payload),
                       cwd=str(planning_project), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == ""
    out = json.loads(r.stdout)
    assert list(out) == ["hookSpecificOutput"] and out["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_the_machine_part_of_a_verification_is_kept(planning_project, decide):
    """A verifier may write its judgement around `msd_run verify`'s machine part, never change or drop it."""
    from msd_core.planning.check_status import machine_block

    rel = "phases/02-accounts/02-VERIFICATION.md"
    block = machine_block("## Machine checks\n\nresult: failed\n| artifact | src/a.py | failed | missing |\n")
    old = f"---\nphase: 02-accounts\nstatus: gaps_found\n---\n{block}\n\n# Phase 2\n"
    (planning_project / ".planning" / rel).write_text(old)
    judged = old.replace("status: gaps_found", "status: gaps_found\nscore: 0/1") + "\n## Truths\none gap\n"
    assert decide(planning_project, "Write", write(planning_project, rel, judged)) is None
    dropped = "---\nphase: 02-accounts\nstatus: passed\n---\n# Phase 2\nall good\n"
    assert "it changes or drops the machine part" in decide(planning_project, "Write", write(planning_project, rel, dropped))
    assert "it changes or drops the machine part" in decide(
        planning_project, "Edit", edit(planning_project, rel, "result: failed", "result: passed"))


@pytest.mark.parametrize("text", ["---\na: 1\n---\nbody", "---\r\na: 1\r\n---\r\nbody", "---\na: 1\n--- \t\nx", "---\na: 1\n...\n",
                                  "---\na: 1\n", "---\na: 1\n ---\n", "---\na: 1\n---x\n", "---\na: 1\n---\r\r\n", "---\na: 1\n---\r x\n",
                                  "---\n---", "\ufeff---\na\n---\n", "--- \na\n---\n", "# no\n---\n", ""])
def test_frontmatter_is_recognised_as_a_yaml_block_with_its_closing_line(text):
    """The guard's line scan (no regex: the hook skips re) against the YAML rule written as one."""
    import re

    from msd_core.hooks.planning_guard import _has_frontmatter

    body = text.lstrip("\ufeff")
    expected = body.startswith(("---\n", "---\r\n")) and re.search(r"^(?:---|\.\.\.)[ \t]*\r?$", body[4:], re.M) is not None
    assert _has_frontmatter(text) is expected


def test_a_multiedit_is_judged_on_all_its_edits_and_one_the_host_refuses_is_not_judged(planning_project, decide):
    from msd_core.hooks.proposed import after

    text = "a b a\n"
    assert after("MultiEdit", {"edits": [{"old_string": "b", "new_string": "c"}, {"old_string": "a", "new_string": "x",
                                                                                  "replace_all": True}]}, text) == "x c x\n"
    assert after("MultiEdit", {"edits": [{"old_string": "b", "new_string": "c"}, {"old_string": "b", "new_string": "d"}]}, text) is None
    assert after("MultiEdit", {"edits": []}, text) is None and after("NotebookEdit", {"new_source": "x"}, text) is None
    rel = "phases/02-accounts/02-01-PLAN.md"
    tasks = PLAN[PLAN.index("<task"):]
    wipe = [{"old_string": tasks, "new_string": ""}]
    assert "would keep" in decide(planning_project, "MultiEdit", {"file_path": str(planning_project / ".planning" / rel), "edits": wipe})
    assert decide(planning_project, "MultiEdit", {"file_path": str(planning_project / ".planning" / rel),
                                                  "edits": wipe + [{"old_string": "no such text", "new_string": ""}]}) is None
