"""msd's own workflows are never blocked by the guards: their write steps, walked in order with
the tool calls the content tells the agent to make (new-project, its roadmap revision, discuss and
plan-phase, execute-phase's ROADMAP/REQUIREMENTS edits, complete-milestone's archive and collapse,
new-milestone's additions), each go ahead; and every planning document of the real corpus can be
rewritten as it is, added to, and ticked."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = REPO / "msd_core" / "content" / "msd-core" / "templates"

ROADMAP = """# Roadmap: Shop

From an empty repository to a shop that takes orders.

## Phases

- [ ] Phase 1: Foundation — the app starts locally, CI is green
- [ ] Phase 2: Accounts — people register and log in
- [ ] Phase 3: Catalogue — people browse products
- [ ] Phase 4: Orders — people order and pay

""" + "\n".join(f"""### Phase {n}: {name}
Goal: {goal}
Depends on: {"nothing" if n == 1 else f"Phase {n - 1}"}
Requirements: {reqs}
Done when:
- {goal}, tried by a person in the browser
- the change is covered by tests that pass in CI
Plans: TBD
""" for n, name, goal, reqs in [(1, "Foundation", "the app starts against a database", "CORE-01"),
                                (2, "Accounts", "people register, log in, stay logged in", "AUTH-01, AUTH-02"),
                                (3, "Catalogue", "people browse and search products", "CAT-01"),
                                (4, "Orders", "people order and pay by card", "ORD-01, ORD-02")])

REQUIREMENTS = """# Requirements: Shop

## v1 Requirements

### Core
- [ ] **CORE-01**: The app starts locally against a database

### Accounts
- [ ] **AUTH-01**: A visitor creates an account from an email address
- [ ] **AUTH-02**: A person logs in and stays logged in

### Catalogue
- [ ] **CAT-01**: A person browses and searches products

### Orders
- [ ] **ORD-01**: A person puts products in a basket and orders
- [ ] **ORD-02**: A person pays by card

## Traceability

| Requirement | Phase | Status |
|-------------|-------|--------|
""" + "".join(f"| {i} | Phase {p} | Pending |\n" for i, p in [("CORE-01", 1), ("AUTH-01", 2), ("AUTH-02", 2), ("CAT-01", 3),
                                                           ("ORD-01", 4), ("ORD-02", 4)]) + "\n**Coverage:** 6 of 6 v1 requirements mapped to a phase.\n"


class Walk:
    """The agent's tool calls on one project, each through the guard, then (allowed) done as the host would."""

    def __init__(self, root: Path, decide):
        self.root, self.decide = root, decide
        self.pl = root / ".planning"

    def write(self, rel: str, text: str, agent: str | None = None) -> None:
        extra = {"agent_id": agent} if agent else {}
        reason = self.decide(self.root, "Write", {"file_path": str(self.pl / rel), "content": text}, **extra)
        assert reason is None, f"Write {rel}: {reason}"
        (self.pl / rel).parent.mkdir(parents=True, exist_ok=True)
        (self.pl / rel).write_text(text)

    def edit(self, rel: str, old: str, new: str, replace_all: bool = False) -> None:
        call = {"file_path": str(self.pl / rel), "old_string": old, "new_string": new, "replace_all": replace_all}
        reason = self.decide(self.root, "Edit", call)
        assert reason is None, f"Edit {rel}: {reason}"
        text = (self.pl / rel).read_text()
        assert old in text, f"Edit {rel}: {old!r} not in the file"
        (self.pl / rel).write_text(text.replace(old, new) if replace_all else text.replace(old, new, 1))

    def move(self, rel: str, to: str) -> None:  # `git mv` through Bash: no guard involved
        (self.pl / to).parent.mkdir(parents=True, exist_ok=True)
        os.rename(self.pl / rel, self.pl / to)


@pytest.fixture
def walk(tmp_path, decide):
    root = tmp_path / "shop"
    (root / ".planning").mkdir(parents=True)
    return Walk(root, decide)


