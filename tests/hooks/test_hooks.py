"""What msd does when the host calls it (msd_core/hooks): each handler run as the host runs it,
`msd_run hook <event>` with the host's JSON on stdin, in a project with an msd install.

- SessionStart: msd_run's folder onto $CLAUDE_ENV_FILE; after compact/resume/clear with a
  workflow in progress, where it is and the one command to run, as additionalContext; nothing
  for a new session or when no workflow is in progress;
- PreCompact: the checkpoint, and no checkpoint without a workflow;
- PostToolUse: a context share or a phase budget crossed is told once, as the host's JSON;
  nothing with the budgets off (the default);
- PreToolUse (the guards; their decisions: test_planning_guard.py, test_secret_guard.py,
  test_injection_screen.py): the hook the host starts on every Read takes msd_run's fast path;
- the status line: one short line, never a failure;
- every hook stays on msd_run's light path (no typer, rich, subprocess, ...).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from msd_core.usage import locate
from tests.kit.probe import denied
from tests.kit.transcripts import Transcript, usage

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A project with a local msd install (the flows are read from it, verified)."""
    from msd_core.install.installer import install
    from msd_core.paths import resolve_target

    proj = tmp_path_factory.mktemp("hooks") / "proj"
    pl = proj / ".planning"
    (pl / "phases" / "01-auth").mkdir(parents=True)
    (pl / "PROJECT.md").write_text("# Project\n")
    (pl / "ROADMAP.md").write_text("# Roadmap\n\n- [ ] **Phase 1: Auth** - log in\n")
    (pl / "STATE.md").write_text("---\nmilestone: v2.0\n---\n# State\n")
    assert install(resolve_target("local", project_dir=proj)).exit_code == 0
    return proj


@pytest.fixture
def project(installed, tmp_path):
    """A fresh copy of the installed project for each test."""
    import shutil

    proj = tmp_path / "proj"
    shutil.copytree(installed, proj, symlinks=True)
    return proj


def msd_run(*args: str, cwd: Path, stdin: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", "msd_core.run", *args], input=stdin, cwd=str(cwd), env=full,
                          capture_output=True, text=True, timeout=60)


def root_of(proj: Path) -> str:
    return str(proj / ".claude" / "msd-core")


def start_flow(proj: Path, advance: bool = False) -> None:
    r = msd_run("next-step", "--workflow", "plan-phase", "--var", "phase=01", "--root", root_of(proj), cwd=proj)
    assert r.returncode == 0, r.stderr
    if advance:
        result = json.dumps({"phase": "01", "phase_dir": "01-auth", "skip_research": True})
        r = msd_run("step-done", "--workflow", "plan-phase", "--step", "load-context", "--result", result, "--root", root_of(proj), cwd=proj)
        assert r.returncode == 0, r.stderr


def hook(event: str, proj: Path, payload: dict, env: dict | None = None, root: str | None = ".claude/msd-core") -> subprocess.CompletedProcess:
    args = ["hook", event] + (["--root", root] if root else [])
    r = msd_run(*args, cwd=proj, stdin=json.dumps({"cwd": str(proj), **payload}), env={"CLAUDE_PROJECT_DIR": str(proj), **(env or {})})
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return r


# --- SessionStart --------------------------------------------------------------------------

def test_a_new_session_gets_nothing_but_the_path_line(project, tmp_path):
    start_flow(project)
    env_file = tmp_path / "env.sh"
    r = hook("session-start", project, {"hook_event_name": "SessionStart", "source": "startup"}, {"CLAUDE_ENV_FILE": str(env_file)})
    assert r.stdout == ""
    line = env_file.read_text()
    assert line.startswith("export PATH='") and line.endswith(":\"$PATH\"\n")


