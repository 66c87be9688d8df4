"""/msd-validate-phase and /msd-add-tests in the real host (issue 33.2): person-only (never listed to
the model, still run when typed), `msd_run validate` runs under msd's one permission and its gaps
reach the model, and each command's first request stays under 4,000 proxy tokens, compact off."""

from __future__ import annotations

import hostkit
import pytest
from hostkit import bash

from tests.execution.test_validate import write_project

NEW = ["msd-validate-phase", "msd-add-tests"]
ARGS = ["--permission-mode", "acceptEdits"]


def test_validate_phase_is_person_only_and_reports_the_gaps_when_typed(host_global):
    host = host_global
    text = hostkit.request_text(host.run("1", [{"text": "ok"}]).first_request)
    assert "msd-plan-phase" in text
    for name in NEW:
        assert name not in text, f"{name} is listed to the model despite disable-model-invocation"
    write_project(host.project)
    run = host.run("/msd-validate-phase 2", [bash("msd_run validate 02 --write"),
                                              {"when": "gap      02-01#2", "text": "SHOWN"}], args=ARGS)
    assert run.returncode == 0, run.stderr
    assert "<command-name>/msd-validate-phase</command-name>" in run.first_user_text
    assert "# validate-phase" in run.first_user_text
    assert run.permission_denials == [] and run.refusals == []
    assert run.result.get("result") == "SHOWN", run.tool_results
    assert "status: gaps_found" in (host.project / ".planning/phases/02-auth/02-VALIDATION.md").read_text()


def test_add_tests_runs_when_typed(host_global):
    run = host_global.run("/msd-add-tests 2", [{"text": "ok"}])
    assert run.returncode == 0, run.stderr
    assert "<command-name>/msd-add-tests</command-name>" in run.first_user_text
    assert "# add-tests" in run.first_user_text


@pytest.mark.parametrize("name", NEW)
def test_first_request_under_4000_compact_off(host_global, name):
    tok = pytest.importorskip("msd_core.bench.tokenizer")
    _label, count = tok.load()
    host = host_global
    (host.project / ".planning").mkdir()
    host.msd_run("config", "set", "workflow.compact_content", "false")
    base = count(hostkit.request_text(host.run("1", [{"text": "ok"}]).first_request))
    cost = count(hostkit.request_text(host.run(f"/{name} 1", [{"text": "ok"}]).first_request)) - base
    print(f"\n/{name}: first request {cost} proxy tokens over a plain prompt (compact off)")
    assert 0 < cost < 4000, f"/{name}: first request costs {cost} proxy tokens over a plain prompt"