def test_msd_workflows_write_steps_all_go_ahead(walk):
    w = walk
    # new-project: PROJECT, REQUIREMENTS, research, then the roadmapper's ROADMAP and STATE (all new files)
    w.write("PROJECT.md", "# Shop\n\n## What This Is\n\nA small shop.\n\n## Core Value\n\nPeople can order.\n")
    w.write("REQUIREMENTS.md", REQUIREMENTS)
    w.write("research/STACK.md", "# Stack\n\n- FastAPI 0.115: the web framework\n- Postgres 16\n", agent="r1")
    w.write("research/SUMMARY.md", "# Research summary\n\nBuild on FastAPI and Postgres.\n", agent="r1")
    w.write("ROADMAP.md", ROADMAP, agent="rm")
    w.write("STATE.md", (TEMPLATES / "state.md").read_text().replace("{{", "").replace("}}", ""), agent="rm")
    # the user asks to merge phases 3 and 4: the roadmapper's second pass (no phase folder exists yet)
    merged = ROADMAP.replace("- [ ] Phase 3: Catalogue — people browse products\n- [ ] Phase 4: Orders — people order and pay\n",
                             "- [ ] Phase 3: Shop floor — people browse, order and pay\n")
    merged = merged[: merged.index("### Phase 3")] + ("### Phase 3: Shop floor\nGoal: people browse, order and pay\n"
                                                      "Depends on: Phase 2\nRequirements: CAT-01, ORD-01, ORD-02\nPlans: TBD\n")
    w.write("ROADMAP.md", merged, agent="rm")
    w.edit("REQUIREMENTS.md", "| ORD-01 | Phase 4 | Pending |\n| ORD-02 | Phase 4 | Pending |",
           "| ORD-01 | Phase 3 | Pending |\n| ORD-02 | Phase 3 | Pending |")
    # discuss-phase and plan-phase of phase 1
    w.write("phases/01-foundation/01-CONTEXT.md", "---\nphase: 01-foundation\n---\n# Phase 1 context\n\n## Decisions\n\n- D-01: Postgres\n")
    w.write("phases/01-foundation/01-RESEARCH.md", "# Phase 1 research\n\n- alembic 1.13 for migrations\n", agent="pr")
    plan = (TEMPLATES / "plan.md").read_text()
    w.write("phases/01-foundation/01-01-PLAN.md", plan, agent="planner")
    w.write("phases/01-foundation/01-01-PLAN.md", plan.replace("{{", "<").replace("}}", ">"), agent="planner")  # a checker revision
    # execute-phase: the summary, the verification, then the orchestrator's ROADMAP and REQUIREMENTS edits
    w.write("phases/01-foundation/01-01-SUMMARY.md", "---\nphase: 01-foundation\nplan: 01\n---\n# Summary\n\nThe app starts.\n", agent="ex")
    w.write("phases/01-foundation/01-VERIFICATION.md", "---\nstatus: passed\n---\n# Verification\n", agent="v")
    w.edit("ROADMAP.md", "- [ ] Phase 1: Foundation", "- [x] Phase 1: Foundation")
    w.edit("ROADMAP.md", "Requirements: CORE-01\nDone when:", "Requirements: CORE-01\nDone when:")
    w.edit("ROADMAP.md", "Plans: TBD", "Plans: 1 plan\n- [x] 01-01-PLAN.md — app skeleton and database")
    w.edit("REQUIREMENTS.md", "- [ ] **CORE-01**", "- [x] **CORE-01**")
    w.edit("REQUIREMENTS.md", "| CORE-01 | Phase 1 | Pending |", "| CORE-01 | Phase 1 | Complete |")
    for n, slug in ((2, "accounts"), (3, "shop-floor")):
        w.write(f"phases/0{n}-{slug}/0{n}-01-PLAN.md", plan, agent="planner")
        w.write(f"phases/0{n}-{slug}/0{n}-01-SUMMARY.md", f"---\nphase: 0{n}\nplan: 01\n---\n# Summary\n", agent="ex")
        w.edit("ROADMAP.md", f"- [ ] Phase {n}:", f"- [x] Phase {n}:")
    # complete-milestone: archive, requirements header, moves (git mv), collapse, MILESTONES, PROJECT
    archive = w.pl.joinpath("ROADMAP.md").read_text()
    w.write("milestones/v1.0-ROADMAP.md", "# v1.0 Shop\n\nArchived: 2026-12-01\n\n" + archive)
    w.edit("REQUIREMENTS.md", "# Requirements: Shop\n", "# Requirements: Shop\n\nArchived: 2026-12-01 · Milestone v1.0\n")
    w.edit("REQUIREMENTS.md", "Pending", "Complete", replace_all=True)
    w.move("REQUIREMENTS.md", "milestones/v1.0-REQUIREMENTS.md")
    for name in ("01-foundation", "02-accounts", "03-shop-floor"):
        w.move(f"phases/{name}", f"milestones/v1.0-phases/{name}")
    w.write("ROADMAP.md", "# Roadmap: Shop\n\n## Completed Milestones\n\n- **v1.0 Shop** (Phases 1-3, 3 plans) - shipped 2026-12-01;\n"
                          "  archive: `.planning/milestones/v1.0-ROADMAP.md`\n")
    w.write("MILESTONES.md", "# Milestones\n\n## v1.0 Shop (shipped 2026-12-01)\n")
    w.edit("PROJECT.md", "## Core Value\n", "## Requirements\n\n### Validated\n\n- ✓ People can order - v1.0\n\n## Core Value\n")
    # new-milestone: a fresh REQUIREMENTS.md (the old one was archived), new phases added, every line kept
    w.write("REQUIREMENTS.md", "# Requirements: Shop\n\n## v1.1 Requirements\n\n- [ ] **SHARE-01**: A person shares a basket\n")
    roadmap = w.pl.joinpath("ROADMAP.md").read_text()
    w.write("ROADMAP.md", roadmap + "\n## v1.1 Sharing\n\n- [ ] Phase 4: Sharing — people share baskets\n\n### Phase 4: Sharing\n"
                                    "Goal: people share a basket\nRequirements: SHARE-01\nPlans: TBD\n", agent="rm")
    w.edit("PROJECT.md", "## Core Value\n", "## Current Milestone: v1.1 Sharing\n\nGoal: sharing.\n\n## Core Value\n")


