"""`msd usage` against the real host's transcripts (issue 31, Proof): a scripted session plans
phase 1 with an msd-planner subagent and executes it with an msd-executor subagent; the stand-in
model reports known usage for every request; `msd usage --json` must give exactly those totals
per phase, plan, agent and command, and the executor's context at its first task and peak.

The expected figures are the script's own numbers, summed here; nothing the code under test
computes is used as an expectation. Transcripts need CLAUDE_CODE_SKIP_PROMPT_HISTORY unset
(hostkit's QUIET_ENV sets it): every run here passes `transcripts=True`.
"""

from __future__ import annotations

import json

import hostkit

PLAN = ("---\nphase: 01-auth\nplan: 01\ntype: execute\nwave: 1\ndepends_on: []\nfiles_modified: [src/auth.py]\n"
        "autonomous: true\n---\n<objective>Log in.</objective>\n<task type=\"auto\"><name>Task 1</name></task>\n")


def _u(base: int) -> dict:
    """A request's usage: distinct figures per request, so any mix-up shows in the sums."""
    return {"input_tokens": base, "cache_read_input_tokens": 3 * base, "cache_creation_input_tokens": base // 2,
            "output_tokens": base // 10}


def _sum(usages: list[dict]) -> dict:
    out = {"requests": len(usages), "input": 0, "cache_read": 0, "cache_write": 0, "output": 0}
    for u in usages:
        out["input"] += u["input_tokens"]
        out["cache_read"] += u["cache_read_input_tokens"]
        out["cache_write"] += u["cache_creation_input_tokens"]
        out["output"] += u["output_tokens"]
    out["total"] = out["input"] + out["cache_read"] + out["cache_write"] + out["output"]
    return out


def _kinds(row: dict) -> dict:
    return {k: row[k] for k in ("requests", "input", "cache_read", "cache_write", "output", "total")}


def _context(u: dict) -> int:
    return u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]


def _run_phase_step(host: hostkit.Host, prompt: str, next_step: str, agent: str, agent_prompt: str, u: dict) -> None:
    """One `-p` run: the skill, `msd_run next-step`, an Agent call whose subagent makes two requests, a reply."""
    script = [
        {**hostkit.bash(next_step), "usage": u["next"]},
        {"when": '"step"', "tool_use": [{"name": "Agent", "input": {"subagent_type": agent, "description": "d", "prompt": agent_prompt,
                                                                     "run_in_background": False}}], "usage": u["spawn"]},
        {"when_system": f"You are {agent}", "tool_use": [{"name": "Bash", "input": {"command": "echo working", "description": "x"}}],
         "usage": u["sub1"]},
        {"when_system": f"You are {agent}", "when": "working", "text": "SUB-DONE", "usage": u["sub2"]},
        {"when": "SUB-DONE", "text": "finished", "usage": u["done"]},
    ]
    run = host.run(prompt, script, transcripts=True)
    assert run.returncode == 0, run.stderr[-2000:]
    assert [r.get("turn") for r in run.requests if r.get("turn") is not None] == [0, 1, 2, 3, 4], run.stderr[-1000:]


def test_usage_reproduces_the_scripted_totals_per_phase_plan_agent_and_command(host_global):
    host = host_global
    hostkit.planning_project(host.project)
    root = str(host.config_dir / "msd-core")
    plan_u = {"next": _u(1000), "spawn": _u(2000), "sub1": _u(3000), "sub2": _u(3100), "done": _u(1100)}
    _run_phase_step(host, "/msd-plan-phase 1", f"msd_run next-step --workflow plan-phase --var phase=01 --root {root}",
                    "msd-planner", "Plan phase 01 (auth).", plan_u)
    (host.project / ".planning" / "phases" / "01-auth" / "01-01-PLAN.md").write_text(PLAN)
    exec_u = {"next": _u(4000), "spawn": _u(4200), "sub1": _u(5000), "sub2": _u(7000), "done": _u(4400)}
    _run_phase_step(host, "/msd-execute-phase 1", f"msd_run next-step --workflow execute-phase --var phase=01 --root {root}",
                    "msd-executor", "Execute .planning/phases/01-auth/01-01-PLAN.md", exec_u)

    out = host.msd("usage", "--json")
    data = json.loads(out.stdout)
    assert data["lines"]["malformed"] == 0 and data["lines"]["unknown"] == 0, data["lines"]
    everything = [*plan_u.values(), *exec_u.values()]
    assert _kinds(data["totals"]) == _sum(everything)
    assert {r["phase"]: _kinds(r) for r in data["by_phase"]} == {"01": _sum(everything)}
    assert {r["plan"]: _kinds(r) for r in data["by_plan"]} == {"01-01": _sum([exec_u["sub1"], exec_u["sub2"]])}
    assert {r["agent"]: _kinds(r) for r in data["by_agent"]} == {
        "main": _sum([plan_u["next"], plan_u["spawn"], plan_u["done"], exec_u["next"], exec_u["spawn"], exec_u["done"]]),
        "msd-planner": _sum([plan_u["sub1"], plan_u["sub2"]]),
        "msd-executor": _sum([exec_u["sub1"], exec_u["sub2"]]),
    }
    assert {r["command"]: _kinds(r) for r in data["by_command"]} == {"plan-phase": _sum(list(plan_u.values())),
                                                                      "execute-phase": _sum(list(exec_u.values()))}
    (plan_row,) = data["by_plan"]
    assert plan_row["executor_start"]["tokens"] == _context(exec_u["sub1"])
    assert plan_row["executor_peak"]["tokens"] == _context(exec_u["sub2"])
    window = plan_row["executor_start"]["window"]
    assert plan_row["executor_start"]["share"] == round(_context(exec_u["sub1"]) / window, 4)
    assert data["sessions"] == 2 and data["transcripts"] == 4


def test_a_compaction_summary_is_counted_apart_from_the_attributed_requests(host_global):
    """The host writes no request line for its compaction summary; its usage is in the session's
    `cost-state` totals only. msd usage reports it as `unattributed`, the other requests as before."""
    host = host_global
    hostkit.planning_project(host.project)
    first, summary, second = _u(1000), _u(9000), _u(2000)
    script = [
        {"when": "Your task is to create a detailed summary", "text": "<summary>the session so far</summary>", "usage": summary},
        {"when": "FIRST-PROMPT", "text": "one", "usage": first},
        {"when": "SECOND-PROMPT", "text": "two", "usage": second},
    ]
    run = host.live(["FIRST-PROMPT", "/compact", "SECOND-PROMPT"], script, transcripts=True, timeout=180)
    assert run.returncode == 0, run.stderr[-2000:]
    data = json.loads(host.msd("usage", "--json").stdout)
    assert _kinds(data["totals"]) == _sum([first, second])
    expected = _sum([summary])
    assert {k: data["unattributed"][k] for k in ("input", "cache_read", "cache_write", "output", "total")} == \
        {k: expected[k] for k in ("input", "cache_read", "cache_write", "output", "total")}
    assert data["unattributed"]["sessions_counted_by_host"] == 1
    human = host.msd("usage").stdout
    assert "compaction summaries" in human and f"{expected['total']:,}" in human.replace("\u202f", ",")
