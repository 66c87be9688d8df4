"""`msd_run forensics`: each way a run goes wrong is found from the records, in order, with its evidence."""

from __future__ import annotations

import json
import os
import time

import pytest

from msd_core.reports import forensics
from tests.health.conftest import write
from tests.kit.gitkit import run_msd


def _codes(root, **kw):
    return [f["code"] for f in forensics.investigate(root, usage=False, **kw)["findings"]]


def test_nothing_went_wrong_in_a_healthy_project(healthy):
    out = forensics.investigate(healthy, usage=False)
    assert out["findings"] == [] and out["verdict"] == forensics.NOTHING
    assert out["position"] == {"phase": "2", "state": "discuss", "milestone": "open"}


def _gate_failed(root):
    write(root, {".planning/.msd/gate/last.json": json.dumps(
        {"status": "failed", "label": "02-01", "at": "2026-11-30T14:00:00Z",
         "tail": "E   assert 1 == 2\nFAILED tests/test_a.py::test_x\n==== 1 failed, 4 passed in 0.2s ===="}),
        ".planning/.msd/gate/runs.jsonl": json.dumps({"status": "failed", "label": "02-01", "at": "2026-11-30T14:00:00Z"}) + "\n"})


def _gate_unconfirmed(root):
    write(root, {".planning/.msd/gate/last.json": json.dumps({"status": "unconfirmed", "label": "02-01"})})


def _txn(root):
    write(root, {".planning/.msd-core.txn/new/0": "x"})


def _ticket(root):
    write(root, {".planning/.msd/chain/plan-phase-plan-1.ticket.json": "{}",
                 ".planning/.msd/chain/plan-phase-research-1.ticket.json": "{}",
                 ".planning/.msd/chain/plan-phase-research-1.result.json": "{}"})


def _stopped_plan(root):
    write(root, {".planning/phases/02-auth/02-01-PLAN.md": "---\nphase: 02-auth\nplan: 01\n---\np\n",
                 ".planning/.msd/runs/02-auth__02-01.json": json.dumps(
                     {"plan": "02-01", "phase_dir": "02-auth", "commits": [{"hash": "a" * 40}, {"hash": "b" * 40}]})})


def _flow(root, updated, history):
    write(root, {".planning/state.json": json.dumps({"version": 1, "workflows": {"execute-phase": {
        "status": "running", "current": "verify", "vars": {}, "history": history, "updated": updated}}})})


def _stuck(root):
    _flow(root, "2026-01-01T00:00:00Z", [{"step": "execute", "next": "verify", "at": "2026-01-01T00:00:00Z"}])


def _repeating(root):
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    _flow(root, now, [{"step": "verify", "next": "verify", "at": now}] * 4)


def _gaps(root):
    write(root, {".planning/phases/02-auth/02-01-PLAN.md": "p\n", ".planning/phases/02-auth/02-01-SUMMARY.md": "s\n"})
    time.sleep(0.01)
    write(root, {".planning/phases/02-auth/02-VERIFICATION.md": "---\nstatus: gaps_found\n---\n"})


CASES = {"gate-failed": _gate_failed, "gate-never-ran": _gate_unconfirmed, "change-interrupted": _txn,
         "chain-step-unreported": _ticket, "plan-stopped-after-commits": _stopped_plan, "flow-stuck": _stuck,
         "flow-repeating": _repeating, "verification-gaps": _gaps}


def test_every_finding_has_a_case():
    assert set(CASES) == set(forensics.ORDER)


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_finding_is_found(healthy, code):
    CASES[code](healthy)
    found = forensics.investigate(healthy, usage=False)
    assert [f["code"] for f in found["findings"]] == [code]
    assert found["verdict"] == found["findings"][0]["message"]


def test_the_evidence_of_a_failed_gate_is_its_tail(healthy):
    _gate_failed(healthy)
    f = forensics.investigate(healthy, usage=False)["findings"][0]
    assert "FAILED tests/test_a.py::test_x" in f["evidence"] and "(1 failed, 0 errors)" in f["message"]


def test_the_stopped_plan_names_its_commits(healthy):
    _stopped_plan(healthy)
    f = forensics.investigate(healthy, usage=False)["findings"][0]
    assert "recorded 2 commit(s)" in f["message"] and f["evidence"].endswith("02-01-PLAN.md")


def test_findings_are_ordered_and_the_first_is_the_verdict(healthy):
    for case in (_gaps, _ticket, _gate_failed, _txn):
        case(healthy)
    out = forensics.investigate(healthy, usage=False)
    assert [f["code"] for f in out["findings"]] == ["change-interrupted", "gate-failed", "chain-step-unreported",
                                                   "verification-gaps"]


def test_a_fresh_flow_is_not_stuck(healthy):
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    _flow(healthy, now, [{"step": "execute", "next": "verify", "at": now}])
    assert _codes(healthy) == []


def test_the_timeline_is_in_time_order(healthy):
    _gate_failed(healthy)
    _stuck(healthy)
    out = forensics.investigate(healthy, usage=False)
    stamps = [e["at"] for e in out["timeline"] if e["at"]]
    assert stamps == sorted(stamps) and {e["source"] for e in out["timeline"]} == {"gate", "flow"}


def test_unreadable_records_are_events_not_crashes(healthy):
    write(healthy, {".planning/state.json": "[1,", ".planning/.msd/runs/x__y.json": "{torn",
                    ".planning/.msd/gate/last.json": "{torn"})
    proc = run_msd(["forensics"], healthy)
    assert proc.returncode == 0, proc.stderr
    whats = " ".join(e["what"] for e in json.loads(proc.stdout)["timeline"])
    assert "state.json unreadable" in whats and "x__y.json unreadable" in whats


def test_command_exit_codes_text_and_write(healthy):
    ok = run_msd(["forensics", "--no-usage"], healthy)
    assert ok.returncode == 0 and json.loads(ok.stdout)["verdict"] == forensics.NOTHING
    _gate_failed(healthy)
    bad = run_msd(["forensics", "--text", "--no-usage"], healthy)
    assert bad.returncode == 1 and bad.stdout.startswith("# Forensics") and "[gate-failed]" in bad.stdout
    written = run_msd(["forensics", "--write", "--no-usage"], healthy)
    rel = json.loads(written.stdout)["written"]
    assert rel.startswith(".planning/forensics/") and (healthy / rel).read_text().startswith("# Forensics")
    usage = run_msd(["forensics", "--bogus"], healthy)
    assert usage.returncode == 2 and "Traceback" not in usage.stderr


def test_forensics_reads_only(healthy):
    for case in (_gate_failed, _stuck, _txn, _ticket):
        case(healthy)
    before = {p: p.stat().st_mtime_ns for p in healthy.rglob("*")}
    proc = run_msd(["forensics"], healthy)
    assert proc.returncode == 1
    assert {p: p.stat().st_mtime_ns for p in healthy.rglob("*")} == before
    assert os.path.lexists(healthy / ".planning/.msd-core.txn")
