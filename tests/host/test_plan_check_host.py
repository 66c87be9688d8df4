"""The plan checker's mechanical findings reach the model in the real host (issue 30, item 4).

The orchestrator spawns msd-plan-checker with the Agent tool; the checker runs the line its
agent file names, `msd_run check plan <n> --json`, through the one permission msd installs
(`Bash(msd_run *)`); the next request the checker's model gets carries each finding's code,
file and line, and the checker's report carries them back to the orchestrator.
"""

from __future__ import annotations

import json

from hostkit import bash

from tests.execution.test_plan_check import plan, seed


def test_check_plan_findings_reach_the_plan_checker(host_global):
    host = host_global
    # D-02 (names at most 40 characters) is locked but no task cites it; task 1 cuts D-01 down
    seed(host.project, {"01-01": plan(tasks=[("auto", "Task 1: store habits", "D-01", "Write a simplified store for now.")])})
    body = (host.config_dir / "agents" / "msd-plan-checker.md").read_text().split("---", 2)[2]
    marker = next(line for line in body.splitlines() if len(line) > 40)
    line = next(ln for ln in body.splitlines() if "msd_run check plan" in ln)
    assert "`msd_run check plan <n> --json`" in line  # the line the checker is told to run
    script = [
        {"tool_use": [{"name": "Agent", "input": {"subagent_type": "msd-plan-checker", "description": "check plans",
                                                  "run_in_background": False,
                                                  "prompt": "Check the plans of phase 1 (.planning/phases/01-core)."}}]},
        {**bash("msd_run check plan 1 --json"), "when_system": marker},
        {"when_system": marker, "when": "decision-not-cited", "repeat": True,
         "text": "## ISSUES FOUND\nphase: 01-core\nplans: 1\nissues_found: 2\nwarnings: 0\n"},
        {"when": "ISSUES FOUND", "text": "checked"},
    ]
    run = host.run("Check phase 1's plans with msd-plan-checker.", script=script, timeout=180)
    assert run.returncode == 0, run.stderr
    assert run.permission_denials == [], run.permission_denials
    results = [(i["command"], out) for name, i, out, _err in run.tool_results if name == "Bash"]
    assert results and results[0][0] == "msd_run check plan 1 --json"
    findings = json.loads(results[0][1].strip().splitlines()[-1])["findings"]
    assert sorted(f["code"] for f in findings) == ["decision-not-cited", "scope-cut"]
    # what the checker's model received after its Bash call: every finding, with its line
    checker_requests = [r for r in run.model_requests if marker in json.dumps(r.get("system", ""))]
    received = json.dumps(checker_requests[-1]["messages"][-1])
    for f in findings:
        assert f["code"] in received and f'\\"line\\":{f["line"]}' in received, f
    assert run.result.get("result") == "checked", run.tool_results[-2:]