@pytest.mark.parametrize("source", ["compact", "resume", "clear"])
def test_after_compact_resume_or_clear_the_agent_is_told_where_it_is_and_what_to_run(project, source):
    start_flow(project, advance=True)
    r = hook("session-start", project, {"hook_event_name": "SessionStart", "source": source})
    out = json.loads(r.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    text = out["additionalContext"]
    assert text.startswith("msd: the plan-phase workflow is in progress (phase 01), at step `plan` (spawn_agent, visit 1).")
    assert 'Last step done: `load-context`, result {"phase": "01", "phase_dir": "01-auth", "skip_research": true}.' in text
    command = f"msd_run next-step --workflow plan-phase --root {root_of(project)}"
    assert f"`{command}`" in text
    # the command given is the one that continues at that step
    again = msd_run(*command.split()[1:], cwd=project)
    assert json.loads(again.stdout)["step"] == "plan"
    assert json.loads(msd_run("next", cwd=project).stdout)["resume"] == {
        "workflow": "plan-phase", "step": "plan", "command": "msd_run next-step --workflow plan-phase"}


def test_nothing_is_injected_when_no_workflow_is_in_progress(project):
    for source in ("compact", "resume", "clear"):
        assert hook("session-start", project, {"source": source}).stdout == ""
    start_flow(project)
    state = project / ".planning" / "state.json"
    doc = json.loads(state.read_text())
    doc["workflows"]["plan-phase"]["status"] = "done"
    state.write_text(json.dumps(doc))
    assert hook("session-start", project, {"source": "compact"}).stdout == ""


def test_an_open_question_is_named_for_the_user(project):
    r = msd_run("next-step", "--workflow", "new-project", "--restart", "--root", root_of(project), cwd=project)
    assert r.returncode == 0, r.stderr
    state = project / ".planning" / "state.json"
    doc = json.loads(state.read_text())
    doc["workflows"]["new-project"]["current"] = "questioning"  # an ask_user step: the run waits for the user
    state.write_text(json.dumps(doc))
    step = json.loads(msd_run("next-step", "--workflow", "new-project", "--root", root_of(project), cwd=project).stdout)
    assert step["action"] == "ask_user"
    text = json.loads(hook("session-start", project, {"source": "compact"}).stdout)["hookSpecificOutput"]["additionalContext"]
    assert "at step `questioning` (ask_user" in text
    assert "Open question for the user (ask it; do not answer it yourself): " + step["prompt"][:80] in text


# --- PreCompact ----------------------------------------------------------------------------

def test_pre_compact_writes_the_checkpoint_and_removes_a_stale_one(project):
    start_flow(project, advance=True)
    assert hook("pre-compact", project, {"hook_event_name": "PreCompact", "trigger": "auto", "session_id": "S1"}).stdout == ""
    point = json.loads((project / ".planning" / ".msd" / "checkpoint.json").read_text())
    assert {k: point[k] for k in ("workflow", "step", "action", "phase", "phase_dir", "trigger", "session_id")} == {
        "workflow": "plan-phase", "step": "plan", "action": "spawn_agent", "phase": "01", "phase_dir": "01-auth",
        "trigger": "auto", "session_id": "S1"}
    assert point["last"]["step"] == "load-context" and point["next"].startswith("msd_run next-step --workflow plan-phase")
    (project / ".planning" / "state.json").unlink()
    hook("pre-compact", project, {"trigger": "manual"})
    assert not (project / ".planning" / ".msd" / "checkpoint.json").exists()


# --- PostToolUse: budgets ------------------------------------------------------------------

def _transcript(project: Path, tmp_path: Path, context: int) -> Path:
    t = Transcript(str(project), session="S").command("msd-plan-phase", "1")
    t.reply(usage(context // 2, context - context // 2, 0, 3), skill="msd-plan-phase")
    return t.write(tmp_path / "cfg" / "projects" / locate.folder_name(str(project.resolve())) / "S.jsonl")


def test_budgets_off_by_default_print_nothing(project, tmp_path):
    start_flow(project)
    path = _transcript(project, tmp_path, 900_000)
    r = hook("post-tool-use", project, {"session_id": "S", "transcript_path": str(path), "tool_name": "Bash"},
             {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")})
    assert r.stdout == ""


def test_a_context_share_past_the_warning_level_is_told_once_a_session(project, tmp_path):
    assert msd_run("config", "set", "usage.context_warn_percent", "50", cwd=project).returncode == 0
    path = _transcript(project, tmp_path, 150_000)  # 75 % of the default 200,000 window
    payload = {"session_id": "S", "transcript_path": str(path), "tool_name": "Bash"}
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    assert hook("post-tool-use", project, {**payload, "agent_id": "sub"}, env).stdout == ""  # a subagent's call: not the session's context
    first = json.loads(hook("post-tool-use", project, payload, env).stdout)
    assert first["systemMessage"] == first["hookSpecificOutput"]["additionalContext"]
    assert first["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert "this session's context is at 75% of the model's window (150,000 of 200,000 tokens; warning level 50%)" in first["systemMessage"]
    assert hook("post-tool-use", project, payload, env).stdout == ""  # once
    assert hook("post-tool-use", project, {**payload, "session_id": "S2"}, env).stdout != ""  # another session


def test_a_phase_past_its_token_budget_is_told_once(project, tmp_path):
    start_flow(project)
    assert msd_run("config", "set", "usage.phase_token_budget", "1000", cwd=project).returncode == 0
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    path = _transcript(project, tmp_path, 400)
    payload = {"session_id": "S", "transcript_path": str(path), "tool_name": "Bash"}
    assert hook("post-tool-use", project, payload, env).stdout == ""  # 403 of 1,000
    _transcript(project, tmp_path, 2000)
    out = json.loads(hook("post-tool-use", project, payload, env).stdout)
    assert "phase 01 has used 2,003 tokens, past its budget of 1,000" in out["systemMessage"]
    assert hook("post-tool-use", project, payload, env).stdout == ""


# --- the status line -----------------------------------------------------------------------

def test_the_status_line_outside_and_inside_a_workflow(project, tmp_path):
    payload = {"cwd": str(tmp_path), "model": {"id": "claude-x"}, "context_window": {"used_percentage": 41.6, "context_window_size": 500_000}}
    r = msd_run("statusline", cwd=tmp_path, stdin=json.dumps(payload))
    assert (r.returncode, r.stdout, r.stderr) == (0, "msd · ctx 42%\n", "")
    start_flow(project, advance=True)
    payload["workspace"] = {"project_dir": str(project)}
    r = msd_run("statusline", "--root", ".claude/msd-core", cwd=project, stdin=json.dumps(payload), env={"CLAUDE_PROJECT_DIR": str(project)})
    assert r.stdout == "msd v2.0 · phase 01 · plan-phase: plan · ctx 42% · phase 0 tok\n"
    assert json.loads((project / ".planning" / ".msd" / "usage" / "cache.json").read_text())["windows"] == {"claude-x": 500_000}


@pytest.mark.parametrize("stdin", ["", "{not json", "[1, 2]", json.dumps({"context_window": "x", "model": 3, "cwd": 7})])
def test_the_status_line_never_fails(tmp_path, stdin):
    r = msd_run("statusline", cwd=tmp_path, stdin=stdin)
    assert (r.returncode, r.stdout, r.stderr) == (0, "msd\n", "")


# --- the light path ------------------------------------------------------------------------

PROBE = r"""
import io, json, sys, contextlib
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[3].encode()))
from msd_core.run.dispatch import main
buf, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
    code = main(json.loads(sys.argv[1]))
with open(sys.argv[2], "w") as fh:
    json.dump({"code": code, "out": buf.getvalue(), "err": err.getvalue(), "modules": sorted(sys.modules)}, fh)
"""


@pytest.mark.parametrize("argv,payload", [
    (["hook", "probe"], {}),
    (["hook", "session-start", "--root", ".claude/msd-core"], {"source": "compact"}),
    (["hook", "pre-compact", "--root", ".claude/msd-core"], {"trigger": "manual"}),
    (["hook", "post-tool-use", "--root", ".claude/msd-core"], {"tool_name": "Bash"}),
    (["hook", "pre-tool-use", "--root", ".claude/msd-core"], {"tool_name": "Write", "session_id": "S",
                                                              "tool_input": {"file_path": ".planning/ROADMAP.md", "content": "x"}}),
    (["statusline", "--root", ".claude/msd-core"], {"context_window": {"used_percentage": 3}}),
], ids=["probe", "session-start", "pre-compact", "post-tool-use", "pre-tool-use-refused", "statusline"])
def test_hooks_import_nothing_heavy(project, tmp_path, argv, payload):
    start_flow(project, advance=True)
    msd_run("config", "set", "usage.phase_token_budget", "10", cwd=project)  # the budget path runs too
    out = tmp_path / "probe.json"
    r = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv), str(out), json.dumps({"cwd": str(project), **payload})],
                       cwd=str(project), env={**os.environ, "CLAUDE_PROJECT_DIR": str(project), "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")},
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    res = json.loads(out.read_text())
    assert res["code"] == 0 and res["err"] == "", res["err"]
    assert denied(res["modules"], set()) == []


FAST = r"""
import atexit, json, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv[0] = "msd_run"
from msd_core.run.entry import main
main()
"""


@pytest.mark.parametrize("payload,refused", [
    ({"tool_name": "Read", "tool_input": {"file_path": "src/app.py"}}, False),
    ({"tool_name": "Read", "tool_input": {"file_path": ".env"}}, True),
    ({"tool_name": "Bash", "tool_input": {"command": "cat .env.local"}}, True),
    ({"tool_name": "Write", "tool_input": {"file_path": ".planning/phases/01-auth/01-CONTEXT.md", "content": "# Context\n\nmore\n"}}, False),
    ({"tool_name": "Edit", "tool_input": {"file_path": ".planning/PROJECT.md", "old_string": "# Project", "new_string": "# Project X"}}, False),
], ids=["read", "read-secret", "bash-secret", "write-planning", "edit-planning"])
def test_the_guard_hook_takes_the_fast_path(project, tmp_path, payload, refused):
    """What the host starts on every Read and every Write/Edit into .planning/: `msd_run hook
    pre-tool-use` through msd_run's process entry, without argparse, the dispatcher or pathlib."""
    out = tmp_path / "modules.json"
    r = subprocess.run([sys.executable, "-c", FAST, str(out), "hook", "pre-tool-use", "--root", ".claude/msd-core"],
                       input=json.dumps({"cwd": str(project), "session_id": "S", **payload}), cwd=str(project),
                       env={**os.environ, "CLAUDE_PROJECT_DIR": str(project)}, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert ('"permissionDecision": "deny"' in r.stdout) is refused, r.stdout
    modules = json.loads(out.read_text())
    assert denied(modules, set()) == []
    assert not {"argparse", "pathlib", "msd_core.run.dispatch", "msd_core.config.store"} & set(modules)


# --- the lean start: the guard hook as the install registers it ------------------------------------

GUARD_CALLS = [
    ({"tool_name": "Read", "tool_input": {"file_path": "src/app.py"}}, False),
    ({"tool_name": "Read", "tool_input": {"file_path": ".env"}}, True),
    ({"tool_name": "Bash", "tool_input": {"command": "cat .env.local"}}, True),
    ({"tool_name": "Write", "tool_input": {"file_path": ".planning/phases/01-auth/01-CONTEXT.md", "content": "# Context\n\nmore\n"}}, False),
    ({"tool_name": "Edit", "tool_input": {"file_path": ".planning/PROJECT.md", "old_string": "# Project", "new_string": "# Project X"}}, False),
]
GUARD_IDS = ["read", "read-secret", "bash-secret", "write-planning", "edit-planning"]
NOT_ON_AN_ALLOWED_CALL = {"site", "re", "json", "enum"}  # a third of a hook's start (scripts/bench_guards.py)


def guard_entry() -> dict:
    from msd_core.install import host_hooks

    return host_hooks.hook_entry(Path("/nowhere/bin/msd_run"), "pre-tool-use", ".claude/msd-core", "Read")


def run_started(start: list[str], project: Path, payload: dict) -> tuple[subprocess.CompletedProcess, set[str]]:
    """`start` plus `-X importtime` (after the program): the answer, and every module the process imported."""
    r = subprocess.run([start[0], "-X", "importtime", *start[1:]], input=json.dumps({"cwd": str(project), "session_id": "S", **payload}),
                       cwd=str(project), env={**os.environ, "CLAUDE_PROJECT_DIR": str(project)}, capture_output=True, text=True, timeout=60)
    lines = r.stderr.splitlines()
    imported = {line.rsplit("|", 1)[-1].strip() for line in lines if line.startswith("import time:")}
    r.stderr = "\n".join(line for line in lines if not line.startswith("import time:"))
    return r, imported


@pytest.mark.parametrize("payload,refused", GUARD_CALLS, ids=GUARD_IDS)
def test_the_guard_hook_as_installed_answers_without_site_re_or_json(project, payload, refused):
    entry = guard_entry()
    r, imported = run_started([entry["command"], *entry["args"]], project, payload)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert ('"permissionDecision": "deny"' in r.stdout) is refused, r.stdout
    assert "msd_core.hooks.pre_tool_use" in imported
    if not refused:  # a refusal builds its JSON with the json module: rare, and then the cost is no matter
        assert sorted(imported & NOT_ON_AN_ALLOWED_CALL) == []


def test_the_console_script_start_imports_what_the_lean_start_avoids(project):
    """The fixture that proves the check above can fail: the same allowed Read through pip's msd_run script."""
    runner = Path(sys.executable).parent / "msd_run"
    if not runner.is_file():
        pytest.skip(f"no msd_run console script beside {sys.executable} (not a pip install of msd-core)")
    r, imported = run_started([sys.executable, str(runner), "hook", "pre-tool-use", "--root", ".claude/msd-core"], project,
                              GUARD_CALLS[0][0])
    assert (r.returncode, r.stdout) == (0, "")
    assert {"site", "re"} <= imported


def test_a_lean_start_whose_folder_is_gone_finds_msd_through_site(project):
    """The venv rebuilt on a newer Python: the folder the start names is gone; site's search finds msd."""
    import msd_core

    entry = guard_entry()
    home = os.path.dirname(os.path.dirname(os.path.abspath(msd_core.__file__)))
    code = entry["args"][3].replace(repr(home), repr(str(project / "gone")))
    assert code != entry["args"][3]
    args = [*entry["args"][:3], code, *entry["args"][4:]]
    r, imported = run_started([entry["command"], *args], project, GUARD_CALLS[1][0])
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert '"permissionDecision": "deny"' in r.stdout and "site" in imported


def test_a_lean_start_that_finds_no_msd_exits_1_never_2(project, tmp_path):
    """A python without msd (a venv rebuilt without it): exit 1, which the host reads as no verdict;
    exit 2 would refuse every Read and every planning write."""
    import venv

    venv.EnvBuilder(with_pip=False, symlinks=True).create(tmp_path / "bare")
    entry = guard_entry()
    import msd_core

    home = os.path.dirname(os.path.dirname(os.path.abspath(msd_core.__file__)))
    code = entry["args"][3].replace(repr(home), repr(str(tmp_path / "gone")))
    r = subprocess.run([str(tmp_path / "bare" / "bin" / "python"), *entry["args"][:3], code, *entry["args"][4:]],
                       input=json.dumps({"cwd": str(project), **GUARD_CALLS[1][0]}), cwd=str(project),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "ModuleNotFoundError: No module named 'msd_core'" in r.stderr and r.stdout == ""
