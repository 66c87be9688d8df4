"""split_frontmatter, parse_plan, summary_facts and discovery on small hand-made oddities."""

from __future__ import annotations

from pathlib import Path

import pytest

from msd_core.planning.discovery import normalize_phase, phase_dirs, plan_id, project_summaries
from msd_core.planning.frontmatter import read_lenient, split_frontmatter
from msd_core.planning.plan import parse_plan
from msd_core.planning.summary import Skip, SummaryFacts, summary_facts


def test_plain_frontmatter_and_body():
    data, body, err = split_frontmatter("---\na: 1\nb: [x, y]\n---\n# Body\n")
    assert data == {"a": 1, "b": ["x", "y"]} and body == "# Body\n" and err is None


def test_crlf_and_bom_body_keeps_crlf():
    data, body, err = split_frontmatter("\ufeff---\r\nphase: 02-auth\r\n---\r\nline\r\n")
    assert data == {"phase": "02-auth"} and body == "line\r\n" and err is None


def test_no_frontmatter():
    assert split_frontmatter("# Title\n---\nx: 1\n---\n") == (None, "# Title\n---\nx: 1\n---\n", None)


def test_unterminated():
    data, body, err = split_frontmatter("---\na: 1\nno end\n")
    assert data is None and err == "unterminated frontmatter" and body == "---\na: 1\nno end\n"


def test_empty_frontmatter():
    assert split_frontmatter("---\n---\nbody") == ({}, "body", None)


def test_not_a_mapping():
    data, _, err = split_frontmatter("---\n- a\n- b\n---\n")
    assert data is None and err == "frontmatter is not a mapping"


def test_dates_stay_strings():
    data, _, _ = split_frontmatter("---\ncompleted: 2026-11-30\n---\n")
    assert data == {"completed": "2026-11-30"}


def test_duplicate_keys_last_wins_in_yaml_and_fallback():
    data, _, err = split_frontmatter("---\na: 1\na: 2\n---\n")
    assert data == {"a": 2} and err is None
    assert read_lenient("a: 1\na: two\n") == {"a": "two"}


def test_yaml_rejected_uses_line_fallback():
    text = (
        "---\nphase: 02-x\nrequires:\n  - phase: 01-y\n    provides: `Svc` boundary\n"
        "provides:\n  - first `thing`\n  - second\naffects: [a, b: c, d]\n"
        "tech-stack:\n  added: []\n  patterns:\n    - @FocusState for focus\n---\nbody\n"
    )
    data, body, err = split_frontmatter(text)
    assert err and err.startswith("yaml rejected") and "line-based fallback" in err
    assert body == "body\n"
    assert data["phase"] == "02-x"
    assert data["requires"] == [{"phase": "01-y", "provides": "`Svc` boundary"}]
    assert data["provides"] == ["first `thing`", "second"]
    assert data["affects"] == ["a", "b: c", "d"]
    assert data["tech-stack"] == {"added": [], "patterns": ["@FocusState for focus"]}


def test_fallback_block_scalar_and_multiline_flow():
    data = read_lenient("a: |\n  one\n  two\nb: [x,\n  y]\nc: 'quoted: yes'\n")
    assert data == {"a": "one\ntwo", "b": ["x", "y"], "c": "quoted: yes"}


def test_garbage_never_raises():
    for text in ["---\n\x00\x01: [\n---\n", "---\n:::\n---\n", "---\n" + "[" * 5000 + "\n---\n", None]:
        data, body, err = split_frontmatter(text)  # type: ignore[arg-type]
        assert err is not None or data is not None


PLAN = """---
phase: 02-auth
plan: 01
files_modified: [src/a.py, src/b.py]
user_setup:
  - service: stripe
---
<tasks>
<task type="auto" tdd="true">
  <name>Task 1: login</name>
  <files>src/a.py, `tests/test_a.py` (new)</files>
</task>
<task type="checkpoint:human-verify" gate="blocking">
  <what-built>x</what-built>
</task>
<task name="attr name">
  <files>
  - src/c.py
  - src/a.py
  </files>
</task>
</tasks>
```xml
<task type="checkpoint:decision"><name>example only</name></task>
```
"""


