"""`msd_run stats` and `msd_run milestone-summary`: numbers and facts read from the records, per phase."""

from __future__ import annotations

import json

import pytest

from msd_core.reports import facts, milestone, stats
from tests.health.conftest import write
from tests.kit.gitkit import run_msd

SUMMARY = """---
phase: 01-foundation
plan: 01
provides: ["project scaffold", "CI pipeline"]
key-decisions: ["Use SQLite for the first release"]
---
# 01-01 Summary

## Deviations from Plan
- Added a lint step the plan did not name
- None of the rest

## Next
- nothing
"""


def _record(root, folder, plan, n, deviation=False):
    write(root, {f".planning/.msd/runs/{folder}__{plan}.json": json.dumps(
        {"plan": plan, "phase_dir": folder, "commits": [{"hash": f"{i:040x}", "deviation": deviation and i == 0}
                                                        for i in range(n)]})})


@pytest.fixture()
def recorded(healthy):
    write(healthy, {".planning/phases/01-foundation/01-01-SUMMARY.md": SUMMARY,
                    ".planning/phases/01-foundation/01-VERIFICATION.md": "---\nstatus: passed\n---\nok\n",
                    ".planning/.msd/gate/last.json": json.dumps(
                        {"status": "passed", "label": "01-01", "tail": "==== 12 passed, 1 skipped in 0.5s ===="})})
    _record(healthy, "01-foundation", "01-01", 3, deviation=True)
    return healthy


def test_stats_counts_phases_plans_commits_and_tests(recorded):
    out = stats.stats(recorded, usage=False)
    assert out["phases"] == {"total": 3, "done": 1, "by_state": {"discuss": 2, "done": 1}}
    assert out["plans"] == 1 and out["summaries"] == 1
    assert out["commits"] == {"recorded": 3, "deviations": 1, "unreadable_records": 0}
    assert out["tests"]["last"]["tests"] == {"passed": 12, "failed": 0, "errors": 0, "skipped": 1}
    assert [r["commits"] for r in out["per_phase"]] == [3, 0, 0]
    assert out["tokens"] is None


def test_stats_reads_tokens_per_phase_from_transcripts(recorded, tmp_path, monkeypatch):
    monkeypatch.setattr(facts, "tokens_by_phase", lambda root, config: {
        "sessions": 1, "totals": {"requests": 2, "total": 900, "output": 50}, "by_phase": {"01": {"total": 700}}})
    out = stats.stats(recorded)
    assert [r["tokens"] for r in out["per_phase"]] == [700, 0, 0]
    assert "| 1 | Foundation | done | 1 | 1 | 3 | 700 |" in stats.text(out)


def test_stats_on_a_project_without_transcripts_says_so(recorded, tmp_path):
    out = stats.stats(recorded, config=tmp_path / "no-claude")
    assert out["tokens"] is None and "no session transcripts" in stats.text(out)


def test_an_unreadable_run_record_is_counted_not_fatal(recorded):
    write(recorded, {".planning/.msd/runs/02-auth__02-01.json": "{torn"})
    out = stats.stats(recorded, usage=False)
    assert out["commits"]["unreadable_records"] == 1 and out["commits"]["recorded"] == 3


def test_deviations_are_the_items_under_the_heading():
    assert facts.deviations(SUMMARY) == ["Added a lint step the plan did not name"]
    assert facts.deviations("## Deviations\nNone\n- None\n") == []
    many = "## Deviations\n" + "".join(f"- d{i}\n" for i in range(20))
    assert len(facts.deviations(many)) == facts.MAX_DEVIATIONS


def test_milestone_summary_of_the_current_milestone(recorded):
    out = milestone.summary(recorded)
    p1 = out["phases"][0]
    assert p1["built"] == ["project scaffold", "CI pipeline"]
    assert p1["decisions"] == ["Use SQLite for the first release"]
    assert p1["deviations"] == ["Added a lint step the plan did not name"] and p1["recorded_deviations"] == 1
    assert p1["verification"] == "passed" and p1["commits"] == 3
    assert out["phases"][1]["goal"] == "A user can log in"
    assert out["finished"] is False and out["state"] == "open"
    md = milestone.text(out)
    assert "Not finished" in md and "- project scaffold" in md and "Goal: A user can log in" in md


def test_a_finished_milestone_is_not_marked_unfinished(recorded):
    road = recorded / ".planning/ROADMAP.md"
    road.write_text(road.read_text().replace("- [ ] **Phase 2", "- [x] **Phase 2").replace("- [ ] **Phase 3", "- [x] **Phase 3"))
    out = milestone.summary(recorded)
    assert out["finished"] is True and "Not finished" not in milestone.text(out)


def test_an_archived_milestone_and_an_unknown_one(recorded):
    write(recorded, {".planning/milestones/v0.9-phases/01-proto/01-01-PLAN.md": "p\n",
                     ".planning/milestones/v0.9-phases/01-proto/01-01-SUMMARY.md": SUMMARY.replace("project scaffold", "proto")})
    out = milestone.summary(recorded, "v0.9")
    assert out["state"] == "archived" and out["phases"][0]["built"][0] == "proto"
    proc = run_msd(["milestone-summary", "--milestone", "v7"], recorded)
    assert proc.returncode == 2 and "no archived milestone 'v7' (archived: v0.9)" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_write_is_one_file_and_the_rest_is_untouched(recorded):
    before = {p: p.read_bytes() for p in recorded.rglob("*") if p.is_file()}
    proc = run_msd(["milestone-summary", "--write"], recorded)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["written"] == ".planning/MILESTONE-SUMMARY.md"
    after = {p: p.read_bytes() for p in recorded.rglob("*") if p.is_file()}
    assert set(after) - set(before) == {recorded / ".planning/MILESTONE-SUMMARY.md"}
    assert all(after[p] == b for p, b in before.items())


def test_commands_exit_codes_and_text(recorded):
    s = run_msd(["stats", "--no-usage"], recorded)
    assert s.returncode == 0 and json.loads(s.stdout)["commits"]["recorded"] == 3
    t = run_msd(["stats", "--text", "--no-usage"], recorded)
    assert t.returncode == 0 and t.stdout.startswith("Milestone: open")
    m = run_msd(["milestone-summary", "--text"], recorded)
    assert m.returncode == 0 and m.stdout.startswith("# Summary of the current milestone")
    for argv in (["stats", "--bogus"], ["stats", "--cwd", str(recorded / "nope")], ["milestone-summary", "--milestone"]):
        bad = run_msd(argv, recorded)
        assert bad.returncode == 2 and "Traceback" not in bad.stderr and bad.stderr.strip(), argv


def test_reports_on_every_corpus_tree(corpus_dir, copy_corpus_tree):
    import time

    from tests.conftest import corpus_tree_names

    t0 = time.time()
    for name in corpus_tree_names():
        assert time.time() - t0 < 240
        root = copy_corpus_tree(name)
        before = {p: p.stat().st_mtime_ns for p in root.rglob("*")}
        out = stats.stats(root, usage=False)
        assert out["phases"]["total"] == len(out["per_phase"])
        summary = milestone.summary(root)
        assert len(summary["phases"]) == out["phases"]["total"]
        for label in milestone.labels(root):
            milestone.summary(root, label)
        assert {p: p.stat().st_mtime_ns for p in root.rglob("*")} == before, name  # read only
