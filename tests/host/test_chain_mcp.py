"""Chained agents and the MCP server in the real Claude Code CLI (issue 21), driven by a scripted model.

- `msd chain plan-phase --agent claude` runs every step through `claude -p` with the preset's
  permissions; the agent reports with the brief's literal `msd_run step-report` line; the
  commit step makes a real commit with the compound `git add … && git commit …`.
- A scripted agent that claims a commit it did not make stops the chain.
- After `msd mcp install`, an MCP tool called from headless `claude -p` returns its answer
  and an error call comes back flagged as an error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import hostkit
import pytest

GIT_ID = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
          "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def _project(host) -> Path:
    p = host.project
    (p / ".planning").mkdir(exist_ok=True)
    (p / ".planning" / "config.json").write_text(json.dumps(
        {"workflow": {"research": False, "plan_check": False}, "commit_docs": True}))
    (p / ".planning" / "ROADMAP.md").write_text("# Roadmap\n\n## Phase 1: Setup\n")
    subprocess.run(["git", "init", "-q", str(p)], check=True)
    subprocess.run(["git", "-C", str(p), "add", "-A"], check=True, env={**os.environ, **GIT_ID})
    subprocess.run(["git", "-C", str(p), "commit", "-q", "-m", "start"], check=True, env={**os.environ, **GIT_ID})
    return p


def _report(project: Path, step: str, result: dict) -> dict:
    ticket = project / ".planning" / ".msd" / "chain" / f"plan-phase-{step}-1.ticket.json"
    return {"name": "Bash", "input": {"command": f"msd_run step-report --ticket {ticket} --result '{json.dumps(result)}'",
                                      "description": f"report step {step}"}}


def _read_brief(project: Path, step: str) -> dict:
    """--prompt-file: the model gets one line naming the brief file and reads it first."""
    path = project / ".planning" / ".msd" / "chain" / f"plan-phase-{step}-1.prompt.md"
    return {"when": f"Read the step brief in {path} and follow it.", "tool_use": [{"name": "Read", "input": {"file_path": str(path)}}]}


def _script(project: Path, commit: bool, prompt_file: bool = False) -> list[dict]:
    plan = project / ".planning" / "phases" / "01-setup" / "01-01-PLAN.md"
    reads = [_read_brief(project, s) for s in ("load-context", "plan", "commit")] if prompt_file else []
    turns = reads + [
        {"when": "step `load-context`", "tool_use": [_report(project, "load-context", {"phase": "01", "phase_dir": "01-setup"})]},
        {"when": '"reported":"load-context"', "text": "reported"},
        {"when": "step `plan`", "tool_use": [{"name": "Write", "input": {"file_path": str(plan), "content": "# Plan 01-01\n"}}]},
        {"when": "01-01-PLAN.md", "tool_use": [_report(project, "plan", {"plans": 1})]},
        {"when": '"reported":"plan"', "text": "reported"},
    ]
    if commit:
        turns += [
            {"when": "step `commit`", "tool_use": [{"name": "Bash", "input": {
                "command": "git add .planning/phases/01-setup && git commit -q -m 'docs(01): plan' && git log --oneline -1",
                "description": "commit the plans"}}]},
            {"when": "docs(01): plan", "tool_use": [_report(project, "commit", {"committed": True})]},
        ]
    else:  # claims the commit without making it
        turns += [{"when": "step `commit`", "tool_use": [_report(project, "commit", {"committed": True})]}]
    turns += [{"when": '"reported":"commit"', "text": "reported"}]
    return turns


def _chain(host, claude_cli, script, tmp_name: str, *extra: str):
    bindir = host.root / "bin"
    bindir.mkdir(exist_ok=True)
    link = bindir / "claude"
    if not link.exists():
        link.symlink_to(claude_cli)
    with hostkit.ModelServer(script, host.root / tmp_name, lifetime=400) as server:
        env = host.env([bindir, hostkit.VENV_BIN])
        env.update({"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-msd-host-test-dummy", **GIT_ID})
        proc = subprocess.run([sys.executable, "-m", "msd_core", "chain", "plan-phase", "--var", "phase=01",
                               "--agent", "claude", "--json", "--timeout", "240", *extra],
                              cwd=str(host.project), env=env, capture_output=True, text=True, timeout=600,
                              stdin=subprocess.DEVNULL)
        requests = server.requests()
    return proc, requests


def _git_log(project: Path) -> list[str]:
    return subprocess.run(["git", "-C", str(project), "log", "--format=%s"], capture_output=True, text=True).stdout.split("\n")


@pytest.mark.parametrize("prompt_file", [False, True], ids=["brief-on-stdin", "prompt-file"])
def test_plan_phase_chain_with_the_claude_preset_completes_with_a_real_commit(host_global, claude_cli, prompt_file):
    host = host_global
    project = _project(host)
    dry = host.msd("chain", "plan-phase", "--var", "phase=01", "--agent", "claude", "--dry-run")
    assert "command: claude -p --allowedTools 'Bash(msd_run *)' 'Bash(git add *)' 'Bash(git commit *)'" in dry.stdout
    extra = ("--prompt-file",) if prompt_file else ()
    proc, requests = _chain(host, claude_cli, _script(project, commit=True, prompt_file=prompt_file), "server-chain-ok", *extra)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["status"] == "done"
    assert [s["step"] for s in report["steps"]] == ["load-context", "plan", "commit"]
    assert _git_log(project)[:2] == ["docs(01): plan", "start"]
    shown = subprocess.run(["git", "-C", str(project), "show", "--name-only", "--format=", "HEAD"],
                           capture_output=True, text=True).stdout.split()
    assert shown == [".planning/phases/01-setup/01-01-PLAN.md"]
    # the brief arrived on stdin: the first user message of each step holds it, with the literal report line
    firsts = [r["body"] for r in requests if isinstance(r.get("body"), dict) and r["body"].get("tools")
              and not any(m.get("role") == "assistant" for m in r["body"]["messages"])]
    briefs = ["\n".join(hostkit.text_of(m.get("content")) for m in b["messages"]) for b in firsts]
    assert len(briefs) == 3  # one fresh agent per step
    if prompt_file:  # the one line the model got, then the brief through the Read tool
        for b in briefs:
            assert ".prompt.md and follow it." in b and "msd_run step-report" not in b
        return
    commit_brief = next(b for b in briefs if "step `commit`" in b)
    ticket = project / ".planning" / ".msd" / "chain" / "plan-phase-commit-1.ticket.json"
    assert f"msd_run step-report --ticket {ticket} --result " in commit_brief and "$MSD" not in commit_brief


def test_an_agent_claiming_a_commit_it_did_not_make_stops_the_chain(host_global, claude_cli):
    host = host_global
    project = _project(host)
    proc, _requests = _chain(host, claude_cli, _script(project, commit=False), "server-chain-lie")
    assert proc.returncode == 1, proc.stdout
    failure = json.loads(proc.stdout)["failure"]
    assert failure["step"] == "commit"
    assert "claims committed: true but no commit was made during the step" in failure["missing"]
    assert _git_log(project)[0] == "start"
    run = json.loads((project / ".planning" / "state.json").read_text())["workflows"]["plan-phase"]
    assert run["current"] == "commit" and "commit" not in run["results"]


def test_mcp_tool_answers_in_headless_mode_after_msd_mcp_install(host, claude_cli):
    (host.project / ".planning").mkdir()
    (host.project / ".planning" / "config.json").write_text(json.dumps({"mode": "yolo"}))
    host.msd("mcp", "install", "--scope", "user")
    script = [
        {"tool_use": [{"name": "mcp__msd__config_get", "input": {"key": "mode", "cwd": str(host.project)}}]},
        {"tool_use": [{"name": "mcp__msd__config_get", "input": {"key": "no.such.key", "cwd": str(host.project)}}]},
        {"text": "done"},
    ]
    run = host.run("What is the project's mode?", script)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.permission_denials == []
    calls = [(name, text, err) for name, _inp, text, err in run.tool_results if name.startswith("mcp__msd__")]
    assert len(calls) == 2, run.tool_results
    assert calls[0][2] is False and json.loads(calls[0][1]) == {"value": "yolo"}
    assert calls[1][2] is True and "unknown config key 'no.such.key'" in calls[1][1]


def test_without_the_permission_headless_calls_are_refused(host, claude_cli):
    """The guard the install's permission exists for: registered but not allowed -> refused."""
    host.msd("mcp", "install", "--scope", "user")
    host.msd("mcp", "uninstall", "--scope", "user")
    settings = host.config_dir / "settings.json"
    assert not settings.exists()  # msd mcp install created it, nothing else was in it: gone with the entry
    claude_json = host.home / ".claude.json"
    assert "mcpServers" not in json.loads(claude_json.read_text() if claude_json.exists() else "{}")
    host.msd("mcp", "install", "--scope", "user")
    data = json.loads(settings.read_text())
    data["permissions"]["allow"].remove("mcp__msd")
    settings.write_text(json.dumps(data))
    run = host.run("x", [{"tool_use": [{"name": "mcp__msd__config_get", "input": {"key": "mode"}}]}, {"text": "done"}])
    assert [d["tool_name"] for d in run.permission_denials] == ["mcp__msd__config_get"]
