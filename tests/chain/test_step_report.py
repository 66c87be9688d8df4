"""`msd_run step-report`: an agent reports its chain step with one literal command, checked on the spot."""

from __future__ import annotations

import json
import os
import shlex

import pytest

from tests.kit.probe import denied, probe

FIELDS = {"phase": "string", "plans": "int", "approved": "bool", "issues": "list?"}


@pytest.fixture
def ticket(tmp_path):
    from msd_core.chain.step_report import paths_for, write_ticket

    project = tmp_path / "proj"
    (project / ".planning" / "phases" / "02-a").mkdir(parents=True)
    folder = project / ".planning" / ".msd" / "chain"
    folder.mkdir(parents=True)
    t, result = paths_for(folder, "plan-phase-plan-1")
    step = {"workflow": "plan-phase", "step": "plan", "action": "spawn_agent", "visit": 1,
            "expects": {"fields": FIELDS, "files": [".planning/phases/02-a/02-NOTES.md"]}}
    write_ticket(t, step, {"phase": "02", "phase_dir": "02-a"}, project, [".planning/phases/<phase_dir>/<phase>-NOTES.md"])
    return project, t, result


def test_the_command_line_of_the_brief_reports_a_valid_result(msd_run, ticket):
    from msd_core.chain.step_report import command_line

    project, t, result = ticket
    (project / ".planning/phases/02-a/02-NOTES.md").write_text("n\n")
    line = command_line(t, FIELDS)
    assert line.startswith(f"msd_run step-report --ticket {t} --result ") and "$" not in line
    argv = shlex.split(line)
    argv[argv.index("--result") + 1] = json.dumps({"phase": "02", "plans": 3, "approved": False})
    r = msd_run(argv[1:])
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["reported"] == "plan"
    assert json.loads(result.read_text()) == {"phase": "02", "plans": 3, "approved": False}


def test_name_value_words_are_typed_by_the_expects(msd_run, ticket):
    project, t, result = ticket
    (project / ".planning/phases/02-a/02-NOTES.md").write_text("n\n")
    r = msd_run(["step-report", "--ticket", str(t), "phase=02", "plans=4", "approved=yes", 'issues=["a"]', "note=it's fine"])
    assert r.returncode == 0, r.stderr
    assert json.loads(result.read_text()) == {"phase": "02", "plans": 4, "approved": True, "issues": ["a"], "note": "it's fine"}


@pytest.mark.parametrize("args,needle", [
    (["--result", '{"phase": "02", "plans": "three", "approved": true}'],
     "step plan not reported: field plans must be int, got str; expected file .planning/phases/02-a/02-NOTES.md does not exist"),
    (["phase=02", "approved=true"], "missing field plans (int)"),
    (["plans=three"], "plans=three: plans is an int; write a whole number"),
    (["approved=maybe"], "approved is a bool; write approved=true or approved=false"),
    (["--result", "{oops"], "argument --result: the result is not valid JSON"),
    (["plans"], "'plans' must look like name=value"),
])
def test_a_bad_report_is_refused_on_the_spot_and_writes_nothing(msd_run, ticket, args, needle):
    _project, t, result = ticket
    r = msd_run(["step-report", "--ticket", str(t), *args])
    assert r.returncode == 2
    assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not os.path.lexists(result)


def test_a_wrong_ticket_is_named(msd_run, tmp_path, ticket):
    r = msd_run(["step-report", "--ticket", str(tmp_path / "x.json"), "plans=1"])
    assert r.returncode == 2 and "is not a step ticket" in r.stderr
    r = msd_run(["step-report", "--ticket", str(tmp_path / "gone.ticket.json"), "plans=1"])
    assert r.returncode == 2 and "does not exist (the chain has moved on, or the path is mistyped)" in r.stderr
    fifo = tmp_path / "f.ticket.json"
    os.mkfifo(fifo)
    r = msd_run(["step-report", "--ticket", str(fifo), "plans=1"], timeout=20)
    assert r.returncode == 2 and "is a FIFO, not a regular file" in r.stderr


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_a_special_file_at_the_result_path_is_never_written_through(msd_run, ticket, tmp_path, kind):
    project, t, result = ticket
    (project / ".planning/phases/02-a/02-NOTES.md").write_text("n\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n")
    if kind == "fifo":
        os.mkfifo(result)
    else:
        os.symlink(outside, result)
    r = msd_run(["step-report", "--ticket", str(t), "phase=02", "plans=1", "approved=true"], timeout=20)
    assert r.returncode == 2 and f"result file {result} is a {'FIFO' if kind == 'fifo' else 'symlink'}" in r.stderr
    assert outside.read_text() == "keep\n"


def test_step_report_imports_nothing_heavy(tmp_path, ticket):
    project, t, _result = ticket
    (project / ".planning/phases/02-a/02-NOTES.md").write_text("n\n")
    res = probe(["step-report", "--ticket", str(t), "phase=02", "plans=1", "approved=true"], project, tmp_path / "probe.json")
    assert res["code"] == 0 and denied(res["modules"], set()) == []
