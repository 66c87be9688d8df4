"""A team on one project, end to end: two and three clones of one repository each do real work
with the runtime commands (claim, plan, execute and commit, tick, add and insert phases, patch
STATE.md), push their branches, and the branches are merged in every order. Every merge must
leave no conflict marker in any planning file, lose nothing either side wrote, leave STATE.md's
derived lines in sync with the merged tree (`state sync --check`), and `next` must route as the
merged tree says (the expected routes come from this file's own account of the work).

The first branch merged into an untouched main is a merge in which only one side changed the
planning files: git runs no driver and takes that branch's STATE.md as it is. It is held to the
same checks: every file of both clones was written today, so `Last change:` (the day of the
newest file, and the furthest point that day's files reached) reads the same in both."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from tests.kit.gitkit import git, plan_text
from tests.kit.teamkit import clone, commit_planning, in_sync, marked, merge, msd, team, write

PHASES = (("1", "Core"), ("2", "Auth"), ("3", "Reports"))


def tick(root: Path, number: str) -> None:
    p = root / ".planning/ROADMAP.md"
    p.write_text(p.read_text().replace(f"- [ ] **Phase {number}:", f"- [x] **Phase {number}:"))


def plan(root: Path, folder: str, pid: str, src: str) -> str:
    rel = f".planning/phases/{folder}/{pid}-PLAN.md"
    write(root, rel, plan_text(pid, 1, [src]))
    return rel


def execute(root: Path, folder: str, pid: str, src: str) -> None:
    """An executor's work: the code committed through `msd_run commit --plan`, then its SUMMARY."""
    write(root, src, f"# {pid}\nVALUE = {pid!r}\n")
    msd(root, "commit", "--plan", f".planning/phases/{folder}/{pid}-PLAN.md", "--task", "1", "-m", f"feat({pid}): {src}",
        "--files", src)
    write(root, f".planning/phases/{folder}/{pid}-SUMMARY.md", f"---\nphase: {folder}\nplan: {pid[-2:]}\n---\nDone.\n")
    commit_planning(root, f"docs({pid}): summary")


def ada(root: Path) -> dict:
    """Phase 1, start to finish."""
    msd(root, "claim", "1")
    write(root, ".planning/phases/01-core/01-CONTEXT.md", "# Phase 1: Core\nDecisions: SQLite.\n")
    plans = [plan(root, "01-core", "01-01", "src/core.py"), plan(root, "01-core", "01-02", "src/store.py")]
    commit_planning(root, "docs(01): context and plans", ".planning/phases/01-core")
    execute(root, "01-core", "01-01", "src/core.py")
    execute(root, "01-core", "01-02", "src/store.py")
    tick(root, "1")
    reqs = root / ".planning/REQUIREMENTS.md"
    reqs.write_text(reqs.read_text().replace("- [ ] **CORE-01**", "- [x] **CORE-01**")
                    .replace("| CORE-01 | Phase 1 | Pending |", "| CORE-01 | Phase 1 | Complete |"))
    msd(root, "state", "patch", "--add-decision", "[Phase 1]: SQLite for storage")
    commit_planning(root, "docs(01): phase 1 complete")
    return {"decisions": ["[Phase 1]: SQLite for storage"], "files": plans + [".planning/phases/01-core/01-CONTEXT.md"],
            "roadmap": ["- [x] **Phase 1: Core**"], "requirements": ["- [x] **CORE-01**", "| CORE-01 | Phase 1 | Complete |"],
            "claims": [("1", "ada@example.com")]}


def bob(root: Path) -> dict:
    """Phase 2 half done, a requirement added, a decimal phase inserted, a blocker."""
    msd(root, "claim", "2")
    plans = [plan(root, "02-auth", "02-01", "src/auth.py"), plan(root, "02-auth", "02-02", "src/session.py")]
    commit_planning(root, "docs(02): plans", ".planning/phases/02-auth")
    execute(root, "02-auth", "02-01", "src/auth.py")
    reqs = root / ".planning/REQUIREMENTS.md"
    text = reqs.read_text().replace("- [ ] **AUTH-01**: Auth works\n",
                                    "- [ ] **AUTH-01**: Auth works\n- [ ] **AUTH-02**: Sessions expire\n")
    reqs.write_text(text + "| AUTH-02 | Phase 2 | Pending |\n")
    msd(root, "phase", "insert", "2", "Hotfix login", "--goal", "login survives a reload")
    msd(root, "state", "patch", "--add-blocker", "Waiting for OAuth keys")
    commit_planning(root, "docs(02): hotfix phase, AUTH-02")
    return {"blockers": ["Waiting for OAuth keys"], "files": plans + [".planning/phases/02-auth/02-01-SUMMARY.md"],
            "roadmap": ["Phase 2.1: Hotfix login", "**Goal**: login survives a reload"],
            "requirements": ["- [ ] **AUTH-02**: Sessions expire", "| AUTH-02 | Phase 2 | Pending |"],
            "claims": [("2", "bob@example.com")]}


