"""A team on a repository holding three `.planning/` roots: claims are per root, and the merge drivers
(registered once, at the top) merge each root's planning files entry by entry and re-derive each
root's STATE.md from that root's merged tree."""

from __future__ import annotations

import json
from pathlib import Path

from tests.kit.gitkit import git, new_repo, run_msd
from tests.kit.teamkit import clone, in_sync, marked, merge, ok, register, requirements, roadmap, state_text, write

ROOTS = {".": "Top", "services/api": "Api", "apps/web": "Web"}
PHASES = (("1", "Core"), ("2", "Auth"), ("3", "Reports"))


def at(base: Path, rel: str) -> Path:
    return base if rel == "." else base / rel


def seed(path: Path) -> Path:
    new_repo(path)
    for rel, name in ROOTS.items():
        for doc, text in (("PROJECT.md", f"# {name}\n"), ("ROADMAP.md", roadmap(list(PHASES))),
                          ("REQUIREMENTS.md", requirements(list(PHASES))), ("STATE.md", state_text(name)),
                          ("config.json", json.dumps({"commit_docs": True, "workflow": {"verifier": False}}) + "\n")):
            write(at(path, rel), f".planning/{doc}", text)
        ok(run_msd(["state", "sync"], at(path, rel)))
    register(path)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "chore: three projects")
    return path


def claims_of(root: Path) -> set[tuple[str, str]]:
    doc = json.loads((root / ".planning/claims.json").read_text())
    return {(c["phase"], c["email"].split("@")[0]) for c in doc["claims"]}


def test_claims_and_planning_merges_stay_in_their_root(tmp_path):
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed(tmp_path / "seed")), str(origin))
    work = {"Ada": [("services/api", "1"), ("apps/web", "2")], "Bob": [("services/api", "2"), ("apps/web", "1"), (".", "3")]}
    for name, claims in work.items():
        me = clone(origin, tmp_path / name.lower(), name)
        git(me, "checkout", "-q", "-b", f"{name.lower()}/work")
        for rel, phase in claims:
            ok(run_msd(["claim", phase], at(me, rel)))
        # and each ticks a phase of the api's roadmap, a line of its own
        road = me / "services/api/.planning/ROADMAP.md"
        n = "3" if name == "Ada" else "1"
        road.write_text(road.read_text().replace(f"- [ ] **Phase {n}:", f"- [x] **Phase {n}:"))
        ok(run_msd(["state", "sync"], me / "services/api"))
        git(me, "commit", "-q", "-am", f"docs: {name} ticks api phase {n}")
        git(me, "push", "-q", "origin", f"{name.lower()}/work")

    ida = clone(origin, tmp_path / "ida", "Ida")
    for name in work:
        r = merge(ida, f"origin/{name.lower()}/work")
        assert r.returncode == 0, r.stdout + r.stderr
    for rel in ROOTS:
        root = at(ida, rel)
        assert marked(root) == [], rel
        report = in_sync(root)
        assert report["in_sync"] and report["changed"] == [], (rel, report)
    assert claims_of(ida / "services/api") == {("1", "ada"), ("2", "bob")}
    assert claims_of(ida / "apps/web") == {("2", "ada"), ("1", "bob")}
    assert claims_of(ida) == {("3", "bob")}
    road = (ida / "services/api/.planning/ROADMAP.md").read_text()
    assert "- [x] **Phase 1:" in road and "- [x] **Phase 3:" in road and "- [ ] **Phase 2:" in road
    assert "- [x]" not in (ida / "apps/web/.planning/ROADMAP.md").read_text()

    # a claim is of its root: in web, Ada is routed past phase 1 (Bob's), not past the api's
    ada = tmp_path / "ada"
    git(ada, "fetch", "-q", "origin")  # her clone knows the branches the claims name
    git(ada, "pull", "-q", "--no-rebase", "--no-edit", str(ida), "main")
    web = json.loads(ok(run_msd(["next"], ada / "apps/web")).stdout)
    assert web["phase"]["number"] == "2" and "phase 1 is claimed by Bob" in web["reason"]
    listed = json.loads(ok(run_msd(["claim", "--list"], ada / "services/api")).stdout)
    assert sorted(c["phase"] for c in listed["claims"]) == ["1", "2"]
