"""A session that survives compaction (issue 31, Proof), in the real host: a live session starts
/msd-plan-phase 1 and advances its flow past `load-context`; the user runs `/compact`; the host
runs msd's PreCompact hook (the checkpoint) and, after its summary, msd's SessionStart hook
(source `compact`); the next request the model receives carries where the workflow is and the
one command to run; the model runs that command and gets step `plan`'s instructions again.
A session with no msd workflow in progress gets nothing from the hooks.
"""

from __future__ import annotations

import json

import hostkit

SUMMARY_ASKED = "Your task is to create a detailed summary"
RESUME_MARK = "msd: the plan-phase workflow is in progress"


def _system_text(body: dict) -> str:
    return "\n".join(hostkit.text_of(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "system")


def test_after_compact_the_next_request_carries_the_position_and_the_session_continues_at_its_step(host_global):
    host = host_global
    hostkit.planning_project(host.project)
    root = str(host.config_dir / "msd-core")
    result = json.dumps({"phase": "01", "phase_dir": "01-auth", "skip_research": True})
    script = [
        {"when": SUMMARY_ASKED, "text": "<analysis>a</analysis>\n<summary>Planning phase 1 with msd.</summary>"},
        hostkit.bash(f"msd_run next-step --workflow plan-phase --var phase=01 --root {root}", when="PLAN-PROMPT"),
        hostkit.bash(f"msd_run step-done --workflow plan-phase --step load-context --result '{result}' --root {root}",
                     when='"step":"load-context"'),
        {"when": '"next_step":"plan"', "text": "Step plan is next; stopping here for now."},
        {"when": RESUME_MARK, "tool_use": [{"name": "Bash", "input": {
            "command": f"msd_run next-step --workflow plan-phase --root {root}", "description": "continue"}}]},
        {"when": '"step":"plan"', "text": "RESUMED-AT-PLAN"},
    ]
    run = host.live(["PLAN-PROMPT: start planning phase 1", "/compact", "continue where you left off"], script,
                    transcripts=True, timeout=180)
    assert run.returncode == 0, run.stderr[-2000:]
    bodies = run.model_requests
    summary_at = next(i for i, b in enumerate(bodies) if SUMMARY_ASKED in json.dumps(b["messages"][-1]))
    after = bodies[summary_at + 1]
    assert RESUME_MARK not in json.dumps(bodies[:summary_at])  # nothing before compaction (source startup)
    context = _system_text(after)
    assert RESUME_MARK in context, context[:3000]
    assert "at step `plan` (spawn_agent, visit 1)" in context and "phase 01" in context
    assert f"`msd_run next-step --workflow plan-phase --root {root}`" in context
    assert "Last step done: `load-context`" in context
    results = [(inp.get("command", ""), text) for name, inp, text, _err in run.tool_results if name == "Bash"]
    resumed = [text for cmd, text in results if cmd == f"msd_run next-step --workflow plan-phase --root {root}"]
    assert resumed and json.loads(resumed[-1])["step"] == "plan"
    assert run.result.get("result") == "RESUMED-AT-PLAN"
    checkpoint = json.loads((host.project / ".planning" / ".msd" / "checkpoint.json").read_text())
    assert checkpoint["workflow"] == "plan-phase" and checkpoint["step"] == "plan" and checkpoint["trigger"] == "manual"


def test_no_workflow_in_progress_means_nothing_is_injected_after_compact(host_global):
    host = host_global
    script = [
        {"when": SUMMARY_ASKED, "text": "<analysis>a</analysis>\n<summary>chat</summary>"},
        {"when": "FIRST", "text": "hello"},
        {"when": "SECOND", "text": "bye"},
    ]
    run = host.live(["FIRST prompt", "/compact", "SECOND prompt"], script, transcripts=True, timeout=180)
    assert run.returncode == 0, run.stderr[-2000:]
    text = json.dumps(run.model_requests)
    assert SUMMARY_ASKED in text and "msd:" not in text
    assert not (host.project / ".planning" / ".msd" / "checkpoint.json").exists()


def test_a_resumed_session_is_told_where_the_workflow_is(host_global):
    """`claude --resume <session>`: SessionStart runs with source `resume` before the first request."""
    host = host_global
    hostkit.planning_project(host.project)
    root = str(host.config_dir / "msd-core")
    result = json.dumps({"phase": "01", "phase_dir": "01-auth", "skip_research": True})
    first = host.run("PLAN-PROMPT", [
        hostkit.bash(f"msd_run next-step --workflow plan-phase --var phase=01 --root {root}"),
        hostkit.bash(f"msd_run step-done --workflow plan-phase --step load-context --result '{result}' --root {root}",
                     when='"step":"load-context"'),
        {"when": '"next_step":"plan"', "text": "stopping"},
    ], transcripts=True)
    assert first.returncode == 0, first.stderr[-2000:]
    session = first.result["session_id"]
    run = host.run("continue", [  # the context sits in the system message near the start: `when` looks at the prompt
        {"when": "continue", "tool_use": [{"name": "Bash", "input": {
            "command": f"msd_run next-step --workflow plan-phase --root {root}", "description": "continue"}}]},
        {"when": '"step":"plan"', "text": "RESUMED"},
    ], args=["--resume", session], transcripts=True)
    assert run.returncode == 0, run.stderr[-2000:]
    assert RESUME_MARK in _system_text(run.first_request) and "at step `plan`" in _system_text(run.first_request)
    assert run.result.get("result") == "RESUMED"  # the command it was given printed step `plan`
