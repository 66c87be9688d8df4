"""The merge drivers in real git merges: STATE.md re-derived from the merged tree, ROADMAP.md and
REQUIREMENTS.md by entry, and every way the driver falls back to git's own line merge (a clone
without msd, a missing or failing msd_run, a file it cannot read, an entry it cannot decide) with
normal conflict markers and nothing of either side lost."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from msd_core.git import merge_config
from tests.kit.gitkit import git, run_msd
from tests.kit.probe import denied, probe
from tests.kit.teamkit import clone, commit_planning, in_sync, make_project, marked, merge, msd, register, team, write


def add_phase(root, number: str, name: str) -> None:
    """What the roadmapper agent does: a checklist line and a details block at the end."""
    p = root / ".planning/ROADMAP.md"
    text = p.read_text()
    last = [line for line in text.splitlines() if line.startswith("- [")][-1]
    text = text.replace(last + "\n", last + f"\n- [ ] **Phase {number}: {name}** - {name.lower()}\n")
    p.write_text(text.rstrip("\n") + f"\n\n### Phase {number}: {name}\n**Goal**: {name.lower()} works\n")


@pytest.fixture
def pair(tmp_path):
    origin, (ada, bob) = team(tmp_path)
    return origin, ada, bob


def test_both_adding_phases_and_decisions_merge_clean_and_state_is_re_derived(pair):
    origin, ada, bob = pair
    add_phase(ada, "3", "Payments")
    msd(ada, "state", "patch", "--add-decision", "Stripe for payments")
    commit_planning(ada, "docs: payments phase")
    add_phase(bob, "4", "Search")
    write(bob, ".planning/phases/01-core/01-01-PLAN.md", "---\nphase: 01-core\nplan: 01\n---\nplan\n")
    msd(bob, "state", "patch", "--add-decision", "SQLite FTS for search")
    commit_planning(bob, "docs: search phase, plan 01-01")
    git(bob, "fetch", "-q", str(ada), "HEAD:ada")
    r = merge(bob, "ada")
    assert r.returncode == 0, r.stdout + r.stderr
    assert marked(bob) == []
    roadmap = (bob / ".planning/ROADMAP.md").read_text()
    assert "Phase 3: Payments" in roadmap and "Phase 4: Search" in roadmap
    state = (bob / ".planning/STATE.md").read_text()
    assert "- SQLite FTS for search\n- Stripe for payments\n" in state  # ours, then theirs
    assert "Phase: 1 of 4 (Core)" in state  # derived from the merged tree: 4 phases, plan 01-01 in phase 1
    assert "Plan: 1 of 1 in current phase" in state and "Status: Ready to execute" in state
    assert in_sync(bob)["in_sync"], in_sync(bob)


def test_a_goal_both_changed_is_a_normal_conflict_naming_the_phase(pair):
    _origin, ada, bob = pair
    for root, goal in ((ada, "auth works with email"), (bob, "auth works with SSO")):
        p = root / ".planning/ROADMAP.md"
        p.write_text(p.read_text().replace("auth works", goal))
        commit_planning(root, "docs: goal")
    git(bob, "fetch", "-q", str(ada), "HEAD:ada")
    r = merge(bob, "ada")
    assert r.returncode != 0
    assert "phase 2 goal" in r.stderr and "both branches changed it" in r.stderr
    text = (bob / ".planning/ROADMAP.md").read_text()
    assert "<<<<<<< ours (phase 2 goal)\n**Goal**: auth works with SSO\n=======\n**Goal**: auth works with email\n" in text
    assert marked(bob) == [".planning/ROADMAP.md"]  # STATE.md merged without markers


def test_a_clone_without_msd_merges_with_gits_own_conflict(tmp_path):
    origin, (ada, bob) = team(tmp_path)
    carl = clone(origin, tmp_path / "carl", "Carl", drivers=False)
    # the committed .gitattributes names msd's drivers in Carl's clone too; his config has no command for them
    assert git(carl, "check-attr", "merge", "--", ".planning/ROADMAP.md").strip().endswith("merge: msd-roadmap")
    assert subprocess.run(["git", "config", "--get", "merge.msd-roadmap.driver"], cwd=carl).returncode == 1
    add_phase(ada, "3", "Payments")
    commit_planning(ada, "docs: payments")
    add_phase(carl, "3", "Search")
    commit_planning(carl, "docs: search")
    git(carl, "fetch", "-q", str(ada), "HEAD:ada")
    r = merge(carl, "ada")
    assert r.returncode != 0 and "CONFLICT" in r.stdout
    text = (carl / ".planning/ROADMAP.md").read_text()
    assert "<<<<<<< HEAD" in text and "Phase 3: Search" in text and "Phase 3: Payments" in text  # git's own markers
    assert "msd merge" not in r.stderr


def both_add_phase_3(root) -> None:
    """Branch a adds phase 3 Payments, main adds phase 3 Search (main checked out)."""
    git(root, "checkout", "-qb", "a")
    add_phase(root, "3", "Payments")
    git(root, "commit", "-qam", "a")
    git(root, "checkout", "-q", "main")
    add_phase(root, "3", "Search")
    git(root, "commit", "-qam", "b")


@pytest.mark.parametrize("runner", [["/nonexistent/bin/msd_run"], ["false"]], ids=["missing", "exits-1-writing-nothing"])
def test_a_driver_that_cannot_run_falls_back_to_merge_file(tmp_path, runner):
    root = make_project(tmp_path / "p")
    register(root, runner)
    both_add_phase_3(root)
    r = merge(root, "a")
    assert r.returncode != 0
    text = (root / ".planning/ROADMAP.md").read_text()
    assert "<<<<<<< ours" in text and ">>>>>>> theirs" in text  # git merge-file's markers, labelled by the fallback
    assert "Phase 3: Search" in text and "Phase 3: Payments" in text


def test_without_the_grep_guard_a_silent_failure_would_leave_ours_unmarked(tmp_path):
    """The guard can fail: the same failing runner under a driver line without the fallback
    leaves ours' file as it was, without markers (what the wrapper prevents)."""
    root = make_project(tmp_path / "p")
    repo = merge_config.locate(root)
    register(root, ["false"])
    cfg = repo.config.read_text()
    start = cfg.index('[merge "msd-roadmap"]')
    line = next(x for x in cfg[start:].splitlines() if x.strip().startswith("driver ="))
    repo.config.write_text(cfg.replace(line, "\tdriver = false %O %A %B"))
    both_add_phase_3(root)
    assert merge(root, "a").returncode != 0
    text = (root / ".planning/ROADMAP.md").read_text()
    assert "<<<<<<<" not in text and "Payments" not in text


