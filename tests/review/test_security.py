"""`msd_run security scope|record|show` (issue 33.3): the scope and surfaces of a phase, the
reviewer's findings checked one field at a time, the review file the lifecycle routes on."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

APP = ('import subprocess\nfrom flask import Flask, request\napp = Flask(__name__)\n'
       '@app.route("/run")\ndef run():\n    return subprocess.run(request.args["c"], shell=True)\n')
CONFIG = 'API_KEY = "x"\n'


@pytest.fixture
def proj(tmp_path):
    root = tmp_path / "proj"
    phase = root / ".planning" / "phases" / "02-demo"
    phase.mkdir(parents=True)
    (root / "src").mkdir()
    (root / ".planning" / "PROJECT.md").write_text("# Demo\n")
    (root / ".planning" / "ROADMAP.md").write_text("# Roadmap\n\n- [x] Phase 1: Setup\n- [ ] Phase 2: Demo\n")
    (phase / "02-01-PLAN.md").write_text("---\nphase: 02-demo\nplan: 01\ntype: execute\nwave: 1\n"
                                         "files_modified: [src/app.py, src/config.py, src/later.py]\n---\n<objective>x</objective>\n")
    (root / "src" / "app.py").write_text(APP)
    (root / "src" / "config.py").write_text(CONFIG)
    return root


def finding(**over) -> dict:
    f = {"id": "S1", "severity": "high", "category": "elevation-of-privilege", "file": "src/app.py", "line": 6,
         "title": "shell command from a query parameter", "what": "the `c` parameter runs in a shell",
         "evidence": "GET /run?c=id runs `id`", "fix": "pass an argument list, no shell", "truth": "no request value reaches a shell",
         "status": "open"}
    f.update(over)
    return {k: v for k, v in f.items() if v is not None}


def record(msd_run, root, findings, *extra, checked=None):
    data = {"findings": findings} if checked is None else {"findings": findings, "checked": checked}
    path = root.parent / "findings.json"
    path.write_text(json.dumps(data))
    return msd_run(["security", "record", "--phase", "2", "--findings", str(path), *extra], cwd=root)


def review_file(root) -> Path:
    return root / ".planning" / "phases" / "02-demo" / "02-SECURITY.md"


def test_scope_names_the_phase_files_and_their_surfaces(msd_run, proj):
    r = msd_run(["security", "scope", "--phase", "2"], cwd=proj)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["review_file"] == ".planning/phases/02-demo/02-SECURITY.md" and out["recorded"] is False
    by_path = {f["path"]: f for f in out["files"]}
    assert set(by_path) == {"src/app.py", "src/config.py", "src/later.py"}
    assert by_path["src/later.py"]["exists"] is False  # planned, never written
    tm = out["threat_model"]
    assert {s["surface"] for s in tm["entry"]} >= {"http-route"}
    assert "shell" in {s["surface"] for s in tm["boundary"]}
    shell = next(s for s in tm["boundary"] if s["surface"] == "shell")
    assert any(e.startswith("src/app.py:6") for e in shell["evidence"])


def test_scope_of_a_phase_naming_no_file_fails(msd_run, proj):
    (proj / ".planning" / "phases" / "02-demo" / "02-01-PLAN.md").write_text(
        "---\nphase: 02-demo\nplan: 01\ntype: execute\n---\n<objective>x</objective>\n")
    r = msd_run(["security", "scope", "--phase", "2"], cwd=proj)
    assert r.returncode == 1 and "names no file" in r.stderr and "Traceback" not in r.stderr


def test_an_unknown_phase_is_a_usage_error(msd_run, proj):
    r = msd_run(["security", "scope", "--phase", "9"], cwd=proj)
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) <= 2


def test_record_writes_gaps_and_show_reads_them_back(msd_run, proj):
    r = record(msd_run, proj, [finding(), finding(id="S2", severity="low", category="information-disclosure",
                                                  file="src/config.py", line=1, title="key in code")],
               checked=["no SQL in the phase"])
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "gaps_found" and out["gaps"] == ["S1"] and out["open"] == ["S1", "S2"]
    text = review_file(proj).read_text()
    assert "status: gaps_found" in text and "## Surfaces" in text and "### S1 [high]" in text
    shown = json.loads(msd_run(["security", "show", "--phase", "2"], cwd=proj).stdout)
    assert shown["gaps"] == ["S1"] and [f["id"] for f in shown["findings"]] == ["S1", "S2"]
    # the gaps are written in the VERIFICATION's shape the gap planner reads
    from msd_core.planning.frontmatter import split_frontmatter

    data, _body, error = split_frontmatter(text)
    assert not error and data["gaps"][0]["status"] == "failed" and data["gaps"][0]["truth"] == "no request value reaches a shell"


def test_findings_below_the_threshold_are_not_gaps(msd_run, proj):
    low = finding(severity="medium")
    assert json.loads(record(msd_run, proj, [low]).stdout)["status"] == "secured"
    out = json.loads(record(msd_run, proj, [low], "--block-on", "medium").stdout)
    assert out["status"] == "gaps_found" and out["gaps"] == ["S1"]


BAD = [
    ("id", finding(id="X1"), "`id` must be S1"),
    ("severity", finding(severity="urgent"), "`severity` must be one of"),
    ("category", finding(category="xss"), "`category` must be one of"),
    ("status", finding(status="wontfix"), "`status` must be open or closed"),
    ("outside", finding(file="../etc/passwd", line=None), "inside the project"),
    ("absolute", finding(file="/etc/passwd", line=None), "inside the project"),
    ("missing file", finding(file="src/nowhere.py", line=None), "does not exist"),
    ("line past end", finding(line=99), "past the end"),
    ("line zero", finding(line=0), "line number"),
    ("line text", finding(line="6"), "line number"),
    ("no truth", finding(truth=None), "`truth` is missing"),
    ("empty fix", finding(fix="  "), "`fix` is missing"),
    ("long title", finding(title="t" * 201), "longer than 200"),
    ("unknown field", finding(score=3), "unknown field"),
    ("closed without closed_by", finding(status="closed"), "`closed_by` is missing"),
    ("closed_by on open", finding(closed_by="abc"), "only for a closed finding"),
    ("not an object", "S1", "is not an object"),
]


@pytest.mark.parametrize("name,bad,message", BAD, ids=[b[0] for b in BAD])
def test_each_check_of_a_finding_fails(msd_run, proj, name, bad, message):
    r = record(msd_run, proj, [bad])
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert message in r.stderr and "Traceback" not in r.stderr
    assert not review_file(proj).exists()


def test_a_planned_file_not_written_yet_may_be_named(msd_run, proj):
    r = record(msd_run, proj, [finding(file="src/later.py", line=None)])
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("raw,message", [
    ("{not json", "not valid JSON"),
    ("[]", "a `findings` list"),
    ('{"findings": [], "extra": 1}', "unknown key"),
    ('{"findings": [], "checked": [1]}', "`checked` must be"),
    ("", "is empty"),
], ids=["malformed", "list", "unknown key", "checked", "empty"])
def test_a_findings_file_of_the_wrong_shape_fails(msd_run, proj, raw, message):
    path = proj.parent / "f.json"
    path.write_text(raw)
    r = msd_run(["security", "record", "--phase", "2", "--findings", str(path)], cwd=proj)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_too_many_findings_and_too_large_input_fail(msd_run, proj):
    many = [finding(id=f"S{i}") for i in range(1, 202)]
    r = record(msd_run, proj, many)
    assert r.returncode == 2 and "more than 200" in r.stderr
    big = proj.parent / "big.json"
    big.write_text('{"findings": [], "checked": ["' + "x" * (2 * 1024 * 1024) + '"]}')
    r = msd_run(["security", "record", "--phase", "2", "--findings", str(big)], cwd=proj)
    assert r.returncode == 2 and "larger than" in r.stderr


def test_a_duplicate_id_fails(msd_run, proj):
    r = record(msd_run, proj, [finding(), finding()])
    assert r.returncode == 2 and "listed twice" in r.stderr


def test_a_re_review_cannot_drop_an_open_finding(msd_run, proj):
    assert record(msd_run, proj, [finding()]).returncode == 0
    before = review_file(proj).read_text()
    r = record(msd_run, proj, [])
    assert r.returncode == 1 and "leaves out S1" in r.stderr
    assert review_file(proj).read_text() == before
    closed = record(msd_run, proj, [finding(status="closed", closed_by="commit 1a2b3c: argument list")])
    assert closed.returncode == 0 and json.loads(closed.stdout)["status"] == "secured"


def msd(*args, cwd):
    """The people's command, as a person runs it in their terminal."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "msd_core", *args], cwd=str(cwd), capture_output=True, text=True, timeout=120)


