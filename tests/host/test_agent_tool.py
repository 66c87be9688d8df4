"""The Agent tool parameters our content tells the orchestrator to pass exist in the real host.

spawning-agents.md passes `subagent_type`, `model` (from `msd_run model`), `run_in_background:
false`; execute-phase asks for `isolation: "worktree"` for parallel executors. If a host
version renames or drops one, this fails before a user's orchestrator sends an argument the
host rejects.
"""

from __future__ import annotations


def _agent_schema(run) -> dict:
    tools = {t["name"]: t for t in run.first_request["tools"]}
    assert "Agent" in tools, f"no Agent tool offered to the model; tools: {sorted(tools)}"
    return tools["Agent"]["input_schema"]["properties"]


def test_agent_tool_takes_the_parameters_the_content_passes(host_local):
    run = host_local.run("hello", script=[{"text": "done"}])
    props = _agent_schema(run)
    for name in ("subagent_type", "prompt", "model", "run_in_background", "isolation"):
        assert name in props, f"Agent tool lost parameter {name!r}: {sorted(props)}"
    assert "worktree" in props["isolation"].get("enum", [])
    assert props["run_in_background"]["type"] == "boolean"


def test_every_model_msd_run_model_can_print_is_one_the_host_accepts(host_local):
    run = host_local.run("hello", script=[{"text": "done"}])
    accepted = set(_agent_schema(run)["model"].get("enum", []))
    from msd_core.config import schema

    profiles = schema.spec("model_profile")["values"]
    roles = ["planner", "executor", "verifier", "phase-researcher", "project-researcher",
             "plan-checker", "roadmapper", "codebase-mapper", "debugger"]
    assert len(profiles) >= 2
    (host_local.project / ".planning").mkdir()
    for profile in profiles:
        host_local.msd_run("config", "set", "model_profile", profile)
        for role in roles:
            out = host_local.msd_run("model", role, "--raw")
            model = out.stdout.strip()
            assert model == "" or model in accepted, f"{profile}/{role} -> {model!r}, host accepts {sorted(accepted)}"