def test_the_walk_can_fail(walk):
    """The same walk's helper reports a refused step (the roadmap wiped while its phase has work)."""
    walk.write("ROADMAP.md", ROADMAP)
    (walk.pl / "phases" / "01-foundation").mkdir(parents=True)
    with pytest.raises(AssertionError, match="Write ROADMAP.md: msd guard: "):
        walk.write("ROADMAP.md", "# Roadmap\n")


def _first(text: str, marker: str) -> str | None:
    for line in text.splitlines():
        if line.lstrip().startswith(marker):
            return line
    return None


def test_every_corpus_document_can_be_rewritten_added_to_and_ticked(corpus_dir, tmp_path, decide):
    """Every `.planning/**/*.md` of every corpus tree (copied): Write of the same text, Write of the
    text plus a line, an Edit ticking its first open checkbox, each go ahead."""
    checked = 0
    for tree in sorted(p for p in corpus_dir.iterdir() if (p / ".planning").is_dir()):
        dest = tmp_path / tree.name
        shutil.copytree(tree / ".planning", dest / ".planning", symlinks=True)
        for path in sorted((dest / ".planning").rglob("*.md")):
            if not path.is_file() or path.is_symlink() or ".msd" in path.parts:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            call = {"file_path": str(path), "content": text}
            assert decide(dest, "Write", call) is None, path
            assert decide(dest, "Write", {**call, "content": text + "\n- one more line\n"}) is None, path
            box = _first(text, "- [ ]")
            if box and text.count(box) == 1:
                assert decide(dest, "Edit", {"file_path": str(path), "old_string": box,
                                             "new_string": box.replace("- [ ]", "- [x]", 1)}) is None, path
            checked += 1
        shutil.rmtree(dest)
    assert checked > 3000