def test_the_agent_cannot_accept_its_own_finding(msd_run, proj):
    """`msd_run security record --accept` (the agent's runtime) refuses, whatever else it is given,
    and names the people's command; the review and its gap stay as recorded."""
    assert json.loads(record(msd_run, proj, [finding()]).stdout)["status"] == "gaps_found"
    before = review_file(proj).read_text()
    for extra in (["--accept", "S1", "--reason", "internal tool"], []):
        r = msd_run(["security", "record", "--phase", "2", "--accept", "S1", "--reason", "x", *extra], cwd=proj)
        assert r.returncode == 2 and "the person's decision, which msd_run does not record" in r.stderr
        assert '`msd security accept --phase 2 S1 --reason "<why the risk is acceptable>"`' in r.stderr
    r = record(msd_run, proj, [finding()], "--accept", "S1", "--reason", "internal tool")
    assert r.returncode == 2 and "msd security accept" in r.stderr
    assert review_file(proj).read_text() == before
    assert json.loads(msd_run(["security", "show", "--phase", "2"], cwd=proj).stdout)["status"] == "gaps_found"


def test_an_accepted_risk_needs_a_reason_and_is_kept(msd_run, proj):
    assert record(msd_run, proj, [finding()]).returncode == 0
    r = msd("security", "accept", "S1", "--phase", "2", cwd=proj)
    assert r.returncode == 2 and "--reason" in r.stderr
    r = msd("security", "accept", "S9", "--phase", "2", "--reason", "x", cwd=proj)
    assert r.returncode == 1 and "no such finding" in r.stderr
    r = msd("security", "accept", "S1", "--phase", "2", "--reason", "internal tool, one user", "--json", cwd=proj)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "secured" and out["accepted"] == ["S1"] and out["gaps"] == []
    again = json.loads(record(msd_run, proj, [finding()]).stdout)  # the reviewer lists it as open again
    assert again["accepted"] == ["S1"] and again["status"] == "secured"


