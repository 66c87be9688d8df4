"""Done means proven, in the real host (issue 30 item 1): an msd-executor that writes its code and
SUMMARY, commits with a bare `git commit` instead of its `msd_run commit` line and reports
`## PLAN COMPLETE` does not complete the plan. Inside the same execute-phase run the orchestrator's
`msd_run wave plan` still lists the plan (`unproven`), `msd_run next` routes back to
`/msd-execute-phase 1` naming the missing recorded commit, and `state sync` leaves the plan's
roadmap box open. The scripted model issues the calls the spine prescribes.
"""

from __future__ import annotations

import json

import hostkit
from hostkit import bash, git
from test_cycle import agent_marker
from test_execute_waves import PH, opening

PLAN = f"{PH}/01-01-PLAN.md"
SUMMARY = f"{PH}/01-01-SUMMARY.md"
ARGS = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash(python3:*)", "Bash(git:*)"]


def _project(host: hostkit.Host) -> None:
    p = host.project
    hostkit.new_repo(p)
    (p / PH).mkdir(parents=True)
    (p / PLAN).write_text("---\nphase: 01-core\nplan: 01\ntype: execute\nwave: 1\ndepends_on: []\n"
                          "files_modified: [src/alpha.py]\nautonomous: true\nrequirements: []\n---\n"
                          "<objective>alpha</objective>\n<tasks>\n<task type=\"auto\">\n  <name>Task 1: write alpha</name>\n"
                          "  <files>src/alpha.py</files>\n</task>\n</tasks>\n")
    config = {"mode": "yolo", "commit_docs": True, "workflow": {"verifier": False},
              "parallelization": {"enabled": False}, "testing": {"command": "none"}}
    (p / ".planning/config.json").write_text(json.dumps(config, indent=2))
    (p / ".planning/PROJECT.md").write_text("# Demo\n")
    (p / ".planning/ROADMAP.md").write_text("# Roadmap\n\n## Phases\n\n- [ ] Phase 1: Core — core\n\n"
                                            "### Phase 1: Core\nGoal: core\nPlans: 1 plans\n- [ ] 01-01-PLAN.md — alpha\n")
    (p / ".planning/STATE.md").write_text("# Project State\n\n## Current Position\nPhase: 1 of 1 (Core)\n"
                                          "Status: Ready to execute\n")
    (p / ".gitignore").write_text(".claude/\n")
    git(p, "add", "-A")
    git(p, "commit", "-q", "-m", "init")


def test_an_executor_claim_without_recorded_commits_is_routed_back(host_global):
    host = host_global
    _project(host)
    marker = agent_marker(host, "msd-executor")
    write = ("python3 -c \"import pathlib; p = pathlib.Path('src/alpha.py'); p.parent.mkdir(exist_ok=True); "
             f"p.write_text('alpha\\n'); pathlib.Path('{SUMMARY}').write_text('---\\nplan: 01-01\\n---\\n'); "
             "print('alpha written')\"")
    executor = [
        {**bash(write, "Execute plan 01-01"), "when_system": marker},
        # the claim: a bare commit, not the brief's `msd_run commit --plan` line
        {**bash(f"git add src/alpha.py {SUMMARY} && git commit -q -m 'feat: alpha' && echo HAND-COMMITTED",
                "alpha written"), "when_system": marker},
        {"when_system": marker, "when": "HAND-COMMITTED", "text": "## PLAN COMPLETE\nplan: 01-01\ntasks: 1/1"},
    ]
    spawn = {"name": "Agent", "input": {
        "subagent_type": "msd-executor", "description": "execute 01-01", "run_in_background": False,
        "prompt": f"Execute plan 01-01 of phase 1.\nPlan: {host.project / PLAN}"}}
    main = [
        *opening(1, '"plans_remaining":1'),
        {"when": '"batches":[{"plans":["01-01"],"isolation":"none"}]', "tool_use": [spawn]},
        bash(f"msd_run wave plan --phase-dir {PH} && echo WAVE-AFTER", "PLAN COMPLETE"),
        bash("msd_run next && msd_run state sync", "WAVE-AFTER"),
        {"when": '"route":"execute-phase"', "text": "ROUTED-BACK"},
    ]
    run = host.run("/msd-execute-phase 1", executor + main, args=ARGS, timeout=240)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.permission_denials == [], run.permission_denials
    assert run.result.get("result") == "ROUTED-BACK", run.tool_results[-3:]
    agent_results = [out for n, _i, out, _e in run.tool_results if n == "Agent"]
    assert len(agent_results) == 1 and "PLAN COMPLETE" in agent_results[0]
    outs = [out for n, i, out, _e in run.tool_results if n == "Bash"]
    after_wave = next(o for o in outs if "WAVE-AFTER" in o)
    waves = json.loads(after_wave.split("\n")[0])
    assert waves["plans_remaining"] == 1 and "no commit recorded" in waves["plans"][0]["unproven"]
    routed = next(o for o in outs if '"route":' in o and "WAVE-AFTER" not in o)
    nxt = json.loads(routed.split("\n")[0])
    assert (nxt["route"], nxt["command"]) == ("execute-phase", "/msd-execute-phase 1")
    assert "01-01 has a SUMMARY but no commit recorded" in nxt["reason"]

    p = host.project
    assert git(p, "log", "-1", "--format=%s").strip() == "feat: alpha"  # the hand-made commit is there ...
    record = json.loads(host.msd_run("commit", "--plan", PLAN, "--list").stdout)
    assert record["commits"] == []  # ... but msd recorded none
    assert "- [ ] 01-01-PLAN.md" in (p / ".planning/ROADMAP.md").read_text()
