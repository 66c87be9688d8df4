"""The merge of ROADMAP.md, REQUIREMENTS.md and STATE.md by entry (msd_core.merging), on texts:
every expected result below is written out by hand."""

from __future__ import annotations

from msd_core.merging.diff3 import regions, resolve_additive
from msd_core.merging.keyed import merge
from msd_core.merging.planning_docs import RequirementsSpec, RoadmapSpec
from msd_core.merging.state_doc import merge_state

ROADMAP = """# Roadmap

## Phases

- [x] **Phase 1: Foundation** - scaffold
- [ ] **Phase 2: Auth** - login

## Phase Details

### Phase 1: Foundation
**Goal**: scaffold
**Plans**: 1 plan

### Phase 2: Auth
**Goal**: A user can log in
**Requirements**: AUTH-01
Plans:
- [ ] 02-01-PLAN.md — login form
"""


def add_phase(text: str, number: str, name: str) -> str:
    check = f"- [ ] **Phase {number}: {name}** - {name.lower()}"
    text = text.replace("- [ ] **Phase 2: Auth** - login\n", f"- [ ] **Phase 2: Auth** - login\n{check}\n")
    return text + f"\n### Phase {number}: {name}\n**Goal**: {name.lower()}\n"


# --- diff3 ---------------------------------------------------------------------------------

def test_regions_name_who_changed_what():
    base, ours, theirs = list("abcde"), list("aXcde"), list("abcdY")
    assert list(regions(base, ours, theirs)) == [
        ("same", ["a"]), ("ours", ["X"]), ("same", ["c", "d"]), ("theirs", ["Y"])]
    assert list(regions("abc", "aXc", "aZc"))[1] == ("conflict", ["b"], ["X"], ["Z"])


def test_additive_resolution_and_its_refusal():
    assert resolve_additive([], ["a"], ["b"]) == ["a", "b"]
    assert resolve_additive(["x"], ["x2"], ["x", "y"]) == ["x2", "y"]  # one changed it, the other appended
    assert resolve_additive(["x"], ["x"], ["x"]) == ["x"]
    assert resolve_additive(["x"], ["blank"], ["y", "blank"]) is None  # both rewrote it: a real conflict
    assert resolve_additive(["x"], ["p"], ["q"]) is None


# --- ROADMAP.md ----------------------------------------------------------------------------

def test_two_branches_each_adding_a_phase_keep_both_ours_first():
    out = merge(RoadmapSpec(), ROADMAP, add_phase(ROADMAP, "3", "Payments"), add_phase(ROADMAP, "4", "Search"))
    assert out.clean
    assert "- [ ] **Phase 3: Payments** - payments\n- [ ] **Phase 4: Search** - search\n" in out.text
    assert out.text.endswith("### Phase 3: Payments\n**Goal**: payments\n\n### Phase 4: Search\n**Goal**: search\n")


def test_the_same_number_added_twice_is_kept_twice_for_reconcile():
    out = merge(RoadmapSpec(), ROADMAP, add_phase(ROADMAP, "3", "Payments"), add_phase(ROADMAP, "3", "Search"))
    assert out.clean
    assert out.text.count("### Phase 3:") == 2 and out.text.count("- [ ] **Phase 3:") == 2
    assert out.text.index("Phase 3: Payments") < out.text.index("Phase 3: Search")


def test_ticking_different_phases_and_plans_merges_every_tick():
    ours = ROADMAP.replace("- [ ] **Phase 2: Auth**", "- [x] **Phase 2: Auth**")
    theirs = ROADMAP.replace("- [ ] 02-01-PLAN.md — login form", "- [x] 02-01-PLAN.md — login form\n- [ ] 02-02-PLAN.md — logout")
    out = merge(RoadmapSpec(), ROADMAP, ours, theirs)
    assert out.clean
    assert "- [x] **Phase 2: Auth** - login" in out.text
    assert "- [x] 02-01-PLAN.md — login form\n- [ ] 02-02-PLAN.md — logout\n" in out.text