def test_show_without_a_review_and_with_a_broken_one_fails(msd_run, proj):
    r = msd_run(["security", "show", "--phase", "2"], cwd=proj)
    assert r.returncode == 1 and "no security review recorded" in r.stderr
    review_file(proj).write_text("---\nstatus: [unclosed\n---\n")
    r = msd_run(["security", "show", "--phase", "2"], cwd=proj)
    assert r.returncode == 1 and "cannot be read back" in r.stderr and "Traceback" not in r.stderr
    r = record(msd_run, proj, [finding()])
    assert r.returncode == 1 and review_file(proj).read_text() == "---\nstatus: [unclosed\n---\n"


def test_findings_from_stdin(msd_run, proj):
    r = msd_run(["security", "record", "--phase", "2", "--findings", "-"], cwd=proj,
                input=json.dumps({"findings": [finding()]}))
    assert r.returncode == 0 and json.loads(r.stdout)["gaps"] == ["S1"]


def _summarise(root, later: float = 0.0):
    s = root / ".planning" / "phases" / "02-demo" / "02-01-SUMMARY.md"
    s.write_text("---\nphase: 02-demo\nplan: 01\n---\n# done\n")
    if later:
        t = time.time() + later
        os.utime(s, (t, t))


def _verified(root):
    v = root / ".planning" / "phases" / "02-demo" / "02-VERIFICATION.md"
    v.write_text("---\nstatus: passed\n---\n")


