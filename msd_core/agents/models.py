"""Which model a subagent gets: `model_profile` × agent role (`msd_run model <agent>`).

The Agent (Task) tool takes an optional `model`; the orchestrator passes what this
table says, or nothing at all for `inherit` (the subagent then runs on the session's
model). Roles that decide the most (planner, roadmapper, debugger) get the strongest
model a profile allows; roles that read and report (mapper, checkers) the cheapest.

            planner roadmapper debugger executor reviewer verifier plan-checker integration-checker researchers mapper
  quality   opus    opus       opus     opus     opus     opus     opus         opus                opus        sonnet
  balanced  opus    opus       opus     sonnet   sonnet   sonnet   sonnet       sonnet              sonnet      haiku
  budget    sonnet  sonnet     sonnet   sonnet   sonnet   haiku    haiku        haiku               haiku       haiku
  inherit   (no model passed)

Standard library only.
"""

from __future__ import annotations

from msd_core.errors import UsageError

ROLES = ("planner", "roadmapper", "debugger", "executor", "verifier", "plan-checker",
         "phase-researcher", "project-researcher", "codebase-mapper", "reviewer", "integration-checker")
_TIER = {  # role -> index into a profile's (strong, middle, light) models
    "planner": 0, "roadmapper": 0, "debugger": 0, "executor": 1, "verifier": 2, "plan-checker": 2,
    "phase-researcher": 2, "project-researcher": 2, "codebase-mapper": 3,
    "reviewer": 1, "integration-checker": 2,
}
PROFILES = {  # (decides, executes, reads-and-reports, maps)
    "quality": ("opus", "opus", "opus", "sonnet"),
    "balanced": ("opus", "sonnet", "sonnet", "haiku"),
    "budget": ("sonnet", "sonnet", "haiku", "haiku"),
    "inherit": (None, None, None, None),
}


def role_of(agent: str) -> str:
    name = (agent or "").strip()
    role = name[4:] if name.startswith("msd-") else name
    if role not in _TIER:
        raise UsageError(f"unknown agent {agent!r}", hint="agents: " + ", ".join(ROLES))
    return role


def model_for(profile: str, agent: str) -> str | None:
    """The model to pass for `agent` under `profile`; None = pass no model (inherit)."""
    role = role_of(agent)
    models = PROFILES.get(profile)
    if models is None:
        raise UsageError(f"unknown model_profile {profile!r}", hint="values: " + ", ".join(PROFILES))
    return models[_TIER[role]]
