"""Flow files: the schema's verdicts (with line numbers), the shipped flows, the condition language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from msd_core.flows.conditions import ConditionError, parse_condition
from msd_core.flows.schema import parse_flow, validate_flow_text

HERE = Path(__file__).resolve().parents[1]  # tests/
INVALID = sorted((HERE / "fixtures" / "flows" / "invalid").glob("*.toml"))
SHIPPED = HERE.parent / "msd_core" / "content" / "msd-core" / "flows"

# docs/CONTRACTS.md, "Flows": the fixed step ids
CONTRACT_IDS = {
    "new-project": ["detect-existing", "questioning", "ask-settings", "write-project", "research",
                    "write-requirements", "roadmap", "confirm-roadmap", "commit", "done"],
    "plan-phase": ["load-context", "research", "plan", "check", "revise", "issues-left", "guided-revise", "commit", "done"],
    "execute-phase": ["discover-plans", "execute-wave", "gate", "fix-up", "tests-failing", "verify",
                      "update-state", "done"],
    "new-milestone": ["check-previous", "shipped", "questioning", "write-requirements", "roadmap",
                      "confirm-roadmap", "update-project", "commit", "done"],
}
KNOWN_AGENTS = {"msd-project-researcher", "msd-roadmapper", "msd-phase-researcher", "msd-planner",
                "msd-plan-checker", "msd-executor", "msd-verifier", "msd-debugger"}


def _expectation(path: Path) -> tuple[int, str]:
    m = re.match(r"# expect: (\d+) (.+)", path.read_text().splitlines()[0])
    assert m, f"{path.name} lacks an '# expect: <line> <text>' header"
    return int(m.group(1)), m.group(2).strip()


def test_there_are_invalid_fixtures():
    assert len(INVALID) >= 20


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_flow_reports_line_and_reason(path):
    line, fragment = _expectation(path)
    errors = validate_flow_text(path.read_text(), path.name)
    assert errors, f"{path.name} should be invalid"
    assert all(isinstance(n, int) and n >= 1 and isinstance(m, str) for n, m in errors)
    assert any(n == line and fragment in m for n, m in errors), errors


@pytest.mark.parametrize("name", sorted(CONTRACT_IDS))
def test_shipped_flow_is_valid_and_has_contract_ids(name):
    text = (SHIPPED / f"{name}.toml").read_text()
    assert validate_flow_text(text, f"{name}.toml") == []
    flow, _ = parse_flow(text, name)
    assert flow.ids == CONTRACT_IDS[name]
    for step in flow.steps:
        if step.action == "spawn_agent":
            assert step.agent in KNOWN_AGENTS
        assert len(step.prompt) < 400, f"{name}/{step.id}: prompts stay short; detail lives in the spine"


def test_shipped_flows_are_exactly_the_three():
    assert sorted(p.stem for p in SHIPPED.glob("*.toml")) == sorted(CONTRACT_IDS)


def test_valid_fixture_is_valid():
    path = HERE / "fixtures" / "flows" / "valid" / "loop.toml"
    assert validate_flow_text(path.read_text(), "loop.toml") == []


def test_oversized_flow_is_refused():
    text = 'workflow = "x"\n' + "# pad\n" * 60000
    errors = validate_flow_text(text, "x.toml")
    assert errors and "larger than" in errors[0][1]


def test_too_many_steps_is_refused():
    steps = "".join(f'[[steps]]\nid = "s{i}"\naction = "run"\nprompt = "p"\nnext = "z"\n' for i in range(201))
    text = 'workflow = "x"\nversion = 1\nstart = "s0"\n' + steps + '[[steps]]\nid = "z"\naction = "done"\n'
    assert any("more than 200 steps" in m for _, m in validate_flow_text(text, "x"))


def test_non_string_text_is_an_error_not_a_crash():
    assert validate_flow_text(b"bytes", "x")  # type: ignore[arg-type]


# ---------------------------------------------------------------- conditions


def _eval(text, values=None, files=()):
    values = values or {}
    return parse_condition(text).evaluate(lambda p: values.get(".".join(p)), lambda rel: rel in files)


def test_condition_truth_table():
    assert _eval("config.workflow.research == true", {"config.workflow.research": True})
    assert not _eval("config.workflow.research == true", {"config.workflow.research": False})
    assert not _eval("config.workflow.research == true", {})  # missing is null
    assert _eval("result.n > 0 and not result.skip", {"result.n": 2, "result.skip": False})
    assert not _eval("result.n > 0", {"result.n": "2"})  # a string is not ordered against a number
    assert not _eval("result.flag == 1", {"result.flag": True})  # true never equals 1
    assert _eval("(result.a == \"x\" or result.b) and visits.revise < 3", {"result.b": True, "visits.revise": 2})
    assert _eval('exists(".planning/A.md")', files={".planning/A.md"})
    assert not _eval('not exists(".planning/A.md")', files={".planning/A.md"})
    assert _eval("result.x != null", {"result.x": 0})
    assert _eval("result.r >= 1.5", {"result.r": 2})


@pytest.mark.parametrize("text", [
    "", "config", "result.", "__import__('os')", "config.a ==", "a.b == 1", "result.x = 1",
    "(result.x", "exists(result.x)", "not", "result.x == 1 1", "config.A == 1", "lambda: 1",
])
def test_bad_conditions_are_rejected(text):
    with pytest.raises(ConditionError):
        parse_condition(text)


def test_condition_length_and_depth_are_bounded():
    with pytest.raises(ConditionError):
        parse_condition("result.a == 1 or " * 40 + "result.a == 2")
    with pytest.raises(ConditionError):
        parse_condition("(" * 30 + "result.a" + ")" * 30)
    with pytest.raises(ConditionError):
        parse_condition("not " * 30 + "result.a")
