"""`msd_run phase reconcile`: after a merge, phases that share a number get numbers of their own,
everywhere they are written, in one transaction (msd_core.planning.phase_reconcile)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from msd_core.planning.phase_reconcile import _Phase, renumber
from tests.kit.gitkit import git, run_msd
from tests.kit.teamkit import commit_planning, in_sync, marked, merge, msd, team, write
from tests.planning.test_phase_ops import _kill_everywhere


def numbers(*listed: str) -> list[str]:
    order = [_Phase(n.rstrip("abc"), n) for n in listed]
    renumber(order)
    return [p.new for p in order]


@pytest.mark.parametrize("listed,expected", [
    (("1", "2", "3a", "3b"), ["1", "2", "3", "4"]),                    # both appended a phase 3
    (("1", "3a", "4a", "3b"), ["1", "3", "4", "5"]),                   # ours added 3 and 4, theirs 3
    (("1", "3a", "3b", "4b"), ["1", "3", "4", "5"]),                   # theirs' 4 follows theirs' 3
    (("3", "3.1a", "3.1b", "4"), ["3", "3.1", "3.2", "4"]),            # both inserted a decimal after 3
    (("5a", "5b", "5c"), ["5", "6", "7"]),                             # three branches
    (("1", "3", "2a", "2b"), ["1", "3", "2", "4"]),                    # before the first duplicate: untouched
    (("1", "2", "3"), ["1", "2", "3"]),                                # nothing shared: nothing moves
])
def test_renumbering_rules(listed, expected):
    assert numbers(*listed) == expected


def two_phase_threes(tmp_path: Path):
    """Ada and Bob each add (and execute) a phase 3; Bob merges Ada's branch."""
    _origin, (ada, bob) = team(tmp_path)
    for root, name, req in ((ada, "Payments", "PAY-01"), (bob, "Search", "SRCH-01")):
        slug = name.lower()
        road = (root / ".planning/ROADMAP.md").read_text()
        road = road.replace("- [ ] **Phase 2: Auth** - auth\n", f"- [ ] **Phase 2: Auth** - auth\n- [ ] **Phase 3: {name}** - {slug}\n")
        write(root, ".planning/ROADMAP.md", road + f"\n### Phase 3: {name}\n**Goal**: {slug} works\n"
                                                  f"**Depends on**: Phase 2\n**Requirements**: {req}\n")
        reqs = (root / ".planning/REQUIREMENTS.md").read_text()
        reqs = reqs.replace("## Traceability", f"- [ ] **{req}**: {name}\n\n## Traceability")
        write(root, ".planning/REQUIREMENTS.md", reqs + f"| {req} | Phase 3 | Pending |\n")
        folder = f".planning/phases/03-{slug}"
        write(root, f"{folder}/03-CONTEXT.md", f"# Phase 3: {name}\n")
        write(root, f"{folder}/03-01-PLAN.md", f"---\nphase: 03-{slug}\nplan: 01\nrequirements: [{req}]\n---\n"
                                              f"Builds on 02-01. See 03-01-SUMMARY.md.\n")
        write(root, f"{folder}/03-01-SUMMARY.md", f"---\nphase: 03-{slug}\nplan: 01\n---\nDone.\n")
        commit_planning(root, f"docs: phase 3 {slug}")
    git(bob, "fetch", "-q", str(ada), "HEAD:ada")
    assert merge(bob, "ada").returncode == 0
    return bob


def test_reconcile_renumbers_theirs_everywhere_in_one_command(tmp_path):
    bob = two_phase_threes(tmp_path)
    assert marked(bob) == []
    dry = msd(bob, "phase", "reconcile", "--dry-run")
    assert dry["phase"]["renumbered"] == [{"from": "3", "to": "4", "name": "Payments", "folder": "03-payments"}]
    assert (bob / ".planning/phases/03-payments").is_dir()  # the dry run wrote nothing
    out = msd(bob, "phase", "reconcile")
    assert out["state"] == {"synced": True}
    pl = bob / ".planning"
    assert sorted(p.name for p in (pl / "phases").iterdir()) == ["03-search", "04-payments"]
    assert sorted(p.name for p in (pl / "phases/04-payments").iterdir()) == ["04-01-PLAN.md", "04-01-SUMMARY.md", "04-CONTEXT.md"]
    assert (pl / "phases/04-payments/04-01-PLAN.md").read_text() == (
        "---\nphase: 04-payments\nplan: 01\nrequirements: [PAY-01]\n---\nBuilds on 02-01. See 04-01-SUMMARY.md.\n")
    assert (pl / "phases/03-search/03-01-PLAN.md").read_text().startswith("---\nphase: 03-search\n")  # ours untouched
    road = (pl / "ROADMAP.md").read_text()
    # reconcile's state sync ticks both: their plans are summarised and the verifier is off
    assert "- [x] **Phase 3: Search** - search\n- [x] **Phase 4: Payments** - payments\n" in road
    assert "### Phase 3: Search\n**Goal**: search works\n**Depends on**: Phase 2\n" in road
    assert "### Phase 4: Payments\n**Goal**: payments works\n**Depends on**: Phase 2\n" in road
    reqs = (pl / "REQUIREMENTS.md").read_text()
    assert "| SRCH-01 | Phase 3 | Pending |" in reqs and "| PAY-01 | Phase 4 | Pending |" in reqs
    assert "Phase: 4 of 4 (all phases done)" in (pl / "STATE.md").read_text()  # the merged 3 of 3, re-derived
    assert in_sync(bob)["in_sync"] and "warnings" not in in_sync(bob)
    assert msd(bob, "phase", "reconcile")["notes"][0].startswith("no two phases share a number")