def test_parse_plan_tasks():
    plan = parse_plan(PLAN)
    assert [t.type for t in plan.tasks] == ["auto", "checkpoint:human-verify", "auto"]
    assert [t.tdd for t in plan.tasks] == [True, False, False]
    assert [t.is_checkpoint for t in plan.tasks] == [False, True, False]
    assert plan.tasks[0].name == "Task 1: login" and plan.tasks[2].name == "attr name"
    assert plan.tasks[0].files == ["src/a.py", "tests/test_a.py"]
    assert plan.tasks[2].files == ["src/c.py", "src/a.py"]
    assert plan.files == ["src/a.py", "src/b.py", "tests/test_a.py", "src/c.py"]
    assert plan.has_user_setup and plan.has_tdd and plan.has_checkpoint
    assert plan.decision_count == 0  # the fenced example is not a task


def test_plan_without_user_setup_or_frontmatter():
    plan = parse_plan("<task type=\"auto\"><name>x</name></task>")
    assert plan.frontmatter == {} and not plan.has_user_setup and not plan.has_tdd and len(plan.tasks) == 1
    assert not parse_plan("---\nuser_setup: []\n---\n").has_user_setup


@pytest.mark.parametrize(
    "value,expected",
    [("02", "2"), ("03.3", "3.3"), ("35.1-hotfix", "35.1"), (7, "7"), (3.1, "3.1"), ("02-auth", "2"),
     ("G1-foundation", "G1"), ("00-setup", "0"), (None, None), (True, None), ("", None)],
)
def test_normalize_phase(value, expected):
    assert normalize_phase(value) == expected


def _write(p: Path, text: str) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def test_discovery_layouts(tmp_path):
    pl = tmp_path / ".planning"
    _write(pl / "milestones/v1.0-phases/01-foundation/01-01-SUMMARY.md", "---\nphase: 1\n---\n")
    _write(pl / "milestones/v1.0-REQUIREMENTS.md", "x")
    _write(pl / "phases/_archive/v0.9/00-proto/SUMMARY.md", "---\nphase: 0\n---\n")
    _write(pl / "phases/35.1-hotfix/35.1-01-SUMMARY.md", "---\nphase: 35.1\n---\n")
    _write(pl / "phases/12-big/12-big-01-SUMMARY.md", "---\nphase: 12\n---\n")
    _write(pl / "phases/12-big/12-01-PLAN.md", "x")
    _write(pl / "phases/12-big/notes.md", "x")
    names = [p.name for p in phase_dirs(pl)]
    assert names == ["01-foundation", "00-proto", "12-big", "35.1-hotfix"]
    found = [(ph.number, f.name) for ph, f in project_summaries(pl)]
    assert found == [("1", "01-01-SUMMARY.md"), ("0", "SUMMARY.md"), ("12", "12-big-01-SUMMARY.md"), ("35.1", "35.1-01-SUMMARY.md")]
    assert plan_id(pl / "phases/12-big/12-big-01-SUMMARY.md") == "12-big-01"
    assert plan_id(pl / "phases/_archive/v0.9/00-proto/SUMMARY.md") == "00-proto"


def test_discovery_does_not_follow_symlinks(tmp_path):
    outside = _write(tmp_path / "outside/99-x/99-01-SUMMARY.md", "---\nphase: 99\n---\n")
    pl = tmp_path / "p/.planning/phases"
    pl.mkdir(parents=True)
    (pl / "99-x").symlink_to(outside.parent)
    _write(pl / "01-a/01-01-SUMMARY.md", "---\nphase: 1\n---\n")
    (pl / "01-a/01-02-SUMMARY.md").symlink_to(outside)
    assert [f.name for _, f in project_summaries(tmp_path / "p/.planning")] == ["01-01-SUMMARY.md"]


SUMMARY_VARIANTS = """---
phase: 03.3-sync
plan: 02
subsystem: sync
dependency_graph:
  requires: [{phase: 01-foundation, provides: "db schema"}]
  provides: [sync engine]
  affects: [api]
provides: [top-level provide]
tech_stack:
  added: [{name: pyjwt, version: 2}, redis]
key_files:
  created: [src/s.py]
  modified: [src/app.py]
key_decisions:
  - Decision: use CRDTs
decisions: ["second decision"]
patterns_established: ["all writes via queue"]
completed: 2026-01-01
---
"""