def cy(root: Path) -> dict:
    """Phase 3 discussed and its goal sharpened; a phase 4 added at the end."""
    msd(root, "claim", "3")
    road = root / ".planning/ROADMAP.md"
    text = road.read_text().replace("**Goal**: reports works", "**Goal**: monthly PDF reports reach every admin")
    text = text.replace("- [ ] **Phase 3: Reports** - reports\n",
                        "- [ ] **Phase 3: Reports** - reports\n- [ ] **Phase 4: Billing** - billing\n")
    road.write_text(text.rstrip("\n") + "\n\n### Phase 4: Billing\n**Goal**: billing works\n**Requirements**: BILL-01\n")
    write(root, ".planning/phases/03-reports/03-CONTEXT.md", "# Phase 3: Reports\n")
    msd(root, "state", "patch", "--add-decision", "[Phase 3]: PDF via WeasyPrint")
    commit_planning(root, "docs(03): context, phase 4")
    return {"decisions": ["[Phase 3]: PDF via WeasyPrint"], "files": [".planning/phases/03-reports/03-CONTEXT.md"],
            "roadmap": ["**Goal**: monthly PDF reports reach every admin", "- [ ] **Phase 4: Billing** - billing",
                        "### Phase 4: Billing"], "requirements": [], "claims": [("3", "cy@example.com")]}


WORK = {"Ada": ada, "Bob": bob, "Cy": cy}


def assert_nothing_lost(root: Path, facts: list[dict]) -> None:
    pl = root / ".planning"
    state, road, reqs = ((pl / f).read_text() for f in ("STATE.md", "ROADMAP.md", "REQUIREMENTS.md"))
    claims = {(c["phase"], c["email"]) for c in json.loads((pl / "claims.json").read_text())["claims"]}
    for f in facts:
        for d in f.get("decisions", []) + f.get("blockers", []):
            assert f"- {d}\n" in state, d
        for rel in f["files"]:
            assert (root / rel).is_file(), rel
        for text in f["roadmap"]:
            assert text in road, text
        for text in f["requirements"]:
            assert text in reqs, text
        assert set(f["claims"]) <= claims


def derived_in_sync(root: Path, said: str = "") -> None:
    report = in_sync(root)
    assert report["in_sync"] and report["changed"] == [], (report, said)


def work_branches(tmp_path: Path, names: tuple[str, ...]) -> tuple[Path, dict]:
    origin, clones = team(tmp_path, names, PHASES)
    facts = {}
    for name, root in zip(names, clones):
        git(root, "checkout", "-q", "-b", f"{name.lower()}/work")
        facts[name] = WORK[name](root)
        git(root, "push", "-q", "origin", f"{name.lower()}/work")
    return origin, facts


def integrate(origin: Path, dest: Path, order: tuple[str, ...]) -> Path:
    root = clone(origin, dest, "Ida")
    for k, name in enumerate(order):
        r = merge(root, f"origin/{name.lower()}/work")
        assert r.returncode == 0, f"merging {name} after {order[:k]}: {r.stdout}{r.stderr}"
        assert marked(root) == [], f"merging {name} after {order[:k]}"
        derived_in_sync(root, said=r.stderr)
    return root


@pytest.mark.slow
def test_three_clones_merged_in_every_order(tmp_path):
    names = ("Ada", "Bob", "Cy")
    origin, facts = work_branches(tmp_path, names)
    merges = 0
    for n, order in enumerate(itertools.permutations(names)):
        root = integrate(origin, tmp_path / f"ida{n}", order)
        merges += len(order)
        assert_nothing_lost(root, list(facts.values()))
        answer = msd(root, "next")  # Ida holds nothing; Bob holds 2, Cy holds 3
        assert (answer["route"], answer["phase"]["number"]) == ("discuss-phase", "2.1"), (order, answer)
        assert "phase 2 is claimed by Bob" in answer["reason"]
        ignoring = msd(root, "next", "--ignore-claims")
        assert (ignoring["route"], ignoring["phase"]["number"]) == ("execute-phase", "2")
        assert ignoring["phase"]["unsummarised"] == ["02-02-PLAN.md"]
    assert merges == 18


