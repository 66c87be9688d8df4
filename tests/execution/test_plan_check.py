"""`msd_run check plan <phase>`: each finding code, with a fixture that makes it fire (issue 30, items 4 and 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROADMAP = """# Roadmap

## Phases

- [ ] Phase 1: Core — habits

### Phase 1: Core
Goal: habits can be created
Requirements: HABIT-01, HABIT-02
Plans: TBD
"""

CONTEXT = """---
phase: 01-core
---
# Phase 1: Core - Context

## Decisions

### Storage
- D-01: Habits are stored in one JSON file per user
- D-02: A habit name is at most 40 characters

## Claude's Discretion
- D-03: the file layout under data/
"""


def plan(pid="01-01", wave=1, files=("src/habits.py",), reqs=("HABIT-01", "HABIT-02"), deps=(), autonomous="true",
         must=None, tasks=None) -> str:
    must = must if must is not None else (
        "must_haves:\n  truths: [\"habits can be created\"]\n  artifacts: [src/habits.py]\n"
        "  key_links:\n    - {from: src/app.py, to: src/habits.py, pattern: 'import habits'}\n")
    tasks = tasks if tasks is not None else [
        ("auto", "Task 1: store habits", "D-01", "Write one JSON file per user."),
        ("auto", "Task 2: limit names", "D-02", "Refuse names over 40 characters."),
    ]
    body = "".join(f'<task type="{t}">\n  <name>{n}</name>\n  <files>{files[0]}</files>\n  <decisions>{d}</decisions>\n'
                   f'  <action>{a}</action>\n  <verify>pytest -q</verify>\n  <done>done</done>\n</task>\n' for t, n, d, a in tasks)
    return (f"---\nphase: 01-core\nplan: {pid[-2:]}\ntype: execute\nwave: {wave}\ndepends_on: [{', '.join(deps)}]\n"
            f"files_modified: [{', '.join(files)}]\nautonomous: {autonomous}\nrequirements: [{', '.join(reqs)}]\n{must}---\n"
            f"<objective>habits</objective>\n<tasks>\n{body}</tasks>\n")


def seed(root: Path, plans: dict[str, str], context: str | None = CONTEXT) -> Path:
    """Phase 1 (01-core) of ROADMAP in `root`: its CONTEXT.md and the given plans; the phase folder."""
    phase = root / ".planning" / "phases" / "01-core"
    phase.mkdir(parents=True)
    (root / ".planning" / "ROADMAP.md").write_text(ROADMAP)
    if context is not None:
        (phase / "01-CONTEXT.md").write_text(context)
    for pid, text in plans.items():
        (phase / f"{pid}-PLAN.md").write_text(text)
    return phase


def project(tmp_path: Path, plans: dict[str, str], context: str | None = CONTEXT) -> Path:
    root = tmp_path / "p"
    seed(root, plans, context)
    return root


def check(msd_run, root, *extra):
    r = msd_run(["check", "plan", "1", "--json", *extra], cwd=root)
    assert r.returncode in (0, 1), r.stderr
    return r.returncode, json.loads(r.stdout)


def codes(out) -> list[str]:
    return sorted(f["code"] for f in out["findings"])


def test_a_good_phase_passes(msd_run, tmp_path):
    root = project(tmp_path, {"01-01": plan()})
    code, out = check(msd_run, root)
    assert (code, out["status"], out["findings"]) == (0, "passed", [])
    assert out["decisions"] == {"locked": 2, "unnumbered": 0}


def test_the_text_form_names_code_file_and_line(msd_run, tmp_path):
    root = project(tmp_path, {"01-01": plan(tasks=[("auto", "Task 1: store habits", "D-01", "Write it.")])})
    r = msd_run(["check", "plan", "01-core"], cwd=root)
    assert r.returncode == 1
    first = r.stdout.splitlines()[0]
    # D-02 sits on line 10 of CONTEXT.md
    assert first.startswith("blocker decision-not-cited .planning/phases/01-core/01-CONTEXT.md:10 locked decision D-02"), first
    assert r.stdout.splitlines()[-1].startswith("check plan 01-core: issues_found (1 plans, 1 blockers")


def test_a_locked_decision_no_task_cites(msd_run, tmp_path):
    root = project(tmp_path, {"01-01": plan(tasks=[("auto", "Task 1: store habits", "D-01", "Write it.")])})
    code, out = check(msd_run, root)
    assert code == 1 and codes(out) == ["decision-not-cited"]
    # a discretion decision (D-03) need not be cited
    assert "D-02" in out["findings"][0]["message"] and out["findings"][0]["line"] == 10


def test_a_citation_of_an_unknown_decision(msd_run, tmp_path):
    root = project(tmp_path, {"01-01": plan(tasks=[("auto", "Task 1: store", "D-01, D-02, D-09", "Write it.")])})
    code, out = check(msd_run, root)
    assert code == 1 and codes(out) == ["decision-unknown"]
    assert out["findings"][0]["plan"] == "01-01" and out["findings"][0]["line"] == 19


@pytest.mark.parametrize("words", ["a v1 of it for now", "a simplified store", "a placeholder file", "stub the writer",
                                   "a temporary list", "TODO: the limit", "the basic version", "placeholder data"])
def test_scope_cut_words_in_a_task_citing_a_locked_decision(msd_run, tmp_path, words):
    root = project(tmp_path, {"01-01": plan(tasks=[("auto", "Task 1: store", "D-01, D-02", f"Write {words}.")])})
    code, out = check(msd_run, root)
    assert code == 1 and codes(out) == ["scope-cut"], out


def test_scope_cut_words_are_not_flagged_elsewhere(msd_run, tmp_path):
    # the same words in a task citing only a discretion decision, in the files and verify elements, in an API path
    tasks = [("auto", "Task 1: store", "D-01, D-02", "Serve it under /api/v1/habits, with a todo list and an input "
                                                   "whose placeholder text says 'name'."),
             ("auto", "Task 2: layout", "D-03", "A simplified layout for now.")]
    root = project(tmp_path, {"01-01": plan(tasks=tasks)})
    code, out = check(msd_run, root)
    assert code == 0, out["findings"]


def test_old_context_without_ids_is_readable_and_warned(msd_run, tmp_path):
    old = "# Context\n\n## Decisions\n\n### Storage\n- One JSON file per user\n\n## Deferred Ideas\n- sync\n"
    root = project(tmp_path, {"01-01": plan(tasks=[("auto", "Task 1: store", "", "Write it.")])}, context=old)
    code, out = check(msd_run, root)
    assert code == 0 and codes(out) == ["decisions-unnumbered"]
    assert out["findings"][0]["severity"] == "warning" and out["findings"][0]["line"] == 6


def test_a_decision_id_given_twice(msd_run, tmp_path):
    ctx = CONTEXT.replace("- D-02:", "- D-01:")
    root = project(tmp_path, {"01-01": plan(tasks=[("auto", "Task 1: store", "D-01", "Write it.")])}, context=ctx)
    code, out = check(msd_run, root)
    assert code == 1 and codes(out) == ["decision-duplicate"]


def test_a_requirement_no_plan_maps(msd_run, tmp_path):
    root = project(tmp_path, {"01-01": plan(reqs=("HABIT-01", "HABIT-07"))})
    code, out = check(msd_run, root)
    assert code == 1 and codes(out) == ["requirement-unknown", "requirement-unmapped"]
    unmapped = next(f for f in out["findings"] if f["code"] == "requirement-unmapped")
    assert "HABIT-02" in unmapped["message"] and unmapped["file"] == ".planning/ROADMAP.md" and unmapped["line"] == 9


@pytest.mark.parametrize("must,expected", [
    ("", ["artifacts-missing", "must-haves-missing"]),
    ("must_haves:\n  truths: [\"x\"]\n  artifacts: [src/habits.py]\n", ["key-links-missing"]),
    ("must_haves:\n  truths: [\"x\"]\n  artifacts: [src/habits.py]\n  key_links: []\n", []),
    ("must_haves:\n  truths: [\"x\"]\n  artifacts: [src/habits.py]\n  key_links:\n    - {from: a, to: b, pattern: '(['}\n",
     ["must-haves-malformed"]),
    ("must_haves:\n  truths: [\"x\"]\n  artifacts: [src/habits.py]\n  key_links:\n    - {from: a, pattern: 'x'}\n",
     ["must-haves-malformed"]),
    # a repeated group holding a repeat: refused before it can run for ever on a near match
    ("must_haves:\n  truths: [\"x\"]\n  artifacts: [src/habits.py]\n  key_links:\n    - {from: a, to: b, pattern: '(a+)+$'}\n",
     ["must-haves-malformed"]),
    ("must_haves:\n  truths: [\"x\"]\n  artifacts: [src/habits.py]\n  key_links:\n    - {from: a, to: b, pattern: '(import|from) habits+'}\n",
     []),
])
def test_must_haves_and_key_links(msd_run, tmp_path, must, expected):
    root = project(tmp_path, {"01-01": plan(must=must)})
    code, out = check(msd_run, root)
    assert codes(out) == expected and code == (1 if expected else 0)


def test_a_checkpoint_in_an_autonomous_plan(msd_run, tmp_path):
    tasks = [("auto", "Task 1: store", "D-01, D-02", "Write it."), ("checkpoint:human-verify", "Task 2: look", "", "Show it.")]
    root = project(tmp_path, {"01-01": plan(tasks=tasks)})
    code, out = check(msd_run, root)
    assert code == 1 and codes(out) == ["checkpoint-autonomous"]
    assert out["findings"][0]["line"] == 27  # Task 2's name
    root2 = project(tmp_path / "b", {"01-01": plan(tasks=tasks, autonomous="false")})
    assert check(msd_run, root2)[0] == 0


def test_two_plans_of_a_wave_modifying_one_file(msd_run, tmp_path):
    root = project(tmp_path, {"01-01": plan(), "01-02": plan("01-02", reqs=("HABIT-02",))})
    code, out = check(msd_run, root)
    assert code == 1 and codes(out) == ["wave-file-overlap"]
    assert "src/habits.py" in out["findings"][0]["message"]


def test_dependency_cycles_and_waves(msd_run, tmp_path):
    root = project(tmp_path, {"01-01": plan(wave=1, deps=("01-02",)),
                              "01-02": plan("01-02", wave=2, files=("src/b.py",), deps=("01-01",))})
    code, out = check(msd_run, root)
    assert code == 1 and codes(out) == ["dependency-cycle", "dependency-later-wave"]
    cycle = next(f for f in out["findings"] if f["code"] == "dependency-cycle")
    assert "01-01 -> 01-02 -> 01-01" in cycle["message"]


def test_an_unknown_dependency_is_a_warning(msd_run, tmp_path):
    root = project(tmp_path, {"01-01": plan(deps=("01-09",))})
    code, out = check(msd_run, root)
    assert code == 0 and codes(out) == ["dependency-unknown"]


def test_malformed_input(msd_run, tmp_path):
    root = project(tmp_path, {"01-01": "---\nwave: [1\nphase: x\n", "01-02": plan("01-02")})
    code, out = check(msd_run, root)
    assert code == 1 and "plan-unreadable" in codes(out)
    (root / ".planning/phases/01-core/01-03-PLAN.md").write_bytes(b"\xff\xfe" * 10)  # not UTF-8: read with replacement
    assert check(msd_run, root)[0] == 1
    empty = project(tmp_path / "e", {})
    code, out = check(msd_run, empty)
    assert code == 1 and codes(out) == ["no-plans"]


def test_bad_usage_is_one_line_exit_2(msd_run, tmp_path):
    root = project(tmp_path, {"01-01": plan()})
    for ref in ("7", "not a phase"):
        r = msd_run(["check", "plan", ref], cwd=root)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) <= 2 and "Traceback" not in r.stderr, r.stderr
    r = msd_run(["check", "plan"], cwd=root)
    assert r.returncode == 2


def test_a_symlinked_plan_is_named_not_followed(msd_run, tmp_path):
    root = project(tmp_path, {"01-01": plan()})
    secret = tmp_path / "secret.md"
    secret.write_text(plan("01-02"))
    (root / ".planning/phases/01-core/01-02-PLAN.md").symlink_to(secret)
    code, out = check(msd_run, root)
    assert code == 1 and "file-unreadable" in codes(out)


def test_an_oversized_context_is_named_not_read(msd_run, tmp_path):
    root = project(tmp_path, {"01-01": plan()}, context=CONTEXT + "x" * (3 * 1024 * 1024))
    code, out = check(msd_run, root)
    assert code == 1 and codes(out) == ["file-unreadable"]
    assert out["findings"][0]["file"] == ".planning/phases/01-core/01-CONTEXT.md"


def test_an_older_context_and_prose_citations(msd_run, tmp_path):
    """The heading and bullets older CONTEXT files use; a task naming a decision in its text ("per D-02")
    cites it, and its scope-cut words count the same."""
    old = "# Context\n\n## Implementation Decisions\n\n### Storage\n- **D-01:** one JSON file per user\n- **D-02:** names up to 40\n"
    tasks = [("auto", "Task 1: store", "", "Write the store (per D-01)."), ("auto", "Task 2: names", "", "Limit names per D-02.")]
    root = project(tmp_path, {"01-01": plan(tasks=tasks)}, context=old)
    code, out = check(msd_run, root)
    assert (code, out["findings"], out["decisions"]["locked"]) == (0, [], 2)
    tasks[1] = ("auto", "Task 2: names", "", "Limit names per D-02, simplified for now.")
    root = project(tmp_path / "b", {"01-01": plan(tasks=tasks)}, context=old)
    assert codes(check(msd_run, root)[1]) == ["scope-cut"]
    (root / ".planning/phases/01-core/01-01-PLAN.md").write_text(plan(tasks=tasks[:1]))
    out = check(msd_run, root)[1]
    assert codes(out) == ["decision-not-cited"] and "(names up to 40)" in out["findings"][0]["message"]


def test_every_code_has_one_of_the_plan_checkers_dimensions(msd_run, tmp_path):
    """Each finding says its dimension (the agent maps nothing): every code in the module's table has
    one, and each is a dimension msd-plan-checker's own table names."""
    import re as _re

    from msd_core.execution import plan_check

    documented = set(_re.findall(r"^  ([a-z][a-z-]+)\s+(?:blocker|warning)\s", plan_check.__doc__, _re.M))
    assert documented and documented == set(plan_check.DIMENSIONS)
    agent = (Path(plan_check.__file__).parents[1] / "content" / "agents" / "msd-plan-checker.md").read_text()
    named = set(_re.findall(r"^\| `([a-z_]+)` \|", agent, _re.M))
    assert len(named) == 6 and set(plan_check.DIMENSIONS.values()) <= named
    root = project(tmp_path, {"01-01": plan(tasks=[("auto", "Task 1: store habits", "D-01", "Write it.")])})
    _code, out = check(msd_run, root)
    assert [(f["code"], f["dimension"]) for f in out["findings"]] == [("decision-not-cited", "context_compliance")]