def test_summary_variants(tmp_path):
    f = _write(tmp_path / "phases/03.3-sync/03.3-02-SUMMARY.md", SUMMARY_VARIANTS)
    facts = summary_facts(f, relative_to=tmp_path)
    assert isinstance(facts, SummaryFacts)
    assert facts.file == "phases/03.3-sync/03.3-02-SUMMARY.md"
    assert facts.phase == "3.3" and facts.plan == "03.3-02" and facts.subsystem == "sync"
    assert facts.provides == ["top-level provide", "sync engine"]
    assert facts.affects == ["api"]
    assert facts.requires == ["01-foundation: db schema"]
    assert facts.tech_stack == ["pyjwt", "redis"]
    assert facts.key_files == ["src/s.py", "src/app.py"]
    assert facts.decisions == ["Decision: use CRDTs", "second decision"]
    assert facts.patterns == ["all writes via queue"]
    assert facts.lenient is None


def test_summary_phase_from_folder_and_float(tmp_path):
    f = _write(tmp_path / "03.10-x/03.10-01-SUMMARY.md", "---\nphase: 3.10\nprovides: [a]\n---\n")
    assert summary_facts(f).phase == "3.10"
    g = _write(tmp_path / "07-y/SUMMARY.md", "---\nprovides: [a]\n---\n")
    assert summary_facts(g).phase == "7"


@pytest.mark.parametrize(
    "text,reason",
    [("# no frontmatter\n", "no frontmatter"), ("---\na: 1\n", "unterminated frontmatter"),
     ("---\n- x\n---\n", "frontmatter is not a mapping"), ("---\n---\n", "empty frontmatter")],
)
def test_summary_skips_with_reason(tmp_path, text, reason):
    f = _write(tmp_path / "01-a/01-01-SUMMARY.md", text)
    r = summary_facts(f)
    assert isinstance(r, Skip) and r.reason == reason


def test_summary_size_cap(tmp_path, monkeypatch):
    import msd_core.planning.summary as summary

    f = _write(tmp_path / "01-a/01-01-SUMMARY.md", "---\nprovides: [a]\n---\n" + "x" * 200)
    monkeypatch.setattr(summary, "MAX_SUMMARY_BYTES", 100)
    r = summary.summary_facts(f)
    assert isinstance(r, Skip) and "larger than 100 bytes" in r.reason


def test_summary_lenient_marked(tmp_path):
    f = _write(tmp_path / "01-a/01-01-SUMMARY.md", "---\nprovides:\n  - `x` thing\n  - @y\n---\n")
    r = summary_facts(f)
    assert isinstance(r, SummaryFacts) and r.provides == ["`x` thing", "@y"] and r.lenient.startswith("yaml rejected")


def _laughs(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol"]']
    for i in range(1, levels):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 9)}]")
    lines.append(f"provides: *a{levels - 1}")
    return "---\n" + "\n".join(lines) + "\n---\nbody\n"


def test_alias_bomb_refused_quickly():
    import time

    t0 = time.monotonic()
    data, body, err = split_frontmatter(_laughs())
    assert data is None and body == "body\n" and "too large" in err and "aliases" in err
    assert time.monotonic() - t0 < 2
    small, _, err2 = split_frontmatter(_laughs(2))  # 1 + 9 values: fine
    assert err2 is None and small["provides"] == [["lol"]] * 9


def test_block_size_cap(monkeypatch):
    import msd_core.planning.frontmatter as fm

    monkeypatch.setattr(fm, "MAX_BLOCK_CHARS", 50)
    data, _, err = fm.split_frontmatter("---\nkey: " + "x" * 60 + "\n---\n")
    assert data is None and "too large" in err


def test_alias_bomb_summary_is_skipped(tmp_path):
    f = _write(tmp_path / "01-a/01-01-SUMMARY.md", _laughs())
    r = summary_facts(f)
    assert isinstance(r, Skip) and "too large" in r.reason


def test_discovery_symlinked_phases_folder_not_followed(tmp_path):
    outside = _write(tmp_path / "outside/phases/01-x/01-01-SUMMARY.md", "---\nphase: 1\n---\n")
    pl = tmp_path / "p/.planning"
    pl.mkdir(parents=True)
    (pl / "phases").symlink_to(outside.parent.parent)
    (pl / "milestones").mkdir()
    (pl / "milestones/v1.0-phases").symlink_to(outside.parent.parent)
    assert phase_dirs(pl) == [] and project_summaries(pl) == []
