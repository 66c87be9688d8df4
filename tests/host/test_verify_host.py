"""Verification decided by code, in the real host (issue 30, item 3).

msd-verifier runs the line its agent file names, `msd_run verify <n> --json`: its failed checks
reach the verifier's model. The verifier then tries to write a VERIFICATION.md that says
`passed` without the machine part: the planning write guard refuses it and the reason reaches the
model; the file keeps the failed machine part, and `msd_run next` routes to gap planning.
"""

from __future__ import annotations

import json

from hostkit import bash

from tests.execution.test_plan_check import plan, seed

ARGS = ["--permission-mode", "acceptEdits"]


def test_failed_machine_checks_reach_the_verifier_and_stand(host_global):
    host = host_global
    phase = seed(host.project, {"01-01": plan()})  # its artifact src/habits.py was never written
    # no suite here (the user said so): the tests check passes, the failed checks are the plan's own
    (host.project / ".planning" / "config.json").write_text(json.dumps({"testing": {"command": "none"}}))
    (phase / "01-01-SUMMARY.md").write_text("---\nphase: 01-core\nplan: 01\n---\n# Summary\n\nDone (it says).\n")
    vfile = phase / "01-VERIFICATION.md"
    body = (host.config_dir / "agents" / "msd-verifier.md").read_text().split("---", 2)[2]
    marker = next(line for line in body.splitlines() if len(line) > 40)
    assert "`msd_run verify <n> --json`" in body
    claim = "---\nphase: 01-core\nstatus: passed\nscore: 1/1\n---\n# Phase 1: verification\n\nAll good.\n"
    script = [
        {"tool_use": [{"name": "Agent", "input": {"subagent_type": "msd-verifier", "description": "verify phase 1",
                                                  "run_in_background": False, "prompt": "Verify phase 1 (.planning/phases/01-core)."}}]},
        {**bash("msd_run verify 1 --json"), "when_system": marker},
        {"when_system": marker, "when": "missing",
         "tool_use": [{"name": "Write", "input": {"file_path": str(vfile), "content": claim}}]},
        {"when_system": marker, "when": "machine part", "repeat": True,
         "text": "## VERIFICATION COMPLETE\nphase: 01-core\nstatus: gaps_found\nscore: 0/1\n"},
        {"when": "VERIFICATION COMPLETE", **bash("msd_run next")},
        {"when": '"route"', "text": "verified"},
    ]
    run = host.run("Verify phase 1 with msd-verifier.", script=script, args=ARGS, timeout=180)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.result.get("result") == "verified", run.tool_results[-3:]
    names = [(n, err) for n, _i, _t, err in run.tool_results]
    assert names == [("Bash", True), ("Write", True), ("Agent", False), ("Bash", False)], names  # verify exits 1
    checks = json.loads(run.tool_results[0][2].strip().splitlines()[-1])
    failed = [c["subject"] for c in checks["checks"] if c["result"] == "failed"]
    assert failed == ["src/habits.py", "src/app.py -> src/habits.py"], checks
    sent = "\n".join(json.dumps(r["messages"][-1]) for r in run.model_requests if marker in json.dumps(r.get("system", "")))
    assert "src/habits.py" in sent and "it changes or drops the machine part" in sent
    text = vfile.read_text()
    assert "result: failed" in text and "status: passed" not in text
    assert json.loads(run.tool_results[-1][2])["route"] == "plan-gaps"
