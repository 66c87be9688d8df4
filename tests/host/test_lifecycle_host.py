"""Person-only commands (ship, undo, autonomous) in the real host: never listed to the model,
refused when the model tries to start them, and still run when a person types them."""

from __future__ import annotations

import hostkit

PERSON_ONLY = ["msd-ship", "msd-undo", "msd-autonomous"]
LISTED = ["msd-debug", "msd-code-review", "msd-audit-milestone", "msd-help"]


def _listing(run: hostkit.HostRun) -> str:
    return hostkit.request_text(run.model_requests[0])


def test_person_only_commands_are_not_listed_and_cannot_be_started_by_the_model(host_global):
    run = host_global.run("hello", script=[
        {"tool_use": [{"name": "Skill", "input": {"skill": "msd-undo", "args": "02-01"}}]},
        {"text": "done"},
    ])
    assert run.returncode == 0, run.stderr
    text = _listing(run)
    for name in LISTED:
        assert name in text, f"{name} is not listed to the model"
    for name in PERSON_ONLY:
        assert name not in text, f"{name} is listed to the model"
    skill_calls = [r for r in run.tool_results if r[0] == "Skill"]
    assert skill_calls, "the scripted Skill call never ran"
    _, _, result, is_error = skill_calls[0]
    assert is_error or "disable-model-invocation" in result or "cannot be used" in result, result
    assert "# undo" not in "".join(hostkit.request_text(b) for b in run.model_requests[1:])


def test_person_only_commands_run_when_typed(host_global):
    for name, marker in (("msd-undo", "# undo"), ("msd-ship", "# ship"), ("msd-autonomous", "# autonomous")):
        run = host_global.run(f"/{name} 2", script=[{"text": "ok"}])
        assert run.returncode == 0, run.stderr
        assert run.refusals == [] and run.model_requests, f"/{name} did not reach the model"
        assert f"<command-name>/{name}</command-name>" in run.first_user_text
        assert marker in run.first_user_text, f"/{name}: its workflow was not delivered"
