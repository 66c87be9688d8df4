"""`msd_run health`: each check finds its inconsistency (a fixture per code), and a healthy tree has none."""

from __future__ import annotations

import json
import os
import time

import pytest

from msd_core.health import check
from msd_core.health.codes import CODES
from tests.health.conftest import write


def codes(root):
    return [f.code for f in check.findings(root)]


def test_a_healthy_project_has_no_finding(healthy):
    assert check.findings(healthy) == []
    assert check.report(healthy, [])["status"] == "healthy"


def _break_missing_file(root):
    (root / ".planning/PROJECT.md").unlink()


def _break_config(root):
    (root / ".planning/config.json").write_text("{not json")


def _break_config_value(root):
    (root / ".planning/config.json").write_text('{"mode": "turbo", "workflow": {"research": "yes"}}')


def _break_shared_number(root):
    (root / ".planning/phases/02-login").mkdir()


def _break_link(root):
    os.symlink(root / ".planning/phases/02-auth", root / ".planning/phases/04-linked")


def _break_unnamed(root):
    write(root, {".planning/phases/misc/x-PLAN.md": "p\n"})


def _break_not_in_roadmap(root):
    (root / ".planning/phases/07-extra").mkdir()


def _break_roadmap_folder(root):
    (root / ".planning/phases/02-auth/.keep").unlink()
    (root / ".planning/phases/02-auth").rmdir()
    roadmap = root / ".planning/ROADMAP.md"
    roadmap.write_text(roadmap.read_text().replace("- [ ] **Phase 2", "- [x] **Phase 2"))


def _break_plan_summary(root):
    write(root, {".planning/phases/01-foundation/01-02-PLAN.md": "---\nphase: 01\n---\np\n",
                 ".planning/phases/02-auth/02-01-PLAN.md": "p\n", ".planning/phases/02-auth/02-01-SUMMARY.md": "s\n"})


def _break_summary_plan(root):
    write(root, {".planning/phases/01-foundation/01-09-SUMMARY.md": "s\n"})


def _break_outside(root):
    write(root, {".planning/phases/02-01-PLAN.md": "p\n"})


def _break_prefix(root):
    write(root, {".planning/phases/01-foundation/05-01-PLAN.md": "p\n",
                 ".planning/phases/01-foundation/05-01-SUMMARY.md": "s\n"})


def _break_frontmatter(root):
    write(root, {".planning/phases/01-foundation/01-01-SUMMARY.md": "---\nphase: 01\nno closing fence\n"})


def _break_frontmatter_yaml(root):
    write(root, {".planning/phases/01-foundation/01-01-SUMMARY.md": "---\nphase: 01\nkey: [unclosed\n---\nbody\n"})


def _break_state_bytes(root):
    (root / ".planning/STATE.md").write_bytes(b"## Position\nStatus: \xff\xfe bad\n")


def _break_state_stale(root):
    p = root / ".planning/STATE.md"
    p.write_text(p.read_text().replace("Status: Ready to discuss", "Status: Ready to verify"))


def _break_state_drift(root):
    p = root / ".planning/STATE.md"
    p.write_text(p.read_text().replace("## Position", "## Current Position").replace(
        "Status: Ready to discuss", "Status: Ready to verify"))


def _break_handoff_stale(root):
    write(root, {".planning/.continue-here.md": "---\nphase: 01\n---\nresume\n"})


def _break_handoff_left(root):
    write(root, {".planning/phases/01-foundation/.continue-here.md": "resume\n"})


def _break_txn(root):
    write(root, {".planning/.msd-core.txn/new/0": "staged, no journal: killed before the first change"})


def _break_state_due(root):
    _break_state_stale(root)
    write(root, {".planning/.msd/state-due": '{"op": "phase-remove"}\n'})


def _break_temp(root):
    write(root, {".planning/.STATE.md.999999999-abc.msd-tmp": "half"})


def _break_msd_new(root):
    write(root, {".planning/config.json.msd-new": "{}"})


def _break_flow_unreadable(root):
    write(root, {".planning/state.json": "[1, 2"})


def _flow(root, run):
    write(root, {".planning/state.json": json.dumps({"version": 1, "workflows": {"plan-phase": run}})})


def _break_flow_malformed(root):
    _flow(root, {"status": "running", "current": 7, "vars": "x", "done": "no"})


def _break_flow_orphaned(root):
    _flow(root, {"status": "running", "current": "plan", "vars": {"phase_dir": ".planning/phases/09-gone"},
                 "done": [], "updated": "2026-11-30T14:00:00Z"})


def _break_flow_stale(root):
    _flow(root, {"status": "running", "current": "plan", "vars": {}, "done": [], "updated": "2020-01-01T00:00:00Z"})


def _break_gate_record(root):
    write(root, {".planning/.msd/gate/last.json": "{torn"})


def _break_gate_marker(root):
    write(root, {".planning/.msd/gate/last.json": json.dumps({"status": "passed", "label": "02-01"}),
                 ".planning/.msd/gate/failed": "failed 02-01\n"})


def _break_run_record(root):
    write(root, {".planning/.msd/runs/02-auth--02-01.json": "{torn"})


def _break_run_orphan(root):
    write(root, {".planning/.msd/runs/09-gone--09-01.json": json.dumps(
        {"phase_dir": "09-gone", "plan": "09-01", "commits": [{"hash": "abc"}]})})


