"""`msd chain`: fake agents that succeed, fail, and forget an output; prompt files; dry run;
ask_user without a terminal; resuming after a failure."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from tests.kit.flowkit import fake_install

AGENT = textwrap.dedent(r'''
    import json, os, shlex, subprocess, sys
    from pathlib import Path

    step = os.environ["MSD_STEP"]
    mode = os.environ.get("FAKE_MODE", "succeed")
    how = os.environ.get("FAKE_REPORT", "command")  # command: the brief's msd_run line; file: $MSD_STEP_RESULT
    if "--" in sys.argv:  # --prompt-file: one line naming the brief file
        line = sys.argv[-1]
        brief = Path(line.split(" in ", 1)[1].rsplit(" and follow", 1)[0]).read_text()
    else:
        brief = sys.stdin.read()
    log = Path(os.environ["FAKE_LOG"])
    with log.open("a") as fh:
        fh.write(json.dumps({"step": step, "argv": sys.argv[1:], "brief": brief}) + "\n")
    print(f"fake agent on {step}")  # goes to the chain's stderr
    at = step == os.environ.get("FAKE_AT", step)
    if mode == "fail" and at:
        sys.exit(7)
    if mode == "silent" and at:
        sys.exit(0)
    project = Path(os.environ["MSD_PROJECT"])
    counter = project / "waves.txt"
    result = {}
    if step == "discover-plans":
        result = {"phase": "02", "phase_dir": "02-a"}
    elif step == "execute-wave":
        n = int(counter.read_text()) + 1 if counter.exists() else 1
        counter.write_text(str(n))
        (project / f".planning/phases/02-a/02-0{n}-SUMMARY.md").write_text("# done\n")  # msd_run counts what is left
        result = {"stuck": False}
    elif step == "gate":
        result = {"status": "passed"}
    elif step == "verify":
        if not (mode == "forget" and at):
            p = project / ".planning/phases/02-a/02-VERIFICATION.md"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("---\nstatus: passed\n---\n")
        result = {"status": "passed"}
    elif step == "update-state":
        if not (mode == "lie" and at):
            (project / ".planning/STATE.md").write_text("# State\nphase 02 done\n")
        result = {"updated": True}
    if mode == "badjson" and at:
        Path(os.environ["MSD_STEP_RESULT"]).write_text("{oops")
    elif how == "file":
        Path(os.environ["MSD_STEP_RESULT"]).write_text(json.dumps(result))
    else:
        line = next(l.strip() for l in brief.splitlines() if l.strip().startswith("msd_run step-report "))
        argv = shlex.split(line)
        if "--result" in argv:
            argv[argv.index("--result") + 1] = json.dumps(result)
        proc = subprocess.run([sys.executable, "-m", "msd_core.run", *argv[1:]], capture_output=True, text=True)
        print(proc.stdout.strip(), proc.stderr.strip())
        sys.exit(proc.returncode)
''')


@pytest.fixture
def setup(tmp_path):
    project = tmp_path / "proj"
    phase = project / ".planning" / "phases" / "02-a"
    phase.mkdir(parents=True)
    for n in (1, 2):  # one plan in each of two waves
        (phase / f"02-0{n}-PLAN.md").write_text(f"---\nwave: {n}\n---\n# 02-0{n}\n")
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT)
    install = fake_install(tmp_path / "cfg", extra={"agents/msd-executor.md": "executor\n"})
    log = tmp_path / "log.jsonl"
    cmd = f"{sys.executable} {agent}"
    return project, install, cmd, log


def _log(log):
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _chain(msd, project, install, cmd, log, *extra, mode="succeed", at=None, report="command"):
    env = {"FAKE_MODE": mode, "FAKE_LOG": str(log), "FAKE_REPORT": report}
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
    assert "wave 1 of phase 02" in wave and "stuck (bool)" in wave
    assert "wave 2 of phase 02" in calls[3]["brief"]  # the second visit names the wave the files say is next
    # the report command is literal: no shell variable, no redirect
    line = next(ln.strip() for ln in wave.splitlines() if ln.strip().startswith("msd_run step-report --ticket "))
    assert "$" not in line and ">" not in line and "execute-phase-execute-wave-1.ticket.json" in line
    assert "fake agent on verify" in r.stderr  # agent output goes to stderr, the report to stdout
    state = json.loads((project / ".planning" / "state.json").read_text())["workflows"]["execute-phase"]
    assert state["status"] == "done" and state["visits"]["execute-wave"] == 2


def test_result_file_still_works(msd, setup):
    project, install, cmd, log = setup
    r = _chain(msd, project, install, cmd, log, "--var", "phase=02", "--json", report="file")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "done"
    assert "Alternative: write the same JSON object to the file " in _log(log)[0]["brief"]


def test_prompt_file_mode_passes_one_line_after_a_double_dash(msd, setup):
    """A list-valued option at the end of --agent-cmd cannot swallow the line: it comes after `--`."""
    project, install, cmd, log = setup
    r = _chain(msd, project, install, cmd + " --tools a b", log, "--prompt-file")
    assert r.returncode == 0, r.stderr
    first = _log(log)[0]
    assert first["argv"][:4] == ["--tools", "a", "b", "--"]
    assert first["argv"][4].startswith("Read the step brief in ") and first["argv"][4].endswith(
        "execute-phase-discover-plans-1.prompt.md and follow it.")
    assert "step `discover-plans`" in first["brief"]


def test_prompt_placeholder_takes_the_line_in_place(msd, setup, tmp_path):
    project, install, _cmd, log = setup
    show = tmp_path / "show.py"
    show.write_text("import json, sys; open(sys.argv[1], 'a').write(json.dumps(sys.argv[2:]) + '\\n'); sys.exit(9)\n")
    r = _chain(msd, project, install, f"{sys.executable} {show} {tmp_path / 'argv.txt'} {{prompt}} --tail", log, "--prompt-file")
    assert r.returncode == 1
    got = json.loads((tmp_path / "argv.txt").read_text())
    assert got[0].startswith("Read the step brief in ") and got[1:] == ["--tail"]


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
    r = _chain(msd, project, install, cmd, log, "--json", mode="forget", at="verify", report="file")
    assert r.returncode == 1
    failure = json.loads(r.stdout)["failure"]
    assert failure["step"] == "verify" and failure["exit_code"] == 0
    assert "02-VERIFICATION.md does not exist" in failure["missing"]


def test_step_report_refuses_a_missing_output_on_the_spot(msd, setup):
    """The agent learns at report time (exit 2, the problem named) instead of after it exits."""
    project, install, cmd, log = setup
    r = _chain(msd, project, install, cmd, log, "--json", mode="forget", at="verify")
    assert r.returncode == 1
    assert ("msd_run step-report: error: step verify not reported: expected file "
            ".planning/phases/02-a/02-VERIFICATION.md does not exist") in r.stderr
    failure = json.loads(r.stdout)["failure"]
    assert failure["step"] == "verify" and failure["exit_code"] == 2


def test_an_agent_reporting_nothing_is_named_as_such(msd, setup):
    project, install, cmd, log = setup
    r = _chain(msd, project, install, cmd, log, mode="silent", at="discover-plans")
    assert r.returncode == 1
    assert "the agent reported no result at all (no `msd_run step-report` call, no result file)" in r.stderr
    assert "phase, phase_dir" in r.stderr


def test_agent_writing_bad_json_is_reported(msd, setup):
    project, install, cmd, log = setup
    r = _chain(msd, project, install, cmd, log, "--json", mode="badjson", at="discover-plans", report="file")
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
    assert [p["step"] for p in plan] == ["load-context", "research", "plan", "check", "revise", "issues-left", "guided-revise",
                                         "commit", "done"]


def test_ask_user_without_terminal_fails_clearly(msd, setup):
    project, install, cmd, log = setup
    r = msd(["chain", "new-project", "--root", str(install), "--agent-cmd", cmd, "--cwd", str(project), "--json"],
            env={"FAKE_LOG": str(log), "FAKE_MODE": "succeed"})
    # detect-existing runs the agent (it reports no fields the fake knows): step-report refuses on the spot
    assert r.returncode == 1
    failure = json.loads(r.stdout)["failure"]
    assert failure["step"] == "detect-existing" and failure["missing"] == "agent exited with code 2"
    assert "step detect-existing not reported: missing field has_project (bool); missing field has_code (bool)" in r.stderr
    assert "step-report" in _log(log)[0]["brief"]


def test_ask_user_step_in_process(tmp_path):
    """ask_user answered through the ask callback; no terminal -> a clear failure."""
    from msd_core.chain.loop import Chain
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
    if step == "commit":
        import subprocess
        ident = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
        subprocess.run(["git", "add", ".planning"], cwd=project, check=True)
        subprocess.run(["git", *ident, "commit", "-q", "-m", "docs: project"], cwd=project, check=True)
    result = {"detect-existing": {"has_project": False, "has_code": False}, "commit": {"committed": True}}.get(step, {})
    Path(os.environ["MSD_STEP_RESULT"]).write_text(json.dumps(result))
''')


def test_chain_new_project_on_a_terminal(tmp_path):
    """ask_user steps asked on a real pseudo-terminal; agent steps run the fake agent."""
    from tests.config.test_init import Pty

    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
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


# ------------------------------------------------------------------ bounds (issue 13.6)

SPAWNER = textwrap.dedent(r'''
    import os, subprocess, sys, time
    from pathlib import Path
    sys.stdin.read()
    # a grandchild through a shell, in the background, sleeping "forever"
    subprocess.Popen(["/bin/sh", "-c", "sleep 1000 & echo $! > " + sys.argv[1] + "; wait"])
    for _ in range(200):
        if Path(sys.argv[1]).exists() and Path(sys.argv[1]).read_text().strip():
            break
        time.sleep(0.02)
    if sys.argv[2] == "hang":
        time.sleep(1000)
''')


def _gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # a zombie whose parent is gone counts as ended
            if open(f"/proc/{pid}/stat").read().split(") ", 1)[1].startswith("Z"):
                return True
        except OSError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("how", ["hang", "exit"])
def test_the_whole_process_group_is_ended(msd, setup, tmp_path, how):
    """--timeout ends the agent and the grandchild it started; an agent that exits leaves nothing behind either."""
    project, install, _cmd, log = setup
    spawner = tmp_path / "spawner.py"
    spawner.write_text(SPAWNER)
    pidfile = tmp_path / "grandchild.pid"
    started = time.monotonic()
    r = msd(["chain", "execute-phase", "--root", str(install), "--cwd", str(project), "--timeout", "2",
             "--agent-cmd", f"{sys.executable} {spawner} {pidfile} {how}"], timeout=60)
    assert time.monotonic() - started < 30
    assert r.returncode == 1
    pid = int(pidfile.read_text())
    try:
        assert _gone(pid), f"grandchild {pid} survived"
    finally:
        with __import__("contextlib").suppress(ProcessLookupError):
            os.kill(pid, 9)
    if how == "hang":
        assert "agent did not finish within 2s (--timeout); it and every process it started were ended" in r.stderr
    else:
        assert "reported no result at all" in r.stderr


@pytest.mark.parametrize("kind", ["fifo", "folder", "symlink-out"])
def test_a_result_path_that_is_not_a_regular_file_fails_fast(msd, setup, tmp_path, kind):
    project, install, _cmd, log = setup
    outside = tmp_path / "outside.json"
    outside.write_text('{"phase": "02", "phase_dir": "02-a", "plans_remaining": 2}')
    maker = tmp_path / "maker.py"
    maker.write_text(textwrap.dedent(f'''
        import os, sys
        sys.stdin.read()
        path = os.environ["MSD_STEP_RESULT"]
        kind = {kind!r}
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "folder":
            os.mkdir(path)
        else:
            os.symlink({str(outside)!r}, path)
    '''))
    started = time.monotonic()
    r = msd(["chain", "execute-phase", "--root", str(install), "--cwd", str(project), "--json",
             "--agent-cmd", f"{sys.executable} {maker}"], timeout=60)
    assert time.monotonic() - started < 30
    assert r.returncode == 1
    words = {"fifo": "a FIFO", "folder": "a folder", "symlink-out": "a symlink"}[kind]
    assert f"is {words}, not a regular file; refusing to read it" in json.loads(r.stdout)["failure"]["missing"]
    # a second run is refused before the agent starts (the leftover is named), or clears a symlink and retries
    r2 = msd(["chain", "execute-phase", "--root", str(install), "--cwd", str(project), "--json",
              "--agent-cmd", f"{sys.executable} -c pass"], timeout=60)
    assert r2.returncode == 1
    if kind != "symlink-out":
        assert "not a regular file; remove it and run the chain again" in json.loads(r2.stdout)["failure"]["missing"]
    assert outside.read_text().startswith('{"phase"')  # never written through


def test_default_timeout_is_documented():
    from msd_core.chain.loop import DEFAULT_TIMEOUT

    readme = (__import__("pathlib").Path(__file__).parents[2] / "README.md").read_text()
    assert DEFAULT_TIMEOUT == 1800.0 and "30 minutes" in readme


# ------------------------------------------------------------------ verified claims (issue 21.2)

NOTES_FLOW = textwrap.dedent('''
    workflow = "notes"
    version = 1
    start = "write"
    description = "write a note, commit it"

    [[steps]]
    id = "write"
    action = "write_artifact"
    prompt = "Write .planning/notes.md."
    expects = { files = [".planning/notes.md"] }
    next = "commit"

    [[steps]]
    id = "commit"
    action = "run"
    prompt = "Commit the notes."
    expects = { fields = { committed = "bool", commit = "string?", files = "list?" } }
    next = "done"

    [[steps]]
    id = "done"
    action = "done"
    prompt = "Done."
''')

NOTES_AGENT = textwrap.dedent(r'''
    import json, os, subprocess, sys
    from pathlib import Path
    sys.stdin.read()
    step, mode = os.environ["MSD_STEP"], os.environ["FAKE_MODE"]
    project = Path(os.environ["MSD_PROJECT"])
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    result = {}
    if step == "write":
        (project / ".planning/notes.md").write_text("notes\n")
    else:
        old = subprocess.run(["git", "rev-parse", "HEAD"], cwd=project, capture_output=True, text=True).stdout.strip()
        if mode != "no-commit":
            subprocess.run(git + ["add", ".planning/notes.md"], cwd=project, check=True)
            subprocess.run(git + ["commit", "-q", "-m", "notes"], cwd=project, check=True)
        if mode == "edited-after":
            (project / ".planning/notes.md").write_text("notes, changed after the commit\n")
        result = {"committed": True}
        if mode == "old-sha":
            result["commit"] = old
        if mode == "ghost-file":
            result["files"] = [".planning/ghost.md"]
        if mode == "honest":
            result["commit"] = subprocess.run(["git", "rev-parse", "HEAD"], cwd=project, capture_output=True, text=True).stdout.strip()
            result["files"] = [".planning/notes.md"]
    Path(os.environ["MSD_STEP_RESULT"]).write_text(json.dumps(result))
''')


@pytest.fixture
def notes(tmp_path):
    project = tmp_path / "notes-proj"
    (project / ".planning").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "README").write_text("x\n")
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-C", str(project), "commit", "-q",
                    "--allow-empty", "-m", "start"], check=True)
    agent = tmp_path / "notes_agent.py"
    agent.write_text(NOTES_AGENT)
    install = fake_install(tmp_path / "notes-cfg", flows={"notes": NOTES_FLOW})
    return project, install, f"{sys.executable} {agent}"


def _notes(msd, notes, mode):
    project, install, cmd = notes
    return msd(["chain", "notes", "--root", str(install), "--agent-cmd", cmd, "--cwd", str(project), "--json"],
               env={"FAKE_MODE": mode}, timeout=120)


def test_an_honest_commit_claim_passes(msd, notes):
    r = _notes(msd, notes, "honest")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "done"


@pytest.mark.parametrize("mode,needle", [
    ("no-commit", "claims committed: true but no commit was made during the step (HEAD is still "),
    ("edited-after", ".planning/notes.md has changes that are not committed"),
    ("old-sha", "which is not among the commits made during the step"),
    ("ghost-file", "claims file .planning/ghost.md, which does not exist"),
])
def test_a_false_claim_stops_the_chain_with_the_difference(msd, notes, mode, needle):
    project = notes[0]
    r = _notes(msd, notes, mode)
    assert r.returncode == 1, r.stdout
    failure = json.loads(r.stdout)["failure"]
    assert failure["step"] == "commit" and needle in failure["missing"], failure
    assert failure["claims"]
    run = json.loads((project / ".planning" / "state.json").read_text())["workflows"]["notes"]
    assert run["current"] == "commit" and "commit" not in run["results"]  # nothing recorded


def test_a_commit_claim_outside_git_is_refused(msd, notes):
    import shutil

    shutil.rmtree(notes[0] / ".git")
    r = _notes(msd, notes, "no-commit")
    assert r.returncode == 1 and "is no git repository" in json.loads(r.stdout)["failure"]["missing"]


def test_claims_checked_directly(tmp_path):
    """updated: true needs a STATE.md change; `files` outside the project are refused."""
    from msd_core.chain import verify_claims as claims

    (tmp_path / ".planning").mkdir()
    (tmp_path / ".planning" / "STATE.md").write_text("a\n")
    before = claims.snapshot(tmp_path)
    assert claims.check(tmp_path, before, {"updated": True}, []) == [
        "claims updated: true but .planning/STATE.md did not change during the step"]
    (tmp_path / ".planning" / "STATE.md").write_text("b\n")
    assert claims.check(tmp_path, before, {"updated": True}, []) == []
    assert claims.check(tmp_path, before, {"files": ["../../etc/passwd"]}, []) == [
        "claims file ../../etc/passwd, which is outside the project"]
    assert claims.check(tmp_path, before, {"updated": False, "committed": False}, []) == []


# ------------------------------------------------------------------ agent presets (issue 21.3)

def test_dry_run_shows_each_steps_command_line_for_the_claude_preset(msd, setup):
    project, install, _cmd, _log = setup
    r = msd(["chain", "plan-phase", "--root", str(install), "--cwd", str(project), "--dry-run", "--json",
             "--agent", "claude", "--allow", "Bash(npm test)"])
    assert r.returncode == 0, r.stderr
    by_step = {p["step"]: p.get("command") for p in json.loads(r.stdout)["plan"]}
    assert by_step["plan"] == "claude -p --allowedTools 'Bash(msd_run *)' Write Edit 'Bash(npm test)'  < brief on stdin"
    assert by_step["commit"] == ("claude -p --allowedTools 'Bash(msd_run *)' 'Bash(git add *)' 'Bash(git commit *)' "
                                 "'Bash(npm test)'  < brief on stdin")
    assert by_step["done"] is None
    r = msd(["chain", "plan-phase", "--root", str(install), "--cwd", str(project), "--dry-run", "--agent", "claude",
             "--prompt-file"])
    assert "command: claude -p --allowedTools 'Bash(msd_run *)' Write Edit -- 'Read the step brief in <brief file> and follow it.'" in r.stdout


@pytest.mark.parametrize("args,needle", [
    (["--agent", "gpt"], "argument --agent: 'gpt' is not a known preset"),
    (["--agent", "claude", "--agent-cmd", "x"], "give --agent or --agent-cmd, not both"),
    (["--agent", "claude", "--allow", "Bash(rm -rf /) && x("], "argument --allow: 'Bash(rm -rf /) && x(' is not a permission rule"),
    (["--agent-cmd", "x", "--allow", "Write"], "--allow works with --agent presets"),
])
def test_bad_agent_choices_are_usage_errors(msd, setup, args, needle):
    project, install, _cmd, _log = setup
    r = msd(["chain", "plan-phase", "--root", str(install), "--cwd", str(project), *args])
    assert r.returncode == 2 and needle in r.stderr


FAKE_CLAUDE = textwrap.dedent(r'''
    import json, os, shlex, subprocess, sys
    brief = sys.stdin.read()
    with open(os.environ["FAKE_LOG"], "a") as fh:
        fh.write(json.dumps({"argv": sys.argv[1:], "brief": brief}) + "\n")
    line = next(l.strip() for l in brief.splitlines() if l.strip().startswith("msd_run step-report "))
    argv = shlex.split(line)
    argv[argv.index("--result") + 1] = json.dumps({"phase": "02", "phase_dir": "02-a"})
    sys.exit(subprocess.run([sys.executable, "-m", "msd_core.run", *argv[1:]]).returncode)
''')


def test_the_claude_preset_starts_claude_headless_with_the_brief_on_stdin(msd, setup, tmp_path):
    project, install, _cmd, log = setup
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "claude"
    fake.write_text(f"#!{sys.executable}\n" + FAKE_CLAUDE)
    fake.chmod(0o755)
    r = msd(["chain", "execute-phase", "--root", str(install), "--cwd", str(project), "--agent", "claude", "--json",
             "--max-steps", "1"], env={"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}", "FAKE_LOG": str(log)})
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    assert calls[0]["argv"] == ["-p", "--allowedTools", "Bash(msd_run *)", "Write", "Edit"]
    assert "step `discover-plans`" in calls[0]["brief"]
    report = json.loads(r.stdout)
    assert report["steps"][0]["step"] == "discover-plans"  # reported through step-report, recorded
    assert "stopped after 1 steps" in report["failure"]["missing"]


def test_a_symlinked_chain_folder_is_refused(msd, setup, tmp_path):
    """Ticket, prompt and result files never follow a symlink out of the project."""
    project, install, cmd, log = setup
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    private = project / ".planning" / ".msd"
    private.mkdir()
    (private / "chain").symlink_to(outside)
    r = _chain(msd, project, install, cmd, log, "--prompt-file")
    assert r.returncode == 1 and "is a symlink or a file; refusing to write the chain's files through it" in r.stderr
    assert list(outside.iterdir()) == [] and not log.exists()


@pytest.mark.parametrize("var,said", [
    ("phase", "argument --var: 'phase' must look like name=value"),  # the command line splits NAME=VALUE
    ("Phase=02", "argument --var: variable name 'Phase' must be lower case"),  # the flow checks the name
    ("nope=1", "argument --var: plan-phase takes no variable 'nope'"),
])
def test_msd_chain_refuses_a_bad_var_in_one_line_naming_the_flag(msd, setup, var, said):
    """`msd chain` and `msd_run next-step` share the split (msd_core.run.argtypes.name_value) and the
    flow's checks (msd_core.flows.service.flow_vars); msd's error boundary names the flag."""
    project, install, _cmd, _log = setup
    r = msd(["chain", "plan-phase", "--root", str(install), "--cwd", str(project), "--dry-run", "--var", var])
    assert (r.returncode, r.stdout, r.stderr.count("\n")) == (2, "", 1), r.stderr
    assert r.stderr.startswith(f"msd: error: {said}")


def test_msd_chain_names_the_root_flag_of_a_missing_install(msd, setup, tmp_path):
    project, _install, _cmd, _log = setup
    r = msd(["chain", "plan-phase", "--root", str(tmp_path / "typo"), "--cwd", str(project), "--dry-run"])
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert r.stderr.startswith(f"msd: error: argument --root: {tmp_path / 'typo'} does not exist")
