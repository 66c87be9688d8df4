"""A budget crossed is told once, in the real host (issue 31 item 2), and no hook runs on an
ordinary Bash call (issue 35 item 4): with `usage.context_warn_percent` set, the PostToolUse hook
runs after an Agent call or msd's own step-done / commit calls only (the `if` rules of
msd_core/install/host_hooks.py), adds its warning to the next request the model receives and
shows it to the user (`systemMessage`), and no later call in the session repeats it. The host
writes a response's transcript line after that response's own PostToolUse hooks have run, so the
warning uses the context of the requests before (seen in 2.1.332)."""

from __future__ import annotations

import json

import hostkit

WARNING = "msd: this session's context is at"


def _hook_starts(run: hostkit.HostRun) -> list[str]:
    return [e.get("hook_name") for e in run.events
            if e.get("type") == "system" and e.get("subtype") == "hook_started" and e.get("hook_event") == "PostToolUse"]


def test_the_context_warning_reaches_the_model_and_the_user_once(host_global):
    host = host_global
    hostkit.planning_project(host.project)
    host.msd_run("config", "set", "usage.context_warn_percent", "50")
    root = str(host.config_dir / "msd-core")
    result = json.dumps({"phase": "01", "phase_dir": "01-auth", "skip_research": True})
    script = [
        {**hostkit.bash(f"msd_run next-step --workflow plan-phase --var phase=01 --root {root}", when="GO"),
         "usage": {"input_tokens": 150000, "output_tokens": 3}},
        {**hostkit.bash("msd_run next --raw"), "usage": {"input_tokens": 160000, "output_tokens": 3}},
        {**hostkit.bash(f"msd_run step-done --workflow plan-phase --step load-context --result '{result}' --root {root}"),
         "usage": {"input_tokens": 170000, "output_tokens": 3}},
        {**hostkit.bash("msd_run commit --help"), "usage": {"input_tokens": 175000, "output_tokens": 3}},
        {"text": "done"},
    ]
    run = host.run("GO", script, transcripts=True, args=["--include-hook-events"])
    assert run.returncode == 0, run.stderr[-2000:]
    assert [err for name, _i, _t, err in run.tool_results] == [False] * 4, run.tool_results
    bodies = [json.dumps(b) for b in run.model_requests]
    assert len(bodies) == 5
    told = [i for i, b in enumerate(bodies) if WARNING in b]
    assert told and told[0] == 3  # after step-done: the first call a hook runs on
    assert bodies[-1].count(WARNING) == 1  # and never again (the commit call's hook stays quiet)
    assert "of 200,000 tokens; warning level 50%)" in bodies[-1]
    # the user is shown it once too: the hook's systemMessage is the host's notice to the user
    shown = [e["content"] for e in run.events if e.get("type") == "system" and e.get("subtype") == "informational"
             and WARNING in str(e.get("content"))]
    assert len(shown) == 1 and shown[0].startswith(f"PostToolUse:Bash says: {WARNING}"), shown
    # one hook process for step-done and one for commit; none for next-step or next
    assert _hook_starts(run) == ["PostToolUse:Bash", "PostToolUse:Bash"]


def test_without_a_budget_msd_calls_start_the_hook_and_it_prints_nothing(host_global):
    host = host_global
    hostkit.planning_project(host.project)
    script = [{**hostkit.bash("msd_run commit --help", when="GO"), "usage": {"input_tokens": 190000, "output_tokens": 3}},
              {**hostkit.bash("echo ordinary"), "usage": {"input_tokens": 195000, "output_tokens": 3}},
              {"text": "done"}]
    run = host.run("GO", script, transcripts=True, args=["--include-hook-events", "--allowedTools", "Bash(echo *)"])
    assert run.returncode == 0, run.stderr[-2000:]
    assert WARNING not in run.stdout
    assert _hook_starts(run) == ["PostToolUse:Bash"]
