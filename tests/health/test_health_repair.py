"""`msd_run health --repair`: each safe repair, the dry run, the transaction, the locks, the corpus."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from msd_core.health import check, repair
from tests.conftest import repo_env
from tests.health.conftest import write
from tests.health.test_health_checks import (BREAKS, _break_flow_malformed, _break_flow_orphaned, _break_gate_marker,
                                             _break_state_due, _break_state_stale, _break_temp, _break_txn)
from tests.kit.gitkit import run_msd

REPAIRABLE = ("temp-orphaned", "flow-run-malformed", "flow-run-orphaned", "gate-marker-stale", "state-stale",
              "change-interrupted")


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.is_symlink()}


def codes(root):
    return {f.code for f in check.findings(root)}


@pytest.mark.parametrize("code", REPAIRABLE)
def test_each_repair_removes_its_finding(healthy, code):
    BREAKS[code](healthy)
    assert code in codes(healthy)
    out = repair.repair(healthy)
    assert code not in codes(healthy), out
    assert out["status"] == "healthy" and any(r["code"] == code for r in out["repair"]["repaired"])


def test_dry_run_plans_every_repair_and_writes_nothing(healthy):
    for brk in (_break_temp, _break_flow_orphaned, _break_gate_marker, _break_state_stale, _break_txn):
        brk(healthy)
    before = snapshot(healthy)
    out = repair.repair(healthy, dry_run=True)
    assert snapshot(healthy) == before
    assert os.path.lexists(healthy / ".planning/.msd-core.txn")
    planned = {r["code"] for r in out["repair"]["planned"]}
    assert planned == {"temp-orphaned", "flow-run-orphaned", "gate-marker-stale", "state-stale", "change-interrupted"}
    assert out["repair"]["dry_run"] is True


def test_flow_runs_taken_out_are_kept_aside(healthy):
    _break_flow_orphaned(healthy)
    run = json.loads((healthy / ".planning/state.json").read_text())["workflows"]["plan-phase"]
    repair.repair(healthy)
    assert "plan-phase" not in json.loads((healthy / ".planning/state.json").read_text())["workflows"]
    aside = list((healthy / ".planning/.msd/aside").glob("state-*.json"))
    assert len(aside) == 1 and json.loads(aside[0].read_text())["workflows"]["plan-phase"] == run


def test_a_marker_is_written_when_the_last_run_failed(healthy):
    write(healthy, {".planning/.msd/gate/last.json": json.dumps({"status": "failed", "label": "02-01"})})
    assert "gate-marker-stale" in codes(healthy)
    repair.repair(healthy)
    assert (healthy / ".planning/.msd/gate/failed").read_text().startswith("failed")
    assert "gate-marker-stale" not in codes(healthy)


def test_state_repair_rederives_and_leaves_no_record(healthy):
    _break_state_stale(healthy)
    out = repair.repair(healthy)
    assert "Status: Ready to discuss" in (healthy / ".planning/STATE.md").read_text()
    assert not os.path.lexists(healthy / ".planning/.msd/state-due")
    assert out["repair"]["state"]["synced"]


def test_a_person_s_text_is_never_touched(healthy):
    """Findings without a repair are reported and their files left byte for byte."""
    from tests.health.test_health_checks import _break_frontmatter, _break_msd_new, _break_outside

    for brk in (_break_frontmatter, _break_msd_new, _break_outside, _break_temp):
        brk(healthy)
    before = snapshot(healthy)
    out = repair.repair(healthy)
    after = snapshot(healthy)
    gone = set(before) - set(after)
    assert gone == {".planning/.STATE.md.999999999-abc.msd-tmp"}
    assert all(after[k] == v for k, v in before.items() if k in after)
    left = {f["code"] for f in out["findings"]}
    assert {"frontmatter-unreadable", "msd-new-stray", "phase-file-outside-folder"} <= left


def test_the_state_record_of_an_interrupted_change_is_settled(healthy):
    _break_state_due(healthy)
    out = repair.repair(healthy)
    assert out["repair"]["repaired"][0]["code"] == "change-interrupted"
    assert not os.path.lexists(healthy / ".planning/.msd/state-due") and out["status"] == "healthy"


# ---------------------------------------------------------------- the command


def test_exit_codes_and_json(healthy):
    ok = run_msd(["health"], healthy)
    assert ok.returncode == 0 and json.loads(ok.stdout)["status"] == "healthy"
    _break_flow_orphaned(healthy)
    bad = run_msd(["health", "--json"], healthy)
    assert bad.returncode == 1 and json.loads(bad.stdout)["codes"]["flow-run-orphaned"] == 1
    text = run_msd(["health", "--text"], healthy)
    assert text.returncode == 1 and "flow-run-orphaned" in text.stdout and not text.stdout.startswith("{")
    fixed = run_msd(["health", "--repair"], healthy)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "flow-run-orphaned" in {r["code"] for r in json.loads(fixed.stdout)["repair"]["repaired"]}


def test_a_check_through_the_command_does_not_settle_a_pending_change(healthy):
    _break_txn(healthy)
    proc = run_msd(["health"], healthy)
    assert proc.returncode == 1 and "change-interrupted" in json.loads(proc.stdout)["codes"]
    assert os.path.lexists(healthy / ".planning/.msd-core.txn")


@pytest.mark.parametrize("argv, needle", [
    (["health", "--dry-run"], "--dry-run goes with --repair"),
    (["health", "--bogus"], "--bogus"),
])
def test_bad_usage_is_one_line_exit_2(healthy, argv, needle):
    proc = run_msd(argv, healthy)
    assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) <= 2


def test_no_project_is_one_line(tmp_path):
    proc = run_msd(["health", "--cwd", str(tmp_path / "nowhere")], tmp_path)
    assert proc.returncode in (1, 2) and "Traceback" not in proc.stderr and proc.stderr.strip()


def test_malformed_flow_state_is_reported_never_rewritten(healthy):
    from tests.health.test_health_checks import _break_flow_unreadable

    _break_flow_unreadable(healthy)
    proc = run_msd(["health", "--repair"], healthy)
    assert proc.returncode == 1 and "flow-state-unreadable" in json.loads(proc.stdout)["codes"]
    assert (healthy / ".planning/state.json").read_text() == "[1, 2"


def test_a_held_state_lock_times_out_with_exit_4(healthy):
    from msd_core.files.atomic import locked
    from msd_core.planning import project

    _break_state_stale(healthy)
    before = snapshot(healthy)
    with locked(project.state_lock(healthy), 5, what="STATE.md", anchor=healthy):
        proc = run_msd(["health", "--repair"], healthy, env_extra={"MSD_LOCK_TIMEOUT": "0.3"})
    assert proc.returncode == 4, proc.stderr
    assert "Traceback" not in proc.stderr
    assert snapshot(healthy) == before


def test_a_repair_killed_inside_the_transaction_is_rolled_back_by_the_next(healthy):
    """MSD_TEST_SLOW_INSTALL slows each file step of the transaction; the process is killed mid-way."""
    _break_flow_orphaned(healthy)
    _break_gate_marker(healthy)
    _break_temp(healthy)
    before = snapshot(healthy)
    env = repo_env(MSD_TEST_SLOW_INSTALL="400")
    proc = subprocess.Popen([sys.executable, "-m", "msd_core.run", "health", "--repair"], cwd=healthy, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while time.time() < deadline and not (healthy / ".planning/.msd-core.txn/journal.json").exists():
        time.sleep(0.02)
    assert (healthy / ".planning/.msd-core.txn/journal.json").exists()
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert "change-interrupted" in codes(healthy)
    out = repair.repair(healthy)
    assert out["status"] == "healthy", out["findings"]
    assert not os.path.lexists(healthy / ".planning/.msd-core.txn")


# ---------------------------------------------------------------- the real trees


def test_repair_on_copies_of_every_corpus_tree(corpus_dir, copy_corpus_tree):
    """Every corpus tree, with a stale temp file and an orphaned flow run added: the repair removes
    exactly those (and the run is kept aside); every other file keeps its bytes, a dry run changes nothing."""
    from tests.conftest import corpus_tree_names

    names = corpus_tree_names()
    assert names
    t0 = time.time()
    for name in names:
        assert time.time() - t0 < 240, "corpus repair loop over its time bound"
        root = copy_corpus_tree(name)
        had_flow = (root / ".planning/state.json").exists()
        write(root, {".planning/.x.md.999999999-zz.msd-tmp": "half"})
        if not had_flow:
            _break_flow_orphaned(root)
        before = snapshot(root)
        repair.repair(root, dry_run=True)
        assert snapshot(root) == before, name
        out = repair.repair(root)
        after = snapshot(root)
        repaired = {r["code"] for r in out["repair"]["repaired"]}
        assert "temp-orphaned" in repaired, (name, out["repair"])
        changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
        allowed = {".planning/.x.md.999999999-zz.msd-tmp", ".planning/state.json", ".planning/.msd/.gitignore",
                   ".planning/STATE.md"}
        extra = {k for k in changed if k not in allowed and not k.startswith(".planning/.msd/aside/")
                 and not k.startswith(".planning/.msd/gate/") and not k.endswith(".lock")}
        assert not extra, (name, extra)
        if ".planning/STATE.md" in changed:
            assert "state-stale" in repaired, name  # only msd's own layout is re-derived
        assert {f["code"] for f in out["findings"]} & {"temp-orphaned", "flow-run-orphaned"} == set(), name
