"""`msd_run state sync`: STATE.md's derived lines follow the project's files at every stage.

The expected lines are recomputed here from the test's own model of the fixture (which
phase, how many plans and summaries, which check file), never by calling the code under
test. File times are set explicitly so `Last activity` is known.
"""

from __future__ import annotations

import calendar
import json
import os
from pathlib import Path

import pytest

from tests.conftest import corpus_tree_names

TEMPLATE = Path(__file__).resolve().parents[2] / "msd_core/content/msd-core/templates/state.md"
PHASES = [("1", "Core", "01-core"), ("2", "Auth", "02-auth"), ("3", "Billing", "03-billing")]
DAY0 = calendar.timegm((2026, 11, 1, 12, 0, 0))


def _state_text() -> str:
    text = TEMPLATE.read_text()
    for k, v in {"{{date}}": "2026-11-01", "{{core_value}}": "One tap", "{{date time}}": "2026-11-01 10:00",
                 "{{last completed action}}": "Roadmap created"}.items():
        text = text.replace(k, v)
    return text


def _roadmap(done: set[str]) -> str:
    lines = ["# Roadmap", ""]
    for n, name, _ in PHASES:
        lines.append(f"- [{'x' if n in done else ' '}] **Phase {n}: {name}** - goal")
    return "\n".join(lines) + "\n"


class Project:
    def __init__(self, root: Path):
        self.root = root
        self.day = 0
        self.latest: tuple[int, str] | None = None  # (day, what) of the newest file written
        (root / ".planning/phases").mkdir(parents=True)
        (root / ".planning/STATE.md").write_text(_state_text())
        self.write(".planning/ROADMAP.md", _roadmap(set()), "roadmap updated")

    def write(self, rel: str, text: str, what: str) -> None:
        self.day += 1
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        t = DAY0 + self.day * 86400
        os.utime(p, (t, t))
        self.latest = (self.day, what)

    def last_activity(self) -> str:
        day, what = self.latest
        y, m, d = __import__("time").gmtime(DAY0 + day * 86400)[:3]
        return f"{y:04d}-{m:02d}-{d:02d} ({what})"


# every phase done: (Focus, Status) by the milestone's state (docs/CONTRACTS.md, STATE.md)
MILESTONE_LINES = {"audit": ("Milestone audit", "Ready to audit the milestone"),
                   "complete": ("Milestone completion", "Ready to complete the milestone")}