def test_reconcile_waits_for_an_unfinished_merge(tmp_path):
    _origin, (ada, bob) = team(tmp_path)
    for root, text in ((ada, "a\n"), (bob, "b\n")):
        write(root, "README.md", text)
        git(root, "commit", "-qam", "readme")
    git(bob, "fetch", "-q", str(ada), "HEAD:ada")
    assert merge(bob, "ada").returncode != 0  # README.md conflicts: the merge is unfinished
    r = run_msd(["phase", "reconcile"], bob)
    assert r.returncode == 1 and "MERGE_HEAD" in r.stderr


def _dup_tree(root: Path) -> Path:
    """A merged tree without git: two phase 2 folders and ROADMAP entries, ours first."""
    pl = root / ".planning"
    for rel, text in {"ROADMAP.md": "# R\n\n- [ ] **Phase 1: Core** - c\n- [ ] **Phase 2: Auth** - a\n- [ ] **Phase 2: Pay** - p\n"
                                     "\n### Phase 2: Auth\n**Goal**: a\n\n### Phase 2: Pay\n**Goal**: p\n",
                      "STATE.md": "# S\n\n## Position\nPhase: 1 of 2 (Core)\n",
                      "phases/01-core/01-01-PLAN.md": "p\n", "phases/02-auth/02-01-PLAN.md": "a\n",
                      "phases/02-pay/02-01-PLAN.md": "phase: 02-pay\n", "phases/02-pay/02-01-SUMMARY.md": "done\n"}.items():
        (pl / rel).parent.mkdir(parents=True, exist_ok=True)
        (pl / rel).write_text(text)
    return root


def test_reconcile_killed_at_every_step_leaves_old_or_new_numbering(tmp_path):
    _kill_everywhere(tmp_path, _dup_tree, ["reconcile"])


def test_a_folder_roadmap_does_not_list_keeps_its_number_and_is_named(tmp_path):
    root = _dup_tree(tmp_path / "p")
    (root / ".planning/phases/02-extra").mkdir()
    (root / ".planning/phases/02-extra/02-01-PLAN.md").write_text("x\n")
    out = json.loads(run_msd(["phase", "reconcile"], root).stdout)
    assert [(r["from"], r["to"], r["folder"]) for r in out["phase"]["renumbered"]] == [("2", "3", "02-pay")]
    assert sorted(p.name for p in (root / ".planning/phases").iterdir()) == ["01-core", "02-auth", "02-extra", "03-pay"]
    assert any(n.endswith("left as they are: 02-extra") for n in out["notes"])


def test_folders_roadmap_does_not_list_keep_their_numbers(tmp_path):
    """Real trees keep the folders of phases their roadmap lists only in an archived <details>
    block: reconcile moves the duplicate alone, and no new number takes such a folder's."""
    root = _dup_tree(tmp_path / "p")
    road = root / ".planning/ROADMAP.md"
    road.write_text("<details>\n- [x] Phase 3: Old\n</details>\n\n" + road.read_text())
    for old in ("03-old", "05-older"):
        (root / f".planning/phases/{old}").mkdir()
        (root / f".planning/phases/{old}/{old[:2]}-01-SUMMARY.md").write_text("x\n")
    out = json.loads(run_msd(["phase", "reconcile"], root).stdout)
    assert [(r["from"], r["to"], r["folder"]) for r in out["phase"]["renumbered"]] == [("2", "4", "02-pay")]
    assert sorted(p.name for p in (root / ".planning/phases").iterdir()) == [
        "01-core", "02-auth", "03-old", "04-pay", "05-older"]