def test_one_side_ticks_the_other_renames_the_same_line():
    ours = ROADMAP.replace("- [ ] **Phase 2: Auth** - login", "- [x] **Phase 2: Auth** - login")
    theirs = ROADMAP.replace("- [ ] **Phase 2: Auth** - login", "- [ ] **Phase 2: Auth** - login and logout")
    out = merge(RoadmapSpec(), ROADMAP, ours, theirs)
    assert out.clean and "- [x] **Phase 2: Auth** - login and logout\n" in out.text


def test_both_changing_one_goal_is_a_conflict_naming_the_phase_and_nothing_else():
    ours = add_phase(ROADMAP.replace("A user can log in", "A user can log in with email"), "3", "Payments")
    theirs = ROADMAP.replace("A user can log in", "A user can log in with SSO")
    out = merge(RoadmapSpec(), ROADMAP, ours, theirs)
    assert out.conflicts == ["phase 2 goal"] and not out.undecided
    assert ("<<<<<<< ours (phase 2 goal)\n**Goal**: A user can log in with email\n=======\n"
            "**Goal**: A user can log in with SSO\n>>>>>>> theirs (phase 2 goal)\n") in out.text
    assert "### Phase 3: Payments" in out.text  # the rest merged


def test_a_phase_deleted_on_one_side_and_changed_on_the_other_is_undecided():
    ours = ROADMAP.replace("### Phase 1: Foundation\n**Goal**: scaffold\n**Plans**: 1 plan\n\n", "")
    theirs = ROADMAP.replace("**Goal**: scaffold", "**Goal**: scaffold and CI")
    out = merge(RoadmapSpec(), ROADMAP, ours, theirs)
    assert out.undecided == ["phase 1 (details): deleted on one side and changed on the other"]


def test_archived_phases_in_details_blocks_are_prose():
    base = ROADMAP + "\n<details>\n<summary>v1.0</summary>\n\n- [x] **Phase 1: Old** - old\n</details>\n"
    ours = base.replace("- [x] **Phase 1: Old** - old", "- [x] **Phase 1: Old** - old (shipped)")
    out = merge(RoadmapSpec(), base, ours, add_phase(base, "3", "Payments"))
    assert out.clean and "(shipped)" in out.text and "- [x] **Phase 1: Foundation** - scaffold" in out.text


def test_crlf_roadmaps_stay_crlf():
    base = ROADMAP.replace("\n", "\r\n")
    out = merge(RoadmapSpec(), base, add_phase(ROADMAP, "3", "Pay").replace("\n", "\r\n"),
                add_phase(ROADMAP, "4", "Find").replace("\n", "\r\n"))
    assert out.clean and "\n" not in out.text.replace("\r\n", "")


# --- REQUIREMENTS.md -------------------------------------------------------------------------

REQS = """# Requirements

- [ ] **AUTH-01**: User can sign up
- [ ] **AUTH-02**: User can log in

## Traceability

| Requirement | Phase | Status |
|---|---|---|
| AUTH-01 | Phase 2 | Pending |
| AUTH-02 | Phase 2 | Pending |
"""


def test_requirements_edited_apart_merge_by_id_and_cell():
    ours = REQS.replace("- [ ] **AUTH-01**", "- [x] **AUTH-01**").replace("| AUTH-01 | Phase 2 | Pending |",
                                                                         "| AUTH-01 | Phase 2 | Complete |")
    theirs = REQS.replace("- [ ] **AUTH-02**: User can log in\n", "- [ ] **AUTH-02**: User can log in\n- [ ] **PAY-01**: User pays\n")
    theirs = theirs.replace("| AUTH-01 | Phase 2 | Pending |", "| AUTH-01 | Phase 3 | Pending |")
    out = merge(RequirementsSpec(), REQS, ours, theirs)
    assert out.clean
    assert "- [x] **AUTH-01**: User can sign up\n- [ ] **AUTH-02**: User can log in\n- [ ] **PAY-01**: User pays\n" in out.text
    assert "| AUTH-01 | Phase 3 | Complete |" in out.text  # phase cell from theirs, status cell from ours


