"""`msd chain`: fake agents that succeed, fail, and forget an output; prompt files; dry run;
ask_user without a terminal; resuming after a failure."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from test_flowkit import fake_install

AGENT = textwrap.dedent(r'''
    import json, os, sys
    from pathlib import Path

    step = os.environ["MSD_STEP"]
    mode = os.environ.get("FAKE_MODE", "succeed")
    brief = Path(sys.argv[1]).read_text() if len(sys.argv) > 1 else sys.stdin.read()
    log = Path(os.environ["FAKE_LOG"])
    with log.open("a") as fh:
        fh.write(json.dumps({"step": step, "argv": sys.argv[1:], "brief": brief}) + "\n")
    print(f"fake agent on {step}")  # goes to the chain's stderr
    if mode == "fail" and step == os.environ.get("FAKE_AT", step):
        sys.exit(7)
    project = Path(os.environ["MSD_PROJECT"])
    counter = project / "waves.txt"
    result = {}
    if step == "discover-plans":
        result = {"phase": "02", "phase_dir": "02-a", "plans_remaining": 2}
    elif step == "execute-wave":
        n = int(counter.read_text()) + 1 if counter.exists() else 1
        counter.write_text(str(n))
        result = {"wave": n, "plans_remaining": 2 - n, "stuck": False}
    elif step == "gate":
        result = {"status": "passed"}
    elif step == "verify":
        if not (mode == "forget" and step == os.environ.get("FAKE_AT", step)):
            p = project / ".planning/phases/02-a/02-VERIFICATION.md"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("---\nstatus: passed\n---\n")
        result = {"status": "passed"}
    elif step == "update-state":
        result = {"updated": True}
    if mode == "badjson" and step == os.environ.get("FAKE_AT", step):
        Path(os.environ["MSD_STEP_RESULT"]).write_text("{oops")
    else:
        Path(os.environ["MSD_STEP_RESULT"]).write_text(json.dumps(result))
''')


@pytest.fixture
def setup(tmp_path):
    project = tmp_path / "proj"
    (project / ".planning").mkdir(parents=True)
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT)
    install = fake_install(tmp_path / "cfg", extra={"agents/msd-executor.md": "executor\n"})
    log = tmp_path / "log.jsonl"
    cmd = f"{sys.executable} {agent}"
    return project, install, cmd, log


def _log(log):
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _chain(msd, project, install, cmd, log, *extra, mode="succeed", at=None):
    env = {"FAKE_MODE": mode, "FAKE_LOG": str(log)}
    if at:
        env["FAKE_AT"] = at
    return msd(["chain", "execute-phase", "--root", str(install), "--agent-cmd", cmd, "--cwd", str(project), *extra],
               env=env, timeout=120)


def test_chain_runs_every_agent_step_to_done(msd, setup):
    project, install, cmd, log = setup
    r = _chain(msd, project, install, cmd, log, "--var", "phase=02", "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["ok"] and report["status"] == "done"
    assert [s["step"] for s in report["steps"]] == ["discover-plans", "execute-wave", "gate", "execute-wave", "gate", "verify",
                                                 "update-state"]
    calls = _log(log)
    assert [c["step"] for c in calls] == ["discover-plans", "execute-wave", "gate", "execute-wave", "gate", "verify",
                                                 "update-state"]
    wave = calls[1]["brief"]
    assert "Act as the msd-executor agent; its definition: " + str(install.parent / "agents" / "msd-executor.md") in wave
    assert "phase 02" in wave and "MSD_STEP_RESULT" in wave and "wave (int), plans_remaining (int)" in wave
    assert "fake agent on verify" in r.stderr  # agent output goes to stderr, the report to stdout
    state = json.loads((project / ".planning" / "state.json").read_text())["workflows"]["execute-phase"]
    assert state["status"] == "done" and state["visits"]["execute-wave"] == 2


def test_prompt_file_mode_passes_a_path(msd, setup):
    project, install, cmd, log = setup
    r = _chain(msd, project, install, cmd, log, "--prompt-file")
    assert r.returncode == 0, r.stderr
    first = _log(log)[0]
    assert first["argv"][0].endswith("execute-phase-discover-plans-1.prompt.md")
    assert "step `discover-plans`" in first["brief"]


def test_failing_agent_stops_with_a_report_and_resumes(msd, setup):
    project, install, cmd, log = setup
    r = _chain(msd, project, install, cmd, log, mode="fail", at="execute-wave")
    assert r.returncode == 1
    assert "step execute-wave (spawn_agent), exit code 7: agent exited with code 7" in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("msd: error: chain stopped")
    state = json.loads((project / ".planning" / "state.json").read_text())["workflows"]["execute-phase"]
    assert state["current"] == "execute-wave" and len(state["history"]) == 1
    # run again: it resumes at the failed step
    r = _chain(msd, project, install, cmd, log, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["steps"][0]["step"] == "execute-wave"


def test_agent_forgetting_an_output_is_reported(msd, setup):
    project, install, cmd, log = setup
    r = _chain(msd, project, install, cmd, log, "--json", mode="forget", at="verify")
    assert r.returncode == 1
    failure = json.loads(r.stdout)["failure"]
    assert failure["step"] == "verify" and failure["exit_code"] == 0
    assert "02-VERIFICATION.md does not exist" in failure["missing"]


def test_agent_writing_bad_json_is_reported(msd, setup):
    project, install, cmd, log = setup
    r = _chain(msd, project, install, cmd, log, "--json", mode="badjson", at="discover-plans")
    assert r.returncode == 1 and "is not valid JSON" in json.loads(r.stdout)["failure"]["missing"]


def test_missing_agent_command(msd, setup, tmp_path):
    project, install, _, log = setup
    r = _chain(msd, project, install, str(tmp_path / "no-such-agent"), log)
    assert r.returncode == 1 and "agent command not found" in r.stderr


@pytest.mark.parametrize("cmd,needle", [("", "required"), ("'unclosed", "does not parse"), ("   ", "empty")])
def test_bad_agent_cmd_is_usage(msd, setup, cmd, needle):
    project, install, _, log = setup
    args = ["chain", "execute-phase", "--root", str(install), "--cwd", str(project)]
    if cmd:
        args += ["--agent-cmd", cmd]
    r = msd(args)
    assert r.returncode == 2 and needle in r.stderr


def test_dry_run_prints_the_plan_and_runs_nothing(msd, setup):
    project, install, cmd, log = setup
    r = msd(["chain", "plan-phase", "--root", str(install), "--agent-cmd", cmd, "--cwd", str(project), "--dry-run",
             "--var", "phase=02"], env={"FAKE_LOG": str(log)})
    assert r.returncode == 0, r.stderr
    assert "* load-context" in r.stdout and "[msd-plan-checker]" in r.stdout and "if result.issues_found > 0 -> revise" in r.stdout
    assert not log.exists() and not (project / ".planning" / "state.json").exists()
    r = msd(["chain", "plan-phase", "--root", str(install), "--cwd", str(project), "--dry-run", "--json"])
    plan = json.loads(r.stdout)["plan"]
    assert [p["step"] for p in plan] == ["load-context", "research", "plan", "check", "revise", "commit", "done"]


def test_ask_user_without_terminal_fails_clearly(msd, setup):
    project, install, cmd, log = setup
    r = msd(["chain", "new-project", "--root", str(install), "--agent-cmd", cmd, "--cwd", str(project), "--json"],
            env={"FAKE_LOG": str(log), "FAKE_MODE": "succeed"})
    # detect-existing runs the agent (it reports no fields the fake knows): the brief asks for has_project
    assert r.returncode == 1
    failure = json.loads(r.stdout)["failure"]
    assert failure["step"] == "detect-existing" and "missing field has_project" in failure["missing"]


def test_ask_user_step_in_process(tmp_path):
    """ask_user answered through the ask callback; no terminal -> a clear failure."""
    from msd_core.chain import Chain
    from msd_core.flows import service

    project = tmp_path / "p"
    (project / ".planning").mkdir(parents=True)
    state = project / ".planning" / "state.json"
    state.write_text(json.dumps({"version": 1, "workflows": {"new-project": {
        "current": "questioning", "status": "running", "visits": {"questioning": 1}, "vars": {}, "results": {}, "history": []}}}))
    ctx = service.open_flow("new-project", cwd=project, flows_dir=str(fake_install(tmp_path / "c") / "flows"))
    no_tty = Chain(ctx, ["true"], ask=None, log=lambda t: None).run()
    assert not no_tty.ok and "no terminal" in no_tty.failure["missing"]
    answers = iter(["", "a todo app"])
    seen = []
    ctx = service.open_flow("new-project", cwd=project, flows_dir=str(fake_install(tmp_path / "c2") / "flows"))
    report = Chain(ctx, [sys.executable, "-c", "import sys; sys.exit(5)"], ask=lambda p: (seen.append(p), next(answers, None))[1],
                   log=lambda t: None).run()
    assert seen[0].startswith("summary (string)")
    assert report.steps[0] == {"step": "questioning", "action": "ask_user", "next_step": "ask-settings"}
    assert report.failure["step"] == "ask-settings" and report.failure["missing"] == "input ended"


NEW_PROJECT_AGENT = textwrap.dedent(r'''
    import json, os, sys
    from pathlib import Path

    step = os.environ["MSD_STEP"]
    sys.stdin.read()
    project = Path(os.environ["MSD_PROJECT"])
    planning = project / ".planning"
    writes = {"write-project": ["PROJECT.md"], "write-requirements": ["REQUIREMENTS.md"],
              "roadmap": ["ROADMAP.md", "STATE.md"]}
    for name in writes.get(step, []):
        (planning / name).write_text(f"# {name}\n")
    result = {"detect-existing": {"has_project": False, "has_code": False}, "commit": {"committed": True}}.get(step, {})
    Path(os.environ["MSD_STEP_RESULT"]).write_text(json.dumps(result))
''')


def test_chain_new_project_on_a_terminal(tmp_path):
    """ask_user steps asked on a real pseudo-terminal; agent steps run the fake agent."""
    from test_init import Pty

    project = tmp_path / "proj"
    project.mkdir()
    agent = tmp_path / "np_agent.py"
    agent.write_text(NEW_PROJECT_AGENT)
    install = fake_install(tmp_path / "cfg")
    with Pty(["chain", "new-project", "--root", str(install), "--agent-cmd", f"{sys.executable} {agent}",
               "--cwd", str(project)], project) as pty:
        pty.expect("summary (string): ")
        pty.send("a dice game\n")
        pty.expect("Press Enter when they are written: ")
        (project / ".planning" / "config.json").write_text(json.dumps({"workflow": {"research": False}}))
        pty.send("\n")
        pty.expect("approved (bool): ")
        pty.send("perhaps\n")
        pty.expect("answer y or n")
        pty.send("y\n")
        pty.expect("changes (string, optional): ")
        pty.send("\n")
        code, out = pty.finish()
    assert code == 0, out
    assert "new-project: done" in out
    run = json.loads((project / ".planning" / "state.json").read_text())["workflows"]["new-project"]
    assert [h["step"] for h in run["history"]] == ["detect-existing", "questioning", "ask-settings", "write-project",
                                                   "write-requirements", "roadmap", "confirm-roadmap", "commit"]
    assert run["results"]["questioning"] == {"summary": "a dice game"}
    assert run["results"]["confirm-roadmap"] == {"approved": True}


def test_tampered_agent_definition_is_not_named(msd, setup):
    project, install, cmd, log = setup
    (install.parent / "agents" / "msd-executor.md").write_text("tampered\n")
    r = _chain(msd, project, install, cmd, log, "--json")
    assert r.returncode == 0, r.stderr
    wave = [c for c in _log(log) if c["step"] == "execute-wave"][0]["brief"]
    assert "Act as the msd-executor agent." in wave and "its definition" not in wave
