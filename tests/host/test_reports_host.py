"""Issue 33's commands in the real host: health, forensics, stats, milestone-summary, second-opinion.

- Each is person-only: never in the listing the model gets, delivered when a person types it.
- Each one's first request costs at most 4,000 proxy tokens over a plain prompt, compact off.
- Each is walked once: the scripted model runs the workflow's first `msd_run` line under the one
  permission msd installs, and the runtime's answer comes back as the tool result.
"""

from __future__ import annotations

import hostkit
import pytest
from hostkit import bash

NEW = {"msd-health": ("# health", "msd_run health --text", "planning-file-missing        .planning/STATE.md"),  # the tree has none
       "msd-forensics": ("# forensics", "msd_run forensics --text", "Verdict:"),
       "msd-stats": ("# stats", "msd_run stats --text", "Milestone:"),
       "msd-milestone-summary": ("# milestone-summary", "msd_run milestone-summary --text", "# Summary of"),
       "msd-second-opinion": ("# second-opinion", "msd_run second-opinion --list", '"clis"')}
ARGS = ["--permission-mode", "acceptEdits"]


def _listing(run: hostkit.HostRun) -> str:
    return hostkit.request_text(run.first_request)


def test_the_new_commands_are_not_listed(host_global):
    text = _listing(host_global.run("1", [{"text": "ok"}]))
    assert "msd-progress" in text
    for name in NEW:
        assert name not in text, f"{name} is listed to the model"


@pytest.mark.parametrize("name", sorted(NEW))
def test_each_runs_when_typed_within_its_cost_and_its_runtime_line_answers(host_global, name):
    tok = pytest.importorskip("msd_core.bench.tokenizer")
    _label, count = tok.load()
    host = host_global
    hostkit.planning_project(host.project)
    host.msd_run("config", "set", "workflow.compact_content", "false")
    marker, line, answer = NEW[name]
    base = count(_listing(host.run("1", [{"text": "ok"}])))
    run = host.run(f"/{name}", [bash(line), {"text": "REPORTED", "when": answer}, {"text": "derailed"}], args=ARGS)
    assert run.returncode == 0, run.stderr
    assert run.refusals == [] and marker in run.first_user_text, f"/{name}: its workflow was not delivered"
    cost = count(_listing(run)) - base
    print(f"{name}: first request {cost} proxy tokens over a plain prompt")
    assert 0 < cost <= 4000, f"/{name}: first request costs {cost} proxy tokens over a plain prompt"
    bash_results = [r for r in run.tool_results if r[0] == "Bash"]
    assert bash_results and answer in bash_results[0][2], run.tool_results
    assert run.permission_denials == []
    assert run.result.get("result") == "REPORTED", run.tool_results