def test_one_id_added_twice_with_different_text_is_a_conflict():
    ours = REQS.replace("## Traceability", "- [ ] **PAY-01**: Card payments\n\n## Traceability")
    theirs = REQS.replace("## Traceability", "- [ ] **PAY-01**: Invoices\n\n## Traceability")
    out = merge(RequirementsSpec(), REQS, ours, theirs)
    assert out.conflicts == ["requirement PAY-01"]
    assert "<<<<<<< ours (requirement PAY-01)\n- [ ] **PAY-01**: Card payments\n=======\n- [ ] **PAY-01**: Invoices\n" in out.text


# --- STATE.md --------------------------------------------------------------------------------

STATE = """# Demo: where the work stands

## Position
Focus: Phase 2 (Auth)
Phase: 2 of 3 (Auth)
Plan: 1 of 2 in current phase
Status: Ready to execute
Last change: 2026-11-30 (planned 02-01-PLAN.md)
Progress: [###-------] 33%
<!-- msd: derived from 0123456789ab (kept by msd_run state sync) -->

## Decisions
- [Phase 1]: SQLite

## Blockers
None yet.

## Session
Last worked: 2026-11-30 10:00
Left off: Planned phase 2
Handoff: None
"""


def test_state_keeps_both_sides_hand_lines_and_never_conflicts_on_derived_ones():
    ours = (STATE.replace("Plan: 1 of 2", "Plan: 2 of 2").replace("33%", "50%").replace("0123456789ab", "aaaaaaaaaaaa")
            .replace("- [Phase 1]: SQLite\n", "- [Phase 1]: SQLite\n- [Phase 2]: JWT tokens\n")
            .replace("None yet.", "- CI is slow"))
    theirs = (STATE.replace("Status: Ready to execute", "Status: In progress").replace("0123456789ab", "bbbbbbbbbbbb")
              .replace("- [Phase 1]: SQLite\n", "- [Phase 1]: SQLite\n- [Phase 3]: Stripe\n")
              .replace("None yet.", "- Waiting for API keys")
              .replace("2026-11-30 10:00", "2026-12-01 09:00").replace("Planned phase 2", "Executed 02-01"))
    out = merge_state(STATE, ours, theirs)
    assert out.clean
    text = out.text
    assert "- [Phase 1]: SQLite\n- [Phase 2]: JWT tokens\n- [Phase 3]: Stripe\n" in text
    assert "## Blockers\n- CI is slow\n- Waiting for API keys\n" in text  # the placeholder gave way to both
    assert "Last worked: 2026-12-01 09:00\nLeft off: Executed 02-01\n" in text  # theirs' session is newer
    assert "Plan: 2 of 2" in text and "Status: In progress" in text  # each changed by one side only
    assert "<<<<<<<" not in text


def test_state_derived_lines_both_changed_keep_ours_until_re_derived():
    ours = STATE.replace("33%", "50%").replace("0123456789ab", "aaaaaaaaaaaa")
    theirs = STATE.replace("33%", "66%").replace("0123456789ab", "bbbbbbbbbbbb")
    out = merge_state(STATE, ours, theirs)
    assert out.clean and "Progress: [###-------] 50%" in out.text and "aaaaaaaaaaaa" in out.text


def test_state_prose_both_rewrote_is_a_conflict():
    base = STATE + "\n## Notes\nThe API is REST.\n"
    out = merge_state(base, base.replace("REST.", "REST and GraphQL."), base.replace("REST.", "gRPC."))
    assert out.conflicts and "<<<<<<< ours" in out.text and "REST and GraphQL." in out.text and "gRPC." in out.text