def test_two_clones_merge_each_others_work_both_ways(tmp_path):
    origin, facts = work_branches(tmp_path, ("Ada", "Bob"))
    for n, order in enumerate((("Ada", "Bob"), ("Bob", "Ada"))):
        root = integrate(origin, tmp_path / f"ida{n}", order)
        assert_nothing_lost(root, list(facts.values()))
        answer = msd(root, "next")
        assert (answer["route"], answer["phase"]["number"]) == ("discuss-phase", "2.1")
    # and each author merging the other's branch into their own
    ada_root, bob_root = tmp_path / "ada", tmp_path / "bob"
    for root, other in ((ada_root, "bob"), (bob_root, "ada")):
        git(root, "fetch", "-q", "origin")
        r = merge(root, f"origin/{other}/work")
        assert r.returncode == 0 and marked(root) == [], r.stdout + r.stderr
        derived_in_sync(root, said=r.stderr)
        assert_nothing_lost(root, list(facts.values()))
    assert msd(ada_root, "next")["phase"]["number"] == "2.1"  # Ada's phase 1 is done; 2 is Bob's
    assert msd(bob_root, "next")["phase"]["number"] == "2"  # Bob's own claim: back to his plan 02-02


@pytest.mark.parametrize("first", ["Ada", "Bob"])
def test_a_phase_added_at_one_number_on_both_sides_is_reconciled(tmp_path, first):
    origin, (a, b) = team(tmp_path, ("Ada", "Bob"), PHASES)
    for root, name in ((a, "Search"), (b, "Billing")):
        slug = name.lower()
        git(root, "checkout", "-q", "-b", "work")
        road = root / ".planning/ROADMAP.md"
        text = road.read_text().replace("- [ ] **Phase 3: Reports** - reports\n",
                                        f"- [ ] **Phase 3: Reports** - reports\n- [ ] **Phase 4: {name}** - {slug}\n")
        road.write_text(text.rstrip("\n") + f"\n\n### Phase 4: {name}\n**Goal**: {slug} works\n")
        plan(root, f"04-{slug}", "04-01", f"src/{slug}.py")
        commit_planning(root, f"docs(04): {slug}")
        execute(root, f"04-{slug}", "04-01", f"src/{slug}.py")
        git(root, "push", "-q", "origin", f"work:{slug}")
    root = clone(origin, tmp_path / "ida", "Ida")
    order = ["search", "billing"] if first == "Ada" else ["billing", "search"]
    for k, branch in enumerate(order):
        r = merge(root, f"origin/{branch}")
        assert r.returncode == 0 and marked(root) == [], r.stdout + r.stderr
    road = (root / ".planning/ROADMAP.md").read_text()
    # each side's commit synced its ROADMAP boxes: the executed phase 4 is ticked (verifier off)
    assert road.count("- [x] **Phase 4:") == 2 and road.count("### Phase 4:") == 2
    out = msd(root, "phase", "reconcile")
    kept, moved = order
    assert out["phase"]["renumbered"] == [{"from": "4", "to": "5", "name": moved.title(), "folder": f"04-{moved}"}]
    git(root, "add", "-A")
    git(root, "commit", "-qm", "chore: reconcile phase numbers")
    road = (root / ".planning/ROADMAP.md").read_text()
    assert f"- [x] **Phase 4: {kept.title()}**" in road and f"- [x] **Phase 5: {moved.title()}**" in road
    assert f"### Phase 5: {moved.title()}\n**Goal**: {moved} works" in road
    phases = sorted(p.name for p in (root / ".planning/phases").iterdir())
    assert f"04-{kept}" in phases and f"05-{moved}" in phases and f"04-{moved}" not in phases
    assert sorted(p.name for p in (root / f".planning/phases/05-{moved}").iterdir()) == ["05-01-PLAN.md", "05-01-SUMMARY.md"]
    assert in_sync(root)["in_sync"] and "warnings" not in in_sync(root)
    # the verifier is off: phase 5, summarised last, is done and passes 1-3 over; every phase is done,
    # no milestone audit exists (a status msd derived is no sign of an archive): audit the milestone
    answer = msd(root, "next")
    assert (answer["route"], answer["phases_total"], answer["passed_over"]) == ("audit-milestone", 5, ["1", "2", "3"])
