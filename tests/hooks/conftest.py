"""Fixtures the guard tests share: the PreToolUse hook run in-process on the host's JSON (`decide`),
and a small project with a `.planning/` tree (`planning_project`)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest


class _Stdin(io.TextIOWrapper):
    def isatty(self):
        return False


def run_hook(payload: dict, event: str = "pre-tool-use") -> tuple[str | None, int]:
    from msd_core.hooks.events import run

    return run(event, None, _Stdin(io.BytesIO(json.dumps(payload).encode())))


def decision(out: str | None) -> str | None:
    """The refusal reason the model would get, or None when the call goes ahead."""
    if not out:
        return None
    spec = json.loads(out)["hookSpecificOutput"]
    assert spec["hookEventName"] == "PreToolUse" and spec["permissionDecision"] == "deny"
    return spec["permissionDecisionReason"]


def ask_server(payload: dict) -> str | None:
    """What the guard server's tool answers for `payload`, handed over as a global install's
    mcp_tool row does (each field as text, the tool input as JSON text, "" for a missing field)."""
    from msd_core.hooks.guard_server import answer
    from msd_core.install.host_hooks import GUARD_INPUT

    arguments = {k: (json.dumps(payload[k]) if k == "tool_input" else payload[k]) if k in payload else "" for k in GUARD_INPUT}
    reply = answer({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "check", "arguments": arguments}}, None)
    assert reply["id"] == 7 and "isError" not in reply["result"], reply
    content = reply["result"]["content"]
    assert len(content) <= 1 and all(c["type"] == "text" for c in content), content
    return content[0]["text"] if content else None


@pytest.fixture(params=["command", "server"])
def decide(request):
    """decide(project, tool, tool_input, session="S1") -> the refusal reason or None, through the
    command hook (`msd_run hook pre-tool-use`, a local install's rows) and through the guard
    server's tool (a global install's mcp_tool rows): every guard test holds for both."""

    def _decide(project: Path, tool: str, tool_input: dict, session: str | None = "S1", **extra) -> str | None:
        payload = {"hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": tool, "tool_input": tool_input, **extra}
        if session:
            payload["session_id"] = session
        if request.param == "server":
            return decision(ask_server(payload))
        out, code = run_hook(payload)
        assert code == 0
        return decision(out)

    return _decide


ROADMAP = """# Roadmap: Shop

## Phases

- [x] Phase 1: Foundation — the app starts, CI is green
- [ ] Phase 2: Accounts — people register and log in
- [ ] Phase 3: Payments — people pay

### Phase 1: Foundation
Goal: the app starts locally against a database
Requirements: CORE-01
Plans: 1 plan

### Phase 2: Accounts
Goal: people register, log in and come back still logged in
Requirements: AUTH-01, AUTH-02
Done when:
- Registering opens the dashboard
Plans: TBD

### Phase 3: Payments
Goal: people pay for an order
Requirements: PAY-01
Plans: TBD
""" + "\n".join(f"<!-- roadmap note {i}: details kept for the planner -->" for i in range(30)) + "\n"

STATE = """---
milestone: v1.0
status: planning
---
# Shop: where the work stands

## Position
Focus: Phase 2 (Accounts)
Phase: 2 of 3 (Accounts)
Status: Ready to plan

## Decisions
- Use Postgres

## Blockers
None yet.

## Session
Last worked: 2026-11-30 14:00
Left off: Phase 1 verified
Handoff: None
""" + "\n".join(f"<!-- session note {i} -->" for i in range(30)) + "\n"

REQUIREMENTS = """# Requirements

## v1 Requirements

- [x] **CORE-01**: The app starts locally
- [ ] **AUTH-01**: A visitor creates an account
- [ ] **AUTH-02**: A person logs in
- [ ] **PAY-01**: A person pays
- [ ] **SHARE-01**: A person shares a list

## Traceability

| Requirement | Phase | Status |
|---|---|---|
| CORE-01 | Phase 1 | Complete |
| AUTH-01 | Phase 2 | Pending |
| AUTH-02 | Phase 2 | Pending |
| PAY-01 | Phase 3 | Pending |
"""

PLAN = """---
phase: 02-accounts
plan: 01
wave: 1
---
<objective>Accounts table and model.</objective>

""" + "\n".join(f"<task type=\"auto\"><name>Task {i}</name><action>Step {i} of the accounts work.</action></task>" for i in range(20)) + "\n"


@pytest.fixture
def planning_project(tmp_path) -> Path:
    """A project: ROADMAP (3 phases, phases 1 and 2 with folders), STATE, REQUIREMENTS, a plan."""
    proj = tmp_path / "shop"
    pl = proj / ".planning"
    (pl / "phases" / "01-foundation").mkdir(parents=True)
    (pl / "phases" / "02-accounts").mkdir()
    (pl / "ROADMAP.md").write_text(ROADMAP)
    (pl / "STATE.md").write_text(STATE)
    (pl / "REQUIREMENTS.md").write_text(REQUIREMENTS)
    (pl / "PROJECT.md").write_text("# Shop\n\nA small shop.\n")
    (pl / "config.json").write_text(json.dumps({"mode": "interactive"}, indent=2) + "\n")
    (pl / "phases" / "01-foundation" / "01-01-SUMMARY.md").write_text("---\nphase: 01-foundation\nplan: 01\n---\n# Summary\n")
    (pl / "phases" / "02-accounts" / "02-01-PLAN.md").write_text(PLAN)
    return proj
