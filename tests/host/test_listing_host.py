"""Install profiles and the listing in the real host (issue 34 items 1-2).

- The lines msd_core/bench/listing.py rebuilds are exactly the msd lines the host lists to the
  model (full and core): the offline budget test (tests/bench/test_listing.py) measures what
  the host sends.
- A core install lists its eight model-invocable skills and no agent; its skills load as in a full install.
- In a core install an msd agent runs as the host's general-purpose agent: the subagent's first
  call, `msd_run agent-role <agent>`, is allowed by the installed permission and hands it the
  role (a Read of the role file would need a permission -p mode does not have: measured, so
  the role comes through msd_run).
"""

from __future__ import annotations

import hostkit
import pytest

from msd_core.bench.listing import lines

CORE = ["discuss-phase", "execute-phase", "map-codebase", "new-project", "plan-phase", "progress", "settings", "verify-work"]


def listed_msd_lines(run: hostkit.HostRun) -> list[str]:
    text = hostkit.request_text(run.first_request)
    return sorted(line for line in text.splitlines() if line.startswith("- msd-"))


@pytest.mark.parametrize("profile", ["full", "core"])
def test_the_host_lists_exactly_the_lines_the_budget_counts(host, profile):
    host.msd("install", "--global", "--profile", profile)
    run = host.run("1", [{"text": "ok"}])
    assert run.returncode == 0, run.stderr
    assert listed_msd_lines(run) == sorted(lines(host.config_dir).values())
    if profile == "core":
        assert listed_msd_lines(run) == sorted(line for line in listed_msd_lines(run) if "(Tools:" not in line)
        assert [line.split(":")[0][2:] for line in listed_msd_lines(run)] == [f"msd-{c}" for c in CORE]


def test_core_skills_load_with_their_references(host):
    host.msd("install", "--global", "--profile", "core")
    (host.project / ".planning").mkdir()
    spawning = 0
    for name in CORE:
        run = host.run(f"/msd-{name} 1", [{"text": "ok"}])
        assert run.returncode == 0, run.stderr
        assert run.refusals == [], f"/msd-{name}: {run.refusals}"
        assert f"<command-name>/msd-{name}</command-name>" in run.first_user_text
        assert "Shell command" not in run.first_user_text
        if any(path.endswith("references/spawning-agents.md") for path in run.attachments):
            spawning += 1
            assert "as in a core install: `general-purpose`" in run.first_user_text  # how its agents are spawned
    assert spawning >= 3  # new-project, plan-phase, execute-phase and verify-work attach it


def test_in_core_a_general_purpose_agent_gets_its_role_from_msd_run(host):
    """The orchestrator pastes the step-1 payload (spawning-agents.md); in a core install it
    starts with the role call, which the spawned agent runs."""
    host.msd("install", "--global", "--profile", "core")
    root = host.config_dir / "msd-core"
    role_call = f"msd_run agent-role planner --root {root} --raw"
    payload = host.msd_run("agent-skills", "planner", "--root", str(root), "--raw").stdout
    assert payload.startswith(f"Run `{role_call}` first and act as the role it prints.\n")
    script = [
        {"tool_use": [{"name": "Agent", "input": {
            "description": "plan phase 1", "subagent_type": "general-purpose", "run_in_background": False,
            "prompt": f"Job: write nothing, say PLANNED.\n\n{payload}"}}]},
        {"when": "act as the role it prints", "tool_use": [{"name": "Bash", "input": {"command": role_call, "description": "role"}}]},
        {"when": "Role: msd-planner", "text": "PLANNED"},
        {"text": "done"},
    ]
    run = host.run("plan phase 1", script)
    assert run.returncode == 0, run.stderr
    assert run.permission_denials == []
    results = [(text, err) for name, inp, text, err in run.tool_results if name == "Bash" and inp.get("command") == role_call]
    assert len(results) == 1 and not results[0][1], run.tool_results
    assert results[0][0].startswith("Role: msd-planner; use only these tools:") and "You are msd-planner." in results[0][0]
    assert "PLANNED" in "\n".join(hostkit.request_text(b) for b in run.model_requests)


def test_the_same_spawn_without_the_permission_is_refused(host):
    """The fixture for the test above: without `Bash(msd_run *)` the role call is denied."""
    import json

    host.msd("install", "--global", "--profile", "core")
    settings = host.config_dir / "settings.json"
    obj = json.loads(settings.read_text())
    obj["permissions"]["allow"] = [r for r in obj["permissions"]["allow"] if not r.startswith("Bash(msd_run")]
    settings.write_text(json.dumps(obj, indent=2) + "\n")
    role_call = f"msd_run agent-role planner --root {host.config_dir / 'msd-core'} --raw"
    script = [
        {"tool_use": [{"name": "Agent", "input": {"description": "plan", "subagent_type": "general-purpose", "run_in_background": False,
                                                  "prompt": f"Run `{role_call}` first."}}]},
        {"when": "Run `msd_run agent-role", "tool_use": [{"name": "Bash", "input": {"command": role_call, "description": "role"}}]},
        {"text": "done"},
    ]
    run = host.run("plan", script)
    assert any(d["tool_name"] == "Bash" for d in run.permission_denials), run.tool_results