def _break_ticket(root):
    write(root, {".planning/.msd/chain/s1.ticket.json": "{}"})
    old = time.time() - 3 * 3600
    os.utime(root / ".planning/.msd/chain/s1.ticket.json", (old, old))


def _depends(root, on: str) -> None:
    roadmap = root / ".planning/ROADMAP.md"
    goal = "**Goal**: A user can log in\n"
    roadmap.write_text(roadmap.read_text().replace(goal, f"{goal}**Depends on**: Phase 1, {on}\n"))


def _break_cross_root(root):
    _depends(root, "Phase 1 of libs/none")  # no git work tree here: the folder is named from the project's


def _break_cross_root_phase(root):
    write(root, {"libs/core/.planning/ROADMAP.md": "# Roadmap\n\n- [ ] **Phase 1: Core** - x\n"})
    _depends(root, "Phase 4 of libs/core")


BREAKS = {
    "planning-file-missing": _break_missing_file,
    "config-unreadable": _break_config,
    "config-value-invalid": _break_config_value,
    "phase-number-shared": _break_shared_number,
    "phase-folder-link": _break_link,
    "phase-folder-unnamed": _break_unnamed,
    "phase-missing-from-roadmap": _break_not_in_roadmap,
    "roadmap-phase-missing-folder": _break_roadmap_folder,
    "plan-summary-missing": _break_plan_summary,
    "summary-plan-missing": _break_summary_plan,
    "phase-file-outside-folder": _break_outside,
    "file-prefix-mismatch": _break_prefix,
    "frontmatter-unreadable": _break_frontmatter,
    "frontmatter-not-yaml": _break_frontmatter_yaml,
    "state-unreadable": _break_state_bytes,
    "state-stale": _break_state_stale,
    "state-drift": _break_state_drift,
    "handoff-stale": _break_handoff_stale,
    "handoff-left": _break_handoff_left,
    "change-interrupted": _break_txn,
    "temp-orphaned": _break_temp,
    "msd-new-stray": _break_msd_new,
    "flow-state-unreadable": _break_flow_unreadable,
    "flow-run-malformed": _break_flow_malformed,
    "flow-run-orphaned": _break_flow_orphaned,
    "flow-run-stale": _break_flow_stale,
    "gate-record-unreadable": _break_gate_record,
    "gate-marker-stale": _break_gate_marker,
    "run-record-unreadable": _break_run_record,
    "run-record-orphaned": _break_run_orphan,
    "chain-ticket-left": _break_ticket,
    "cross-root-missing": _break_cross_root,
    "cross-root-phase-missing": _break_cross_root_phase,
}


def test_a_state_due_record_is_an_interrupted_change(healthy):
    _break_state_due(healthy)
    assert "change-interrupted" in codes(healthy)


def test_every_code_has_a_fixture_that_finds_it():
    # codes missing from BREAKS (and phase-folder-of-archived-milestone, proven on the corpus below)
    assert set(CODES) - set(BREAKS) == {"phase-folder-of-archived-milestone"}


@pytest.mark.parametrize("code", sorted(BREAKS))
def test_each_check_fails_on_its_fixture(healthy, code):
    BREAKS[code](healthy)
    found = codes(healthy)
    assert code in found, found


def test_archived_milestone_folders_are_found_on_a_corpus_tree(copy_corpus_tree):
    root = copy_corpus_tree("SixFive7__HitsterCardGenerator")
    found = [f for f in check.findings(root) if f.code == "phase-folder-of-archived-milestone"]
    assert found and all(f.data["folders"] for f in found)


def test_a_check_only_reads(healthy):
    for name in ("_break_gate_marker", "_break_flow_orphaned", "_break_temp", "_break_state_stale"):
        globals()[name](healthy)
    before = sorted((p.relative_to(healthy).as_posix(), p.stat().st_mtime_ns) for p in healthy.rglob("*"))
    check.findings(healthy)
    after = sorted((p.relative_to(healthy).as_posix(), p.stat().st_mtime_ns) for p in healthy.rglob("*"))
    assert before == after


def test_every_corpus_tree_is_checked_without_an_error(corpus_dir, copy_corpus_tree):
    from tests.conftest import corpus_tree_names

    for name in corpus_tree_names():
        root = copy_corpus_tree(name)
        report = check.report(root, check.findings(root))
        assert report["status"] in ("healthy", "degraded", "broken")
        assert all(f["code"] in CODES for f in report["findings"])


@pytest.mark.parametrize("stamp", ["1970-01-01T00:00:00Z", "2000-02-29T12:00:00Z", "2024-03-01T00:00:01Z",
                                   "2026-12-31T23:59:59Z", "2100-02-28T00:00:00Z"])
def test_flow_stamps_read_as_utc(stamp):
    import calendar

    from msd_core.planning.flow_state import parse_stamp as _stamp

    assert _stamp(stamp) == calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ"))
    assert _stamp("yesterday") is None and _stamp(None) is None and _stamp("2026-13-01T00:00:00Z") is None


def test_an_invalid_config_value_is_one_finding_naming_key_value_and_default(healthy):
    _break_config_value(healthy)  # "yes" is a true word msd reads: only mode is wrong
    found = [f for f in check.findings(healthy) if f.code == "config-value-invalid"]
    assert [(f.file, f.message) for f in found] == [
        (".planning/config.json", 'mode: expected one of interactive, yolo, found "turbo"; msd reads the default '
                                  '"interactive" (fix: msd config set mode <value>)')]