def expected(p: Project, *, phase: int | None, plans: int, summaries: int, status: str, done: int,
             milestone: str = "audit") -> dict:
    """The derived lines for a model: current phase index (1-based, None = all done)."""
    total = len(PHASES)
    if phase is None:
        focus, status = MILESTONE_LINES[milestone]
        return {"Current focus": focus, "Phase": f"{total} of {total} (all phases done)",
                "Status": status, "Last activity": p.last_activity(), "Progress": "[##########] 100%"}
    n, name, _ = PHASES[phase - 1]
    share = summaries / plans if plans else 0
    pct = int(100 * (done + share) / total)
    bar = "[" + "#" * (pct // 10) + "-" * (10 - pct // 10) + f"] {pct}%"
    plan_line = "Not planned yet" if plans == 0 else (
        f"{plans} of {plans} in current phase" if summaries == plans else f"{summaries + 1} of {plans} in current phase")
    return {"Current focus": f"Phase {n} ({name})", "Phase": f"{n} of {total} ({name})", "Plan": plan_line,
            "Status": status, "Last activity": p.last_activity(), "Progress": bar}


def lines_of(root: Path) -> dict:
    text = (root / ".planning/STATE.md").read_text()
    out = {}
    # the template's labels (Focus, Last change) or the older ones, reported under the older names
    labels = {"Current focus": ("Current focus", "Focus"), "Phase": ("Phase",), "Plan": ("Plan",),
              "Status": ("Status",), "Last activity": ("Last activity", "Last change"), "Progress": ("Progress",)}
    for line in text.splitlines():
        for field, names in labels.items():
            for name in names:
                for prefix in (f"**{name}:** ", f"{name}: "):
                    if line.startswith(prefix):
                        out[field] = line[len(prefix):]
    return out


def _sync(msd_run, root, *extra):
    r = msd_run(["state", "sync", "--cwd", str(root), *extra])
    assert "Traceback" not in r.stderr
    return r


def check_stage(msd_run, p: Project, **model):
    r = _sync(msd_run, p.root)
    assert r.returncode == 0, r.stderr
    want = expected(p, **model)
    got = lines_of(p.root)
    assert {k: got.get(k) for k in want} == want
    again = _sync(msd_run, p.root, "--check")
    assert again.returncode == 0 and json.loads(again.stdout)["changed"] == []  # idempotent


def _plan(p: Project, ph: str, pp: str):
    p.write(f".planning/phases/{ph}/{ph[:2]}-{pp}-PLAN.md", "---\nphase: x\n---\n", f"planned {ph[:2]}-{pp}-PLAN.md")


def _summary(p: Project, ph: str, pp: str):
    p.write(f".planning/phases/{ph}/{ph[:2]}-{pp}-SUMMARY.md", "---\nprovides: [x]\n---\n",
            f"completed {ph[:2]}-{pp}-PLAN.md")


def test_walk_every_stage(tmp_path, msd_run):
    p = Project(tmp_path / "proj")
    check_stage(msd_run, p, phase=1, plans=0, summaries=0, status="Ready to discuss", done=0)
    p.write(".planning/phases/01-core/01-CONTEXT.md", "# ctx\n", "discussed phase 1")
    check_stage(msd_run, p, phase=1, plans=0, summaries=0, status="Ready to plan", done=0)
    p.write(".planning/phases/01-core/01-RESEARCH.md", "# r\n", "researched phase 1")
    (p.root / ".planning/state.json").write_text(json.dumps(
        {"version": 1, "workflows": {"plan-phase": {"current": "plan", "status": "running", "vars": {"phase": "01"}}}}))
    check_stage(msd_run, p, phase=1, plans=0, summaries=0, status="Planning", done=0)  # flow state counts
    _plan(p, "01-core", "01")
    _plan(p, "01-core", "02")
    (p.root / ".planning/state.json").unlink()
    check_stage(msd_run, p, phase=1, plans=2, summaries=0, status="Ready to execute", done=0)
    _summary(p, "01-core", "01")
    check_stage(msd_run, p, phase=1, plans=2, summaries=1, status="In progress", done=0)
    _summary(p, "01-core", "02")
    check_stage(msd_run, p, phase=1, plans=2, summaries=2, status="Ready to verify", done=0)
    p.write(".planning/phases/01-core/01-VERIFICATION.md", "---\nstatus: gaps_found\n---\n", "verified phase 1")
    check_stage(msd_run, p, phase=1, plans=2, summaries=2, status="Gaps found", done=0)
    _plan(p, "01-core", "03")
    check_stage(msd_run, p, phase=1, plans=3, summaries=2, status="In progress", done=0)
    _summary(p, "01-core", "03")
    check_stage(msd_run, p, phase=1, plans=3, summaries=3, status="Ready to verify the fixes", done=0)
    p.write(".planning/phases/01-core/01-VERIFICATION.md", "---\nstatus: passed\n---\n", "verified phase 1")
    check_stage(msd_run, p, phase=2, plans=0, summaries=0, status="Ready to discuss", done=1)
    p.write(".planning/ROADMAP.md", _roadmap({"1"}), "roadmap updated")
    check_stage(msd_run, p, phase=2, plans=0, summaries=0, status="Ready to discuss", done=1)
    p.write(".planning/phases/02-auth/02-CONTEXT.md", "# ctx\n", "discussed phase 2")
    _plan(p, "02-auth", "01")
    _summary(p, "02-auth", "01")
    p.write(".planning/phases/02-auth/02-VERIFICATION.md", "---\nstatus: passed\n---\n", "verified phase 2")
    p.write(".planning/phases/02-auth/02-UAT.md", "---\nstatus: testing\n---\n", "acceptance tests of phase 2")
    check_stage(msd_run, p, phase=2, plans=1, summaries=1, status="Acceptance testing", done=1)
    p.write(".planning/phases/02-auth/02-UAT.md", "---\nstatus: complete\n---\n", "acceptance tests of phase 2")
    check_stage(msd_run, p, phase=3, plans=0, summaries=0, status="Ready to discuss", done=2)
    _plan(p, "03-billing", "01")
    _summary(p, "03-billing", "01")
    p.write(".planning/phases/03-billing/03-VERIFICATION.md", "---\nstatus: human_needed\n---\n", "verified phase 3")
    check_stage(msd_run, p, phase=3, plans=1, summaries=1, status="Needs human verification", done=2)
    p.write(".planning/ROADMAP.md", _roadmap({"1", "2", "3"}), "roadmap updated")
    check_stage(msd_run, p, phase=None, plans=0, summaries=0, status="", done=3, milestone="audit")
    p.write(".planning/v1.0-MILESTONE-AUDIT.md", "---\nstatus: passed\n---\n", "roadmap updated")
    p.latest = (p.day - 1, "roadmap updated")  # an audit is no phase file: the roadmap stays the newest
    check_stage(msd_run, p, phase=None, plans=0, summaries=0, status="", done=3, milestone="complete")
    # complete-milestone: the phase folders archived, the roadmap's list collapsed
    archive = p.root / ".planning/milestones/v1.0-phases"
    archive.mkdir(parents=True)
    for _n, _name, folder in PHASES:
        if (p.root / ".planning/phases" / folder).is_dir():
            (p.root / ".planning/phases" / folder).rename(archive / folder)
    p.write(".planning/ROADMAP.md", "# Roadmap\n\n## Completed Milestones\n\n- **v1.0** (Phases 1-3) - shipped\n",
            "roadmap updated")
    assert _sync(msd_run, p.root).returncode == 0
    assert lines_of(p.root) == {"Current focus": "Next milestone", "Phase": "None (between milestones)",
                                "Plan": "Not planned yet", "Status": "Between milestones",
                                "Last activity": p.last_activity(), "Progress": "[----------] 0%"}


def test_hand_edits_derived_rewritten_others_kept_crlf(tmp_path, msd_run):
    p = Project(tmp_path / "proj")
    _sync(msd_run, p.root)
    path = p.root / ".planning/STATE.md"
    text = path.read_text().replace("Status: Ready to discuss", "Status: Done, I promise")
    text = text.replace("**Core value:** One tap", "**Core value:** Two taps (edited by hand)")
    text = text.replace("None yet.\n\n### Blockers", "- [Phase 1]: hand-written decision\n\n### Blockers", 1)
    path.write_bytes(text.replace("\n", "\r\n").encode())
    before = path.read_bytes()
    r = _sync(msd_run, p.root, "--check")
    assert r.returncode == 1 and path.read_bytes() == before  # --check writes nothing
    report = json.loads(r.stdout)
    assert report["changed"] == [{"field": "Status", "line": 11, "old": "Done, I promise", "new": "Ready to discuss"}]
    r = _sync(msd_run, p.root, "--raw")
    assert r.returncode == 0 and r.stdout == "Status (line 11)\n-Done, I promise\n+Ready to discuss\n"
    after = path.read_bytes()
    assert after == before.replace(b"Status: Done, I promise\r\n", b"Status: Ready to discuss\r\n")
    assert b"\n" not in after.replace(b"\r\n", b"")  # CRLF kept on every line


def test_missing_lines_reported_never_invented(tmp_path, msd_run):
    p = Project(tmp_path / "proj")
    path = p.root / ".planning/STATE.md"
    path.write_text("# Project State\n\n## Current Position\nPhase: 9 of 9\n")
    r = _sync(msd_run, p.root)
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["missing"] == ["Current focus", "Plan", "Status", "Last activity", "Progress"]
    assert path.read_text() == "# Project State\n\n## Current Position\nPhase: 1 of 3 (Core)\n"


def test_bad_input(tmp_path, msd_run):
    from msd_core.files.atomic import locked

    p = Project(tmp_path / "proj")
    path = p.root / ".planning/STATE.md"
    path.write_bytes(b"Status: \xff\xfe\n")
    r = _sync(msd_run, p.root)
    assert r.returncode == 1 and "not UTF-8" in r.stderr and path.read_bytes() == b"Status: \xff\xfe\n"
    path.unlink()
    r = _sync(msd_run, p.root)
    assert r.returncode == 1 and "no STATE.md" in r.stderr and len(r.stderr.splitlines()) == 1
    path.write_text(_state_text())
    with locked(p.root / ".planning/.msd/state.lock", 5):
        r = msd_run(["state", "sync", "--cwd", str(p.root)], env={"MSD_LOCK_TIMEOUT": "0.2"})
    assert r.returncode == 4 and path.read_text() == _state_text()


def test_two_folders_one_number_is_reported(tmp_path, msd_run):
    p = Project(tmp_path / "proj")
    (p.root / ".planning/phases/01-core").mkdir(parents=True, exist_ok=True)
    (p.root / ".planning/phases/01-core-again").mkdir()
    out = json.loads(_sync(msd_run, p.root).stdout)
    assert out["warnings"] == ["phase 1: 2 folders share the number (01-core, 01-core-again); only 01-core is read, "
                               "renumber the others"]
    # step-done's sync leaves the warning out (its report never carried it); the rest is the same
    from msd_core.progress.state_sync import sync

    quiet = sync(p.root, check=True, warnings=False)
    loud = sync(p.root, check=True)
    assert "warnings" not in quiet and loud["warnings"] == out["warnings"]
    assert {k: v for k, v in loud.items() if k != "warnings"} == quiet


def test_step_done_syncs_state(tmp_path, msd_run):
    from tests.kit.flowkit import fake_install

    install = fake_install(tmp_path / "cfg")
    p = Project(tmp_path / "proj")
    _plan(p, "01-core", "01")
    base = ["--workflow", "execute-phase", "--root", str(install), "--cwd", str(p.root)]
    assert msd_run(["next-step", *base, "--var", "phase=1"]).returncode == 0
    r = msd_run(["step-done", *base, "--step", "discover-plans", "--result",
                 '{"phase": "1", "phase_dir": "01-core", "plans_remaining": 1}'])
    assert r.returncode == 0, r.stderr
    assert "Status" in json.loads(r.stdout)["state_sync"]["changed"]
    assert lines_of(p.root)["Status"] == "In progress"  # execute-phase is running on phase 1


def test_state_get_raw(tmp_path, msd_run):
    p = Project(tmp_path / "proj")
    _sync(msd_run, p.root)
    r = msd_run(["state", "get", "Status", "--raw", "--cwd", str(p.root)])
    assert r.returncode == 0 and r.stdout == "Ready to discuss\n"
    r = msd_run(["state", "get", "--raw", "--cwd", str(p.root)])
    assert r.stdout == (p.root / ".planning/STATE.md").read_text()
    r = msd_run(["state", "get", "Blockers", "--raw", "--cwd", str(p.root)])
    assert r.stdout == "None yet.\n"


@pytest.mark.parametrize("name", corpus_tree_names() or ["<no corpus>"])
def test_corpus_sync_changes_only_derived_lines(name, copy_corpus_tree, msd_run):
    root = copy_corpus_tree(name)
    path = root / ".planning/STATE.md"
    if not path.is_file():
        pytest.skip("no STATE.md")
    before = path.read_bytes().splitlines(keepends=True)
    r = _sync(msd_run, root)
    assert r.returncode in (0, 1), r.stderr
    if r.returncode == 1:
        assert len(r.stderr.splitlines()) == 1
        return
    out = json.loads(r.stdout)
    after = path.read_bytes().splitlines(keepends=True)
    assert len(after) == len(before)
    changed = {c["line"] for c in out["changed"]}
    for i, (a, b) in enumerate(zip(before, after), start=1):
        if i not in changed:
            assert a == b, (i, a, b)
        else:
            assert a.endswith(b"\r\n") == b.endswith(b"\r\n")
    assert _sync(msd_run, root, "--check").returncode == 0


def test_frontmatter_progress_block_is_derived(tmp_path, msd_run):
    p = Project(tmp_path / "proj")
    _plan(p, "01-core", "01")
    _plan(p, "01-core", "02")
    _summary(p, "01-core", "01")
    path = p.root / ".planning/STATE.md"
    fm = ("---\r\nmilestone: v1.0\r\nprogress:\r\n  total_phases: 9\r\n  completed_phases: 4\r\n"
          "  total_plans: 30\r\n  completed_plans: 21\r\n  percent: 70\r\nlast_updated: x\r\n---\r\n")
    path.write_bytes(fm.encode() + path.read_bytes().replace(b"\n", b"\r\n"))
    out = json.loads(_sync(msd_run, p.root).stdout)
    got = {c["field"]: c["new"] for c in out["changed"] if c["field"].startswith("progress.")}
    # 3 roadmap phases, none done; 2 plans written, 1 summarised; (0 + 1/2) / 3 -> 16%
    assert got == {"progress.total_phases": "3", "progress.completed_phases": "0", "progress.total_plans": "2",
                   "progress.completed_plans": "1", "progress.percent": "16"}
    text = path.read_bytes().decode()
    assert "  total_phases: 3\r\n  completed_phases: 0\r\n  total_plans: 2\r\n  completed_plans: 1\r\n  percent: 16\r\n" in text
    assert "milestone: v1.0\r\n" in text and "last_updated: x\r\n" in text


def test_step_done_records_the_step_even_when_state_is_unreadable(tmp_path, msd_run):
    from tests.kit.flowkit import fake_install

    install = fake_install(tmp_path / "cfg")
    p = Project(tmp_path / "proj")
    _plan(p, "01-core", "01")
    (p.root / ".planning/STATE.md").write_bytes(b"Status: \xff\n")
    base = ["--workflow", "execute-phase", "--root", str(install), "--cwd", str(p.root)]
    r = msd_run(["step-done", *base, "--step", "discover-plans", "--result",
                 '{"phase": "1", "phase_dir": "01-core", "plans_remaining": 1}'])
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["recorded"] == "discover-plans" and "not UTF-8" in out["state_sync"]["error"]
    assert (p.root / ".planning/STATE.md").read_bytes() == b"Status: \xff\n"


def _digest(root: Path) -> str:
    import re

    m = re.search(r"<!-- msd: derived from ([0-9a-f]{12})", (root / ".planning/STATE.md").read_text())
    assert m, "the template's digest line"
    return m.group(1)


def test_the_inputs_digest_is_what_the_sync_that_ticks_roadmap_leaves(tmp_path, msd_run):
    """The `derived from` digest hashes ROADMAP.md as the same sync leaves it (its derived boxes
    set): the sync that ticks a phase writes the digest of the ticked roadmap, so `--check` right
    after it is clean, and a hand change to ROADMAP.md is a new digest."""
    p = Project(tmp_path)
    (tmp_path / ".planning/config.json").write_text('{"workflow": {"verifier": false}}\n')
    _plan(p, "01-core", "01")
    _summary(p, "01-core", "01")
    _plan(p, "02-auth", "01")
    r = _sync(msd_run, p.root)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["roadmap"]["written"] and "- [x] **Phase 1: Core**" in (tmp_path / ".planning/ROADMAP.md").read_text()
    first = _digest(p.root)
    assert first != "000000000000"
    again = json.loads(_sync(msd_run, p.root, "--check").stdout)
    assert again["in_sync"] and again["changed"] == [], again
    road = tmp_path / ".planning/ROADMAP.md"
    road.write_text(road.read_text().replace("Billing** - goal", "Billing** - goal, billed monthly"))
    changed = json.loads(_sync(msd_run, p.root, "--check").stdout)["changed"]
    assert "derived from" in [c["field"] for c in changed]
    assert _sync(msd_run, p.root).returncode == 0 and _digest(p.root) not in (first, "000000000000")


def test_a_flow_planning_a_later_phase_leaves_the_status_alone(tmp_path, msd_run):
    """Issue 45 (seam 13, fixed in e88c2f6; the walker found it): plan-phase running for phase 3
    while the focus is phase 1 must not set Status to Planning, or the flow's end re-derives it
    after the plan's commit and leaves STATE.md modified (`git pull` then aborts)."""
    p = Project(tmp_path / "proj")
    p.write(".planning/phases/01-core/01-CONTEXT.md", "# ctx\n", "discussed phase 1")
    flow = {"plan-phase": {"current": "commit", "status": "running", "vars": {"phase": "03"}}}
    (p.root / ".planning/state.json").write_text(json.dumps({"version": 1, "workflows": flow}))
    check_stage(msd_run, p, phase=1, plans=0, summaries=0, status="Ready to plan", done=0)
    flow["plan-phase"].update(current="done", status="done")  # the flow's end changes no derived line
    (p.root / ".planning/state.json").write_text(json.dumps({"version": 1, "workflows": flow}))
    assert _sync(msd_run, p.root, "--check").returncode == 0