def next_route(msd_run, root) -> dict:
    r = msd_run(["next", "--json"], cwd=root)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_review_gaps_route_to_plan_gaps_and_the_fixes_back_to_the_review(msd_run, proj):
    _summarise(proj)
    _verified(proj)
    assert next_route(msd_run, proj)["route"] != "plan-gaps"
    assert record(msd_run, proj, [finding()]).returncode == 0
    out = next_route(msd_run, proj)
    assert out["route"] == "plan-gaps" and "02-SECURITY.md" in out["reason"]
    _summarise(proj, later=5)  # the gap plan ran
    out = next_route(msd_run, proj)
    assert out["route"] == "secure-phase" and out["command"] == "/msd-secure-phase 2"


def test_review_gaps_reopen_a_ticked_phase(msd_run, proj):
    _summarise(proj)
    (proj / ".planning" / "ROADMAP.md").write_text("# Roadmap\n\n- [x] Phase 1: Setup\n- [x] Phase 2: Demo\n")
    assert next_route(msd_run, proj)["route"] != "plan-gaps"
    assert record(msd_run, proj, [finding()]).returncode == 0
    assert next_route(msd_run, proj)["route"] == "plan-gaps"


def test_a_review_does_not_stand_in_for_the_verification(msd_run, proj):
    _summarise(proj)
    assert record(msd_run, proj, [finding(severity="low")]).returncode == 0  # secured
    assert next_route(msd_run, proj)["route"] == "verify-work"


def test_an_autonomous_run_stops_for_the_person_at_the_review(msd_run, proj):
    _summarise(proj)
    _verified(proj)
    assert record(msd_run, proj, [finding()]).returncode == 0
    _summarise(proj, later=5)
    r = msd_run(["autonomous"], cwd=proj)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["action"] == "stop" and out["command"] == "/msd-secure-phase 2" and "needs a person" in out["why"]


def test_a_draft_is_removed_once_recorded_and_kept_when_refused(msd_run, proj):
    drafts = proj / ".planning" / "drafts"
    drafts.mkdir()
    bad = drafts / "02-security.json"
    bad.write_text(json.dumps({"findings": [finding(severity="urgent")]}))
    r = msd_run(["security", "record", "--phase", "2", "--findings", ".planning/drafts/02-security.json"], cwd=proj)
    assert r.returncode == 2 and bad.exists()  # refused: the reviewer fixes it in place
    bad.write_text(json.dumps({"findings": [finding()]}))
    r = msd_run(["security", "record", "--phase", "2", "--findings", ".planning/drafts/02-security.json"], cwd=proj)
    assert r.returncode == 0 and not bad.exists()
    outside = proj.parent / "findings.json"  # a file elsewhere is the person's: left alone
    outside.write_text(json.dumps({"findings": [finding()]}))
    assert msd_run(["security", "record", "--phase", "2", "--findings", str(outside)], cwd=proj).returncode == 0
    assert outside.exists()


def test_accepting_on_the_recorded_review_keeps_its_findings(msd_run, proj):
    r = msd("security", "accept", "S1", "--phase", "2", "--reason", "x", cwd=proj)
    assert r.returncode == 1 and "no security review recorded" in r.stderr
    assert record(msd_run, proj, [finding(), finding(id="S2", severity="critical")], checked=["sql: none"]).returncode == 0
    r = msd_run(["security", "record", "--phase", "2"], cwd=proj)
    assert r.returncode == 2 and "give --findings" in r.stderr and "`msd security accept`" in r.stderr
    r = msd("security", "accept", "S1", "--phase", "2", "--reason", "internal only", "--json", cwd=proj)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["accepted"] == ["S1"] and out["gaps"] == ["S2"]
    r = msd("security", "accept", "S2", "--phase", "2", "--reason", "behind the VPN", cwd=proj)
    assert r.returncode == 0 and "status secured" in r.stdout
    text = review_file(proj).read_text()
    assert "internal only" in text and "behind the VPN" in text and '"sql: none"' in text