def test_a_file_that_is_not_utf8_is_merged_line_by_line(pair):
    _origin, ada, bob = pair
    for root, tail in ((ada, b"\nnote from ada \xff\n"), (bob, b"\nnote from bob \xfe\n")):
        p = root / ".planning/REQUIREMENTS.md"
        p.write_bytes(p.read_bytes() + tail)
        git(root, "commit", "-qam", "bytes")
    git(bob, "fetch", "-q", str(ada), "HEAD:ada")
    r = merge(bob, "ada")
    assert "REQUIREMENTS.md: not merged by entry (UnicodeDecodeError)" in r.stderr
    data = (bob / ".planning/REQUIREMENTS.md").read_bytes()
    assert b"<<<<<<< ours" in data and b"ada \xff" in data and b"bob \xfe" in data


def test_a_phase_deleted_on_one_side_and_changed_on_the_other_falls_back(pair):
    _origin, ada, bob = pair
    p = ada / ".planning/ROADMAP.md"
    p.write_text(p.read_text().replace("### Phase 1: Core\n**Goal**: core works\n**Requirements**: CORE-01\n\n", ""))
    git(ada, "commit", "-qam", "drop details")
    p = bob / ".planning/ROADMAP.md"
    p.write_text(p.read_text().replace("core works", "core works on Linux"))
    git(bob, "commit", "-qam", "goal")
    git(bob, "fetch", "-q", str(ada), "HEAD:ada")
    r = merge(bob, "ada")
    assert "phase 1 (details): deleted on one side and changed on the other" in r.stderr
    assert r.returncode != 0 and "core works on Linux" in (bob / ".planning/ROADMAP.md").read_text()


def test_claims_merge_by_claim(pair):
    _origin, ada, bob = pair
    msd(ada, "claim", "1")
    msd(bob, "claim", "2")
    git(bob, "fetch", "-q", str(ada), "HEAD:ada")
    assert merge(bob, "ada").returncode == 0
    claims = json.loads((bob / ".planning/claims.json").read_text())["claims"]
    assert [(c["phase"], c["by"]) for c in claims] == [("1", "Ada"), ("2", "Bob")]


