"""The whole cycle in the real host: new-project -> discuss-phase 1 -> plan-phase 1 ->
execute-phase 1 -> verify-work 1 -> progress, one `claude -p` run per command.

The scripted model issues the tool calls the spines prescribe (Bash `msd_run` lines with
`--root ~/.claude/msd-core` as written, Write for the files the workflow writes itself,
Agent for the subagents, whose own scripted turns Write their files). Every turn after
the first waits for a substring of the previous tool result (`when`), so a runtime answer
other than the one the flow should give leaves the script unmatched and the run ends
with SCRIPT-EXHAUSTED instead of the stage's closing line. After each stage: `.planning/`
(state, plans, summaries, flow state) and that no tool call was denied or failed.

Settings: mode yolo, research and plan check off, verifier on, commit_docs off: a git repository
whose commits hold the code only (the executor commits its task through `msd_run commit --plan`,
the evidence that counts its SUMMARY).
File writes run with `--permission-mode acceptEdits` (a user accepting edits); every
Bash line is covered by the one permission msd installs, `Bash(msd_run *)`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import hostkit
from hostkit import bash

from tests.content.test_content_walkthrough import VALUES, render

ROOT = "~/.claude/msd-core"
PH = ".planning/phases/01-core"
ARGS = ["--permission-mode", "acceptEdits"]


def step_done(workflow: str, step: str, result: dict, when: str) -> dict:
    return bash(f"msd_run step-done --workflow {workflow} --step {step} --result '{json.dumps(result)}' --root {ROOT}", when)


def after(step: str) -> str:
    """`when` for the turn that does `step`: the runtime named it as the next step."""
    return f'"next_step":"{step}"'


def write(host: hostkit.Host, rel: str, text: str, when: str | None = None) -> dict:
    turn = {"tool_use": [{"name": "Write", "input": {"file_path": str(host.project / rel), "content": text}}]}
    if when is not None:
        turn["when"] = when
    return turn


def agent(name: str, prompt: str, when: str) -> list[dict]:
    """The two calls spawning-agents prescribes: the agent's skill payload, then the Agent call
    in the foreground (`run_in_background: false`) with the payload appended."""
    short = name.removeprefix("msd-")
    return [bash(f"msd_run agent-skills {short} --root {ROOT} --raw", when),
            {"when": "", "tool_use": [{"name": "Agent", "input": {
                "subagent_type": name, "description": f"{name} step", "run_in_background": False,
                "prompt": prompt + "\n\n(skill payload appended here)"}}]}]


def agent_marker(host: hostkit.Host, name: str) -> str:
    """A line of the agent's own file: its subagent's system prompt contains it."""
    body = (host.config_dir / "agents" / f"{name}.md").read_text().split("---", 2)[2]
    return next(line for line in body.splitlines() if len(line) > 40)


def subagent(host: hostkit.Host, name: str, writes: list[tuple[str, str]], done: str) -> list[dict]:
    """Turns of one subagent: its Write calls, then a standing closing line."""
    marker = agent_marker(host, name)
    turns = [{**write(host, rel, text), "when_system": marker} for rel, text in writes]
    return turns + [{"when_system": marker, "text": done, "repeat": True}]


def executor(host: hostkit.Host, plan: str, summary_name: str) -> list[dict]:
    """Turns of msd-executor as its agent file says: the task's file written and committed through
    `msd_run commit --plan <plan> --task N` (the commit that proves the plan done), then the SUMMARY,
    committed the same way (commit_docs is false: it stays uncommitted, and msd_run says so)."""
    marker = agent_marker(host, "msd-executor")
    summary = f"{PH}/01-01-SUMMARY.md"
    return [{**write(host, "Core", "core\n"), "when_system": marker},
            {**bash(f'msd_run commit --plan {plan} --task 1 --files Core -m "feat(01-01): core"', "Core"),
             "when_system": marker},
            {**write(host, summary, template(host, summary_name), '"committed":true'), "when_system": marker},
            {**bash(f'msd_run commit --plan {plan} --files {summary} -m "docs(01-01): complete core"', "SUMMARY"),
             "when_system": marker},
            {"when_system": marker, "text": "PLAN COMPLETE", "repeat": True}]


def template(host: hostkit.Host, name: str, **extra: str) -> str:
    return render((host.config_dir / "msd-core" / "templates" / name).read_text(), {**VALUES, **extra})


def stage(host: hostkit.Host, prompt: str, turns: list[dict], closing: str) -> hostkit.HostRun:
    run = host.run(prompt, turns + [{"when": '"route"', "text": closing}], args=ARGS, timeout=180)
    name = prompt.split()[0].lstrip("/")
    assert run.returncode == 0, run.stderr
    assert run.refusals == [], run.refusals
    assert f"<command-name>/{name}</command-name>" in run.first_user_text
    assert run.permission_denials == [], f"{prompt}: denied {run.permission_denials}"
    failed = [(n, i, out) for n, i, out, err in run.tool_results if err]
    assert failed == [], f"{prompt}: tool calls failed: {failed}"
    assert run.result.get("result") == closing, (
        f"{prompt}: the script did not run to its end (last tool results: {run.tool_results[-2:]})")
    return run


def bash_lines(run: hostkit.HostRun) -> list[str]:
    return [i["command"] for n, i, _, _ in run.tool_results if n == "Bash"]


def state(host: hostkit.Host) -> dict:
    return json.loads(host.msd_run("state", "get").stdout)


def flow_steps(host: hostkit.Host, workflow: str) -> list[str]:
    """The steps the runtime recorded for a finished flow (.planning/state.json)."""
    run = json.loads((host.project / ".planning" / "state.json").read_text())["workflows"][workflow]
    assert run["status"] == "done", (workflow, run["status"], run["current"])
    return [h["step"] for h in run["history"]]


def state_text(host: hostkit.Host) -> str:
    return (host.project / ".planning" / "STATE.md").read_text()


def test_the_whole_cycle_in_the_real_host(host_global):
    host = host_global
    p = host.project
    hostkit.new_repo(p)  # code is committed (msd_run commit --plan records the plan's commits); docs are not
    settings = {"testing.command": "none", "mode": "yolo", "workflow.research": "false",
                "workflow.plan_check": "false", "workflow.verifier": "true", "commit_docs": "false"}

    # --- new-project
    turns = [
        bash(f"msd_run next-step --workflow new-project --root {ROOT}"),
        step_done("new-project", "detect-existing", {"has_project": False, "has_code": False}, '"step":"detect-existing"'),
        step_done("new-project", "questioning", {"summary": "Building: a habit tracker. Core value: one tap"},
                  after("questioning")),
        bash("mkdir -p .planning", after("ask-settings")),
        *[bash(f"msd_run config set {k} {v}") for k, v in settings.items()],
        step_done("new-project", "ask-settings", {"settings": {"mode": "yolo", "commit_docs": False}}, '"commit_docs"'),
        write(host, ".planning/PROJECT.md", template(host, "project.md"), after("write-project")),
        step_done("new-project", "write-project", {"written": True}, "PROJECT.md"),
        write(host, ".planning/REQUIREMENTS.md", template(host, "requirements.md"), after("write-requirements")),
        step_done("new-project", "write-requirements", {"v1": 2, "categories": 1}, "REQUIREMENTS.md"),
        *subagent(host, "msd-roadmapper", [(".planning/ROADMAP.md", template(host, "roadmap.md")),
                                           (".planning/STATE.md", template(host, "state.md"))], "ROADMAP-WRITTEN"),
        *agent("msd-roadmapper", "Write .planning/ROADMAP.md and .planning/STATE.md from the requirements.", after("roadmap")),
        step_done("new-project", "roadmap", {"phases": 2}, "ROADMAP-WRITTEN"),
        step_done("new-project", "confirm-roadmap", {"approved": True}, after("confirm-roadmap")),
        # the commit step runs whatever commit_docs says: msd_run commit commits nothing and says so
        bash('msd_run commit --files .planning/PROJECT.md .planning/REQUIREMENTS.md .planning/ROADMAP.md .planning/STATE.md '
             '.planning/config.json -m "docs: initialize habit-tracker"', after("commit")),
        step_done("new-project", "commit", {"committed": False, "reason": "commit_docs is false"}, '"committed":false'),
        bash("msd_run next", after("done")),
    ]
    run = stage(host, "/msd-new-project a habit tracker", turns, "NEW-PROJECT-DONE")
    assert '"route":"discuss-phase"' in run.tool_results[-1][2]
    for rel in ("PROJECT.md", "REQUIREMENTS.md", "ROADMAP.md", "STATE.md", "config.json"):
        assert (p / ".planning" / rel).is_file(), rel
    cfg = json.loads((p / ".planning/config.json").read_text())
    assert cfg["mode"] == "yolo" and cfg["commit_docs"] is False and cfg["workflow"]["verifier"] is True
    assert flow_steps(host, "new-project") == ["detect-existing", "questioning", "ask-settings", "write-project",
                                               "write-requirements", "roadmap", "confirm-roadmap", "commit"]
    assert state(host)["position"]["Status"] == "Ready to discuss"  # step-done syncs STATE.md (state_sync): no CONTEXT yet
    roadmapper = [r for r in run.model_requests if agent_marker(host, "msd-roadmapper") in json.dumps(r.get("system"))]
    assert roadmapper, "the roadmapper subagent never ran"

    # --- discuss-phase 1
    turns = [
        bash("msd_run state get"),
        bash(f"mkdir -p {PH}", '"position"'),
        write(host, f"{PH}/01-CONTEXT.md", template(host, "context.md")),
        bash('msd_run state patch --status "Ready to plan" --set-session "Phase 1 context gathered"', "CONTEXT.md"),
        bash("msd_run next"),
    ]
    run = stage(host, "/msd-discuss-phase 1", turns, "DISCUSS-DONE")
    assert '"/msd-plan-phase 1"' in run.tool_results[-1][2]
    assert (p / PH / "01-CONTEXT.md").is_file()
    assert "Phase 1 context gathered" in state_text(host)

    # --- plan-phase 1
    turns = [
        bash(f"msd_run next-step --workflow plan-phase --var phase=01 --root {ROOT}"),
        step_done("plan-phase", "load-context", {"phase": "01", "phase_dir": "01-core", "gaps": False, "skip_research": True},
                  '"step":"load-context"'),
        bash(f"msd_run extensions planner --phase-dir {PH} --root {ROOT} --raw", after("plan")),
        *subagent(host, "msd-planner", [(f"{PH}/01-01-PLAN.md", template(host, "plan.md"))], "PLANS-WRITTEN"),
        *agent("msd-planner", "Plan phase 1 (01-core) into PLAN.md files.", ""),
        step_done("plan-phase", "plan", {"plans": 1, "waves": 1}, "PLANS-WRITTEN"),
        bash("msd_run state sync", after("commit")),
        bash('msd_run state patch --set-session "Planned phase 1"', '"in_sync"'),
        bash('msd_run commit --files .planning/phases/01-core/01-01-PLAN.md .planning/ROADMAP.md .planning/STATE.md '
             '-m "docs(phase-1): plan phase 1"', '"written"'),
        step_done("plan-phase", "commit", {"committed": False, "reason": "commit_docs is false"}, '"committed":false'),
        bash("msd_run next", after("done")),
    ]
    run = stage(host, "/msd-plan-phase 1", turns, "PLAN-DONE")
    assert '"/msd-execute-phase 1"' in run.tool_results[-1][2]
    assert (p / PH / "01-01-PLAN.md").is_file()
    assert state(host)["position"]["Status"] == "Ready to execute"
    assert "Planned phase 1" in state_text(host)
    assert flow_steps(host, "plan-phase") == ["load-context", "plan", "commit"]

    # --- execute-phase 1
    plan = f"{PH}/01-01-PLAN.md"
    summary_name = Path(json.loads(host.msd_run("template", "select", plan, "--root", str(host.config_dir / "msd-core")).stdout)["path"]).name
    verification = "---\nphase: 01-core\nstatus: passed\nscore: 1/1\ngaps: []\n---\n# Phase 1 verification\n"
    turns = [
        bash(f"msd_run next-step --workflow execute-phase --var phase=01 --root {ROOT}"),
        bash(f"msd_run compile-plan {plan} --root {ROOT}", '"step":"discover-plans"'),
        bash(f"msd_run extensions executor --plan {plan} --root {ROOT} --raw", '"compiled"'),
        bash(f"msd_run template select {plan} --root {ROOT}", "deviation-rules.md"),
        step_done("execute-phase", "discover-plans", {"phase": "01", "phase_dir": "01-core", "plans_remaining": 1}, summary_name),
        *executor(host, plan, summary_name),
        *agent("msd-executor", f"Execute {plan}.", after("execute-wave")),
        step_done("execute-phase", "execute-wave", {"wave": 1, "plans_remaining": 0, "stuck": False}, "PLAN COMPLETE"),
        bash('msd_run gate run --label "phase 01 wave 1"', after("gate")),
        step_done("execute-phase", "gate", {"status": "skipped"}, '"status":"skipped"'),
        *subagent(host, "msd-verifier", [(f"{PH}/01-VERIFICATION.md", verification)], "VERIFICATION-PASSED"),
        *agent("msd-verifier", "Verify phase 1 (01-core).", after("verify")),
        step_done("execute-phase", "verify", {"status": "passed"}, "VERIFICATION-PASSED"),
        bash("msd_run state sync", after("update-state")),
        bash('msd_run state patch --set-session "Executed phase 1"', '"in_sync"'),
        step_done("execute-phase", "update-state", {"updated": True}, '"written"'),
        bash("msd_run next", after("done")),
    ]
    run = stage(host, "/msd-execute-phase 1", turns, "EXECUTE-DONE")
    assert (p / PH / "01-01-SUMMARY.md").is_file() and (p / PH / "01-VERIFICATION.md").is_file()
    assert state(host)["position"]["Status"] == "Ready to discuss"  # synced after update-state: phase 2 is next
    assert state(host)["position"]["Phase"] == "2 of 2 (Core)"  # derived by state sync: phase 1 done, phase 2 next
    assert flow_steps(host, "execute-phase") == ["discover-plans", "execute-wave", "gate", "verify", "update-state"]
    assert any("compile-plan" in c for c in bash_lines(run))

    # --- verify-work 1
    uat_spine = (host.config_dir / "msd-core" / "workflows" / "verify-work.md").read_text()
    uat = re.search(r"```markdown\n(---\nstatus: testing.*?)```", uat_spine, re.S).group(1)
    turns = [
        bash("msd_run history-digest --phase 1"),
        # every test passed: the rows say so too (a row left at `issue` would keep the phase open)
        write(host, f"{PH}/01-UAT.md", uat.replace("status: testing ", "status: complete", 1).replace("result: issue", "result: pass"),
              "create_habit()"),
        bash("msd_run state sync", "01-UAT.md"),
        bash('msd_run state patch --set-session "UAT passed for phase 1"', '"in_sync"'),
        bash("msd_run next"),
    ]
    run = stage(host, "/msd-verify-work 1", turns, "VERIFY-DONE")
    assert (p / PH / "01-UAT.md").is_file()
    assert state(host)["position"]["Status"] == "Ready to discuss"  # derived: phase 1 verified, phase 2 next
    assert '"/msd-discuss-phase 2"' in run.tool_results[-1][2]

    # --- progress
    turns = [bash("msd_run state get"), bash("msd_run history-digest --phase 1", '"position"'), bash("msd_run next", '"phases"')]
    run = stage(host, "/msd-progress", turns, "PROGRESS-DONE")
    assert '"/msd-discuss-phase 2"' in run.tool_results[-1][2]


def test_without_the_installed_permission_runtime_calls_are_denied(host_global):
    """The guard behind `permission_denials == []`: drop `Bash(msd_run *)` from settings.json
    and the same prescribed line is denied (nothing runs), in the same permission mode."""
    host = host_global
    settings = host.config_dir / "settings.json"
    data = json.loads(settings.read_text())
    data["permissions"]["allow"] = [r for r in data["permissions"]["allow"] if r != "Bash(msd_run *)"]
    settings.write_text(json.dumps(data))
    (host.project / ".planning").mkdir()
    run = host.run("/msd-progress", [bash("msd_run config set mode yolo"), {"text": "end"}], args=ARGS)
    assert [d["tool_name"] for d in run.permission_denials] == ["Bash"]
    assert not (host.project / ".planning" / "config.json").exists()
