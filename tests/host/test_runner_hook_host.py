"""A plain `msd install` reaches msd_run when claude starts with a PATH that lacks it (an IDE or
desktop launcher): the SessionStart hook the install adds (msd_core/install/runner_hook.py)
writes `export PATH=...` to $CLAUDE_ENV_FILE, which the host sources before shell commands.

Each test starts claude with PATH=/usr/local/bin:/usr/bin:/bin (msd_run lives only in this
venv's bin) and asserts on what the model received; the `without_hook` runs are the fixtures
proving the same setup fails when the hook is gone.
"""

from __future__ import annotations

import json
import subprocess

import hostkit

PART_MARK = "<!-- msd:part msd-core/workflows/plan-phase/detail/"
NOT_FOUND = "msd_run: command not found"


def prepare(host) -> None:
    (host.project / ".planning").mkdir(exist_ok=True)
    if not (host.project / ".git").exists():
        subprocess.run(["git", "init", "-q", str(host.project)], check=True)


def sent(run: hostkit.HostRun) -> str:
    return "\n".join(hostkit.request_text(b) for b in run.model_requests)


SCRIPT = [
    {"tool_use": [{"name": "Bash", "input": {"command": "msd_run config get mode", "description": "mode"}}]},
    {"tool_use": [{"name": "Agent", "input": {"description": "plan", "prompt": "say ok", "subagent_type": "msd-planner",
                                              "run_in_background": False}}]},
    {"when_system": "You are msd-planner", "tool_use": [{"name": "Bash", "input": {"command": "msd_run config get mode",
                                                                                    "description": "sub mode"}}]},
    {"when_system": "You are msd-planner", "text": "PLANNED"},
    {"text": "done"},
]


def bash_results(run: hostkit.HostRun) -> list[tuple[str, bool]]:
    return [(text, err) for name, inp, text, err in run.tool_results
            if name == "Bash" and inp.get("command") == "msd_run config get mode"]


def test_global_install_hook_gives_skills_agent_and_subagents_msd_run(host_global):
    host = host_global
    prepare(host)
    assert host.env(path=[])["PATH"] == "/usr/local/bin:/usr/bin:/bin"
    run = host.run("/msd-plan-phase 01", SCRIPT, path=[])
    assert run.returncode == 0, run.stderr
    assert PART_MARK in run.first_user_text and NOT_FOUND not in run.first_user_text  # (a) the skill's `!` line
    results = bash_results(run)
    assert len(results) == 2, run.tool_results  # (b) the model's call, (c) the subagent's call
    assert all(not err and NOT_FOUND not in text for text, err in results), results
    assert run.permission_denials == []  # `Bash(msd_run *)` in settings.json still allows it
    assert "PLANNED" in sent(run)


def test_without_the_hook_the_same_launch_cannot_reach_msd_run(host_global):
    host = host_global
    prepare(host)
    assert "hooks" in json.loads((host.config_dir / "settings.json").read_text())
    host.drop_hooks()
    run = host.run("/msd-plan-phase 01", SCRIPT[:1] + SCRIPT[-1:], path=[])
    assert run.returncode == 0, run.stderr
    assert PART_MARK not in run.first_user_text and NOT_FOUND in run.first_user_text
    assert [err for _, err in bash_results(run)] == [True]
    # msd status names the missing hook and the fix
    st = json.loads(host.msd("status", "--json").stdout)
    hook = [i for i in st["installs"] if i["scope"] == "global"][0]["hooks"]
    assert not hook["present"] and hook["problem"].endswith("run `msd install --global`")


def test_local_install_hook_in_settings_local_json_is_read_by_the_host(host_local):
    host = host_local
    prepare(host)
    assert "hooks" not in json.loads((host.project / ".claude" / "settings.json").read_text())
    run = host.run("/msd-plan-phase 01", SCRIPT[:1] + SCRIPT[-1:], path=[])
    assert run.returncode == 0, run.stderr
    assert PART_MARK in run.first_user_text and NOT_FOUND not in run.first_user_text
    # the project's Bash(msd_run *) applies once the folder is trusted (what a user accepts once)
    assert [err for _, err in bash_results(run)] == [True] and "not been trusted" in run.stderr
    (host.home / ".claude.json").write_text(json.dumps({"projects": {str(host.project): {"hasTrustDialogAccepted": True}}}))
    run = host.run("/msd-plan-phase 01", SCRIPT[:1] + SCRIPT[-1:], path=[])
    assert PART_MARK in run.first_user_text and run.permission_denials == []
    assert [err for _, err in bash_results(run)] == [False]
    host.drop_hooks()
    bare = host.run("/msd-plan-phase 01", [{"text": "done"}], path=[])
    assert PART_MARK not in bare.first_user_text and NOT_FOUND in bare.first_user_text