def test_a_rebase_merges_state_without_markers(pair):
    _origin, ada, bob = pair
    add_phase(ada, "3", "Payments")
    msd(ada, "state", "patch", "--add-decision", "Stripe")
    commit_planning(ada, "docs: payments")
    msd(bob, "state", "patch", "--add-decision", "Postgres")
    add_phase(bob, "4", "Search")
    commit_planning(bob, "docs: search")
    git(bob, "fetch", "-q", str(ada), "HEAD:ada")
    r = subprocess.run(["git", "rebase", "ada"], cwd=bob, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    state = (bob / ".planning/STATE.md").read_text()
    assert "- Stripe\n- Postgres\n" in state and marked(bob) == []


def test_driver_imports_only_what_it_declares(pair, tmp_path):
    """`msd_run merge-driver` runs at merge time, not on the agent's hot path: besides the light
    set it may load difflib (the three-way merge), subprocess (git's blob bytes) and shutil (its
    scratch copy); nothing of the CLI stack, no third-party parser."""
    _origin, ada, bob = pair
    base, ours, theirs = (tmp_path / n for n in ("o.md", "a.md", "b.md"))
    road = (ada / ".planning/ROADMAP.md").read_text()
    base.write_text(road)
    ours.write_text(road + "\n### Phase 3: A\n")
    theirs.write_text(road + "\n### Phase 4: B\n")
    res = probe(["merge-driver", "roadmap", str(base), str(ours), str(theirs), ".planning/ROADMAP.md", "7"], ada,
                tmp_path / "probe.json")
    assert res["code"] == 0, res["err"]
    assert denied(res["modules"], {"difflib", "subprocess", "shutil"}) == []
    assert "### Phase 3: A" in ours.read_text() and "### Phase 4: B" in ours.read_text()
    env = dict(os.environ, GITHEAD_0123456789abcdef0123456789abcdef01234567="x")
    assert run_msd(["merge-driver", "state", str(base), str(ours), str(theirs), "x", "0"], ada, env_extra=env).returncode == 2


def test_todos_captured_on_both_sides_are_all_kept_with_distinct_ids(pair):
    _origin, ada, bob = pair
    for root, text in ((ada, "retry the upload"), (bob, "cache the avatars")):
        msd(root, "todo", "add", text)
        msd(root, "commit", "-m", "docs: todo", "--files", ".planning/TODOS.md")
    git(bob, "fetch", "-q", str(ada), "HEAD:ada")
    r = merge(bob, "ada")
    assert r.returncode == 0 and marked(bob) == [], r.stdout + r.stderr
    listed = msd(bob, "todo", "list")
    todos = listed["todos"] if isinstance(listed, dict) else listed
    assert sorted((t["id"], t["text"]) for t in todos) == [("T1", "cache the avatars"), ("T2", "retry the upload")]


def test_the_merged_tree_is_not_copied_past_its_file_bound(pair, monkeypatch):
    """derived_for_merge during a merge (GITHEAD_<hash> as `git merge` sets it): the derived values
    of the merged tree; with the copy's bound below the folder's size, none, and why."""
    from msd_core.merging import merged_tree

    _origin, ada, bob = pair
    add_phase(ada, "3", "Payments")
    commit_planning(ada, "docs: payments")
    add_phase(bob, "4", "Search")
    commit_planning(bob, "docs: search")
    git(bob, "fetch", "-q", str(ada), "HEAD:ada")
    theirs = git(bob, "rev-parse", "ada").strip()
    monkeypatch.setenv(f"GITHEAD_{theirs}", "ada")
    monkeypatch.chdir(bob)
    values, why = merged_tree.derived_for_merge(bob, ".planning/STATE.md", bob / ".git")
    assert why == "" and values["Phase"] == "1 of 4 (Core)"
    monkeypatch.setattr(merged_tree, "MAX_FILES", 2)
    assert merged_tree.derived_for_merge(bob, ".planning/STATE.md", bob / ".git") == (
        None, "the planning folder holds more than 2 files")
    assert not [p for p in (bob / ".git").iterdir() if p.name.startswith("msd-merge-")]  # the scratch copy is gone


def test_derived_lines_wait_for_a_sync_when_the_merge_is_of_another_kind(pair):
    """A cherry-pick names no second head: the lines still merge, ours' derived lines are kept,
    the driver says so, and `state sync` brings them up to date."""
    _origin, ada, bob = pair
    add_phase(ada, "3", "Payments")
    msd(ada, "state", "patch", "--add-decision", "Stripe")
    commit_planning(ada, "docs: payments")
    add_phase(bob, "4", "Search")
    msd(bob, "state", "patch", "--add-decision", "Postgres")
    commit_planning(bob, "docs: search")
    git(bob, "fetch", "-q", str(ada), "HEAD:ada")
    r = subprocess.run(["git", "cherry-pick", "ada"], cwd=bob, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and marked(bob) == [], r.stdout + r.stderr
    assert "STATE.md: derived lines kept from ours (not a two-branch merge or a rebase step" in r.stderr
    assert "- Postgres\n- Stripe\n" in (bob / ".planning/STATE.md").read_text()
    assert not in_sync(bob)["in_sync"]
    msd(bob, "state", "sync")
    assert in_sync(bob)["in_sync"]
