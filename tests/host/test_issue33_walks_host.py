"""The rest of issue 33's commands walked once in the real host (Budgets and proof): ui-review,
import, docs-update and add-tests. A person types each; the scripted model runs the workflow's
first `msd_run` line under the one permission msd installs; the runtime's answer comes back as the
tool result and what the command decides is on disk. (secure-phase, spike, explore and ui-phase:
test_issue33_host.py; health, forensics, stats, milestone-summary, second-opinion:
test_reports_host.py; validate-phase: test_validate_host.py.)"""

from __future__ import annotations

import hostkit
import pytest
from hostkit import bash

ARGS = ["--permission-mode", "acceptEdits"]

# command: (its workflow's heading, the workflow's first msd_run line, what its answer holds)
WALKS = {
    "msd-ui-review 1": ("# ui-review", "msd_run ui detect --phase 1", '"contract":".planning/phases/01-auth/01-UI-SPEC.md"'),
    "msd-import docs": ("# import", "msd_run import scan docs", '"path":"prd.md"'),
    "msd-docs-update": ("# docs-update", "msd_run docs drift", '"documents":1'),
    "msd-add-tests 1": ("# add-tests", "msd_run validate 1 --write", "wrote .planning/phases/01-auth/01-VALIDATION.md"),
}


@pytest.mark.parametrize("typed", sorted(WALKS))
def test_walked_once(host_global, typed):
    host = host_global
    hostkit.planning_project(host.project)
    (host.project / "docs").mkdir()
    (host.project / "docs" / "prd.md").write_text("# PRD\n\n## Login\nUsers log in with email.\n")
    heading, line, answer = WALKS[typed]
    run = host.run(f"/{typed}", [bash(line), {"text": "WALKED", "when": answer}, {"text": "derailed"}], args=ARGS)
    assert run.returncode == 0, run.stderr
    assert run.refusals == [] and heading in run.first_user_text, f"/{typed}: its workflow was not delivered"
    results = [r for r in run.tool_results if r[0] == "Bash"]
    assert results and answer in results[0][2], run.tool_results
    assert run.permission_denials == []
    assert run.result.get("result") == "WALKED", run.tool_results
    if typed.startswith("msd-add-tests"):
        assert (host.project / ".planning/phases/01-auth/01-VALIDATION.md").is_file()
