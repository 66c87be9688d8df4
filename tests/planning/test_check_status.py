"""A UAT's status from its rows, a VERIFICATION's from its machine part (issue 30, item 3)."""

from __future__ import annotations

import pytest

from msd_core.planning import check_status
from msd_core.planning.decisions import cited_ids, parse_decisions
from msd_core.progress.lifecycle import where


def uat(status: str, *results: str) -> str:
    rows = "".join(f"### {k}. test {k}\nsteps: do it\nexpect: it works\nresult: {r}\n\n" for k, r in enumerate(results, 1))
    return f"---\nstatus: {status}\nphase: 01-core\n---\n# Acceptance tests\n\nTally: whatever\n\n## Tests\n\n{rows}## Gaps\n"


@pytest.mark.parametrize("written,results,derived", [
    ("complete", ["pass", "pass"], "complete"),
    ("complete", ["blocked", "blocked"], "partial"),  # every row blocked is never passed
    ("complete", ["skipped", "pass"], "partial"),
    ("complete", ["pass", "pending"], "partial"),
    ("testing", ["pass", "pending"], "testing"),
    ("complete", ["pass", "issue"], "issues_found"),
    ("passed", ["failed"], "issues_found"),
    ("diagnosed", ["issue", "pass"], "diagnosed"),
    ("complete", ["pass", "whatever"], "partial"),  # a result code does not know is not a pass
    ("issues_found", ["pass", "pass"], "complete"),  # re-tested: the rows say passed
])
def test_uat_status_is_derived_from_rows(written, results, derived):
    assert check_status.uat_status(uat(written, *results), written) == derived


@pytest.mark.parametrize("line,derived", [
    ("result: PASS — the user confirmed", "complete"), ("**result:** pass", "complete"), ("- result: passed", "complete"),
    ("result: SKIPPED — server in use", "partial"), ("**result:** issue", "issues_found"), ("result: not run", "partial"),
])
def test_row_forms_other_tools_write(line, derived):
    text = "---\nstatus: passed\n---\n## Tests\n\n### 1. a\nexpected: x\nresult: pass\n\n### 2. b\nexpected: y\n" + line + "\n"
    assert check_status.uat_status(text, "passed") == derived


def test_a_uat_without_rows_keeps_its_status():
    assert check_status.uat_status("---\nstatus: complete\n---\n# old file\n", "complete") == "complete"
    other = "# UAT\n\n### 1. Dashboard\n- **Status:** PASSED\n\n### 2. Chart\n- **Status:** PASSED\n"
    assert check_status.uat_status(other, None) is None  # headings without a result line: another format


def test_rows_in_a_code_fence_are_examples():
    text = uat("complete", "pass") + "```\n### 9. example\nresult: issue\n```\n"
    assert check_status.uat_status(text, "complete") == "complete"


def test_a_blocked_uat_keeps_the_phase_open(tmp_path):
    root = tmp_path / "p"
    phase = root / ".planning/phases/01-core"
    phase.mkdir(parents=True)
    (root / ".planning/ROADMAP.md").write_text("## Phases\n\n- [x] Phase 1: Core\n- [ ] Phase 2: Next\n")
    (phase / "01-01-PLAN.md").write_text("---\nwave: 1\n---\n")
    (phase / "01-01-SUMMARY.md").write_text("# done\n")
    (phase / "01-UAT.md").write_text(uat("complete", "blocked", "blocked"))
    w = where(root, verifier=True)
    assert w.states[0][1] == "uat-open" and w.phases[0].uat.status == "partial"
    (phase / "01-UAT.md").write_text(uat("complete", "pass", "pass"))
    assert where(root, verifier=True).states[0][1] == "done"


def test_verification_status_from_the_machine_part():
    body = "result: passed\nchecked: now\n"
    ok = f"---\nstatus: passed\n---\n{check_status.machine_block(body)}\n"
    assert check_status.verification_status(ok, "passed") == "passed"
    bad = f"---\nstatus: passed\n---\n{check_status.machine_block(body.replace('passed', 'failed'))}\n"
    assert check_status.verification_status(bad, "passed") == "gaps_found"
    assert check_status.verification_status(ok.replace("checked: now", "checked: later"), "passed") == "gaps_found"
    assert check_status.verification_status(ok.split("<!-- msd:verify:end")[0], "passed") == "gaps_found"
    assert check_status.verification_status("---\nstatus: passed\n---\n# old\n", "passed") == "passed"


def test_decision_ids_and_citations():
    text = ("## Decisions\n### A\n- D-01: one\n- **D-02**: two\n- no id here\n```\n- D-07: example\n```\n"
            "## Claude's Discretion\n- D-03: three\n")
    d = parse_decisions(text)
    assert [(x.id, x.locked, x.line) for x in d.decisions] == [("D-01", True, 3), ("D-02", True, 4), ("D-03", False, 10)]
    assert d.unnumbered == [(5, "no id here")]
    assert cited_ids("D-01, D-03 and D-01") == ["D-01", "D-03"] and cited_ids(None) == [] and cited_ids("none") == []
