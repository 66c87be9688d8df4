"""The review and side commands walked as the user's agent walks them (issue 45.5): a UI phase agreed
with /msd-ui-phase before /msd-plan-phase (whose load-context step offers it), built, then
/msd-secure-phase and /msd-ui-review over it and /msd-docs-update at the end; in a second project
/msd-import starts a project from a PRD and /msd-spike tries something out on its own branch.

Every command comes from the installed content (tests/kit/cyclekit.py, tests/kit/cyclewalk.py),
compact content off and on. After each step: nothing uncommitted, STATE.md and ROADMAP.md agree
with the files, and `msd_run next` proposes what docs/CONTRACTS.md says comes next.
"""

from __future__ import annotations

import json

from tests.kit import cyclewalk as walk
from tests.kit.cyclekit import dirty, git, roadmap_marks

P1 = walk.Phase("1", "List screen", "list-screen", "the habit list screen shows each habit", ["HABIT-01"])
PLANS = [walk.Plan("01-01", 1, ["src/list.html"], "habit list page", requirements=["HABIT-01"])]
SETTINGS = {"mode": "yolo", "granularity": "coarse", "parallelization.enabled": "false", "workflow.research": "false",
            "workflow.plan_check": "false", "workflow.verifier": "true", "commit_docs": "true"}
SECTIONS = {"Screens": "One screen: the habit list, reached from the start page.",
            "States": "Loading: a spinner. Empty: \"No habits yet\". Error: \"Could not load habits\".",
            "Copy": "Heading \"Your habits\"; button \"Add habit\".",
            "Layout": "One column; the button stays at the bottom on narrow screens.",
            "Visual": "The existing list component; no new tokens.",
            "Accessibility": "Tab reaches each habit, then the button; every control has a label."}


def _settings(compact: str) -> dict:
    return {**SETTINGS, "workflow.compact_content": "true" if compact == "on" else "false"}


def _contract(sections: dict) -> str:
    return "# Phase 1: List screen - UI design contract\n\n" + "".join(f"## {k}\n\n{v}\n\n" for k, v in sections.items())


def test_ui_phase_security_ui_review_and_docs(cycle, compact):
    a = cycle.agent
    v = walk.values(P1)

    with cycle.step("phase 1 discussed"):
        walk.seed_repository(a)
        (a.project / "docs").mkdir()
        (a.project / "docs/screens.md").write_text("# Screens\n\nThe list page lives in `src/list.html`.\n"
                                                   "The old page was `src/old.html`.\n")
        git(a.project, "add", "docs/screens.md")
        git(a.project, "commit", "-q", "-m", "docs: screens")
        walk.new_project(a, [P1], _settings(compact))
        walk.discuss_phase(a, P1)
        cycle.check("/msd-plan-phase 1")

    with cycle.step("/msd-plan-phase 1 load-context: a UI phase without a contract -> /msd-ui-phase first"):
        a.begin("/msd-plan-phase 1")
        detect = json.loads(a.run("plan-phase", "load-context", "msd_run ui detect", **v).stdout)
        assert detect["ui"] is True and detect["reasons"], detect
        absent = json.loads(a.run("plan-phase", "load-context", "msd_run ui contract", ok=(1,), **v).stdout)
        assert absent["status"] == "absent" and absent["missing"] == list(SECTIONS), absent
        cycle.check("/msd-plan-phase 1")  # looking wrote nothing

    with cycle.step("/msd-ui-phase 1: the contract agreed section by section"):
        a.begin("/msd-ui-phase 1")
        detect = json.loads(a.run("ui-phase", "Step 1", "msd_run ui detect", **v).stdout)
        assert detect["ui"] is True and detect["contract_exists"] is False, detect
        contract = detect["contract"]
        assert contract == f"{P1.dir}/01-UI-SPEC.md", contract
        # a first write with States lacking the error state: the check names what is missing
        first = {**SECTIONS, "States": "Loading: a spinner. Empty: \"No habits yet\"."}
        a.write(contract, _contract(first))
        missing = json.loads(a.run("ui-phase", "Step 4", "msd_run ui contract", ok=(1,), **v).stdout)
        assert missing["missing"] and "States" in " ".join(map(str, missing["missing"])), missing
        a.write(contract, _contract(SECTIONS))
        done = json.loads(a.run("ui-phase", "Step 4", "msd_run ui contract", **v).stdout)
        assert done["missing"] == [], done
        a.run("ui-phase", "Step 4", "msd_run commit", contract=contract, **v)
        cycle.check("/msd-plan-phase 1")

    with cycle.step("phase 1 planned and built"):
        walk.plan_phase(a, P1, PLANS, walk.Checker())
        walk.execute_phase(a, P1, PLANS)
        cycle.check("/msd-audit-milestone")

    with cycle.step("/msd-secure-phase 1"):
        a.begin("/msd-secure-phase 1")
        scope = json.loads(a.run("secure-phase", "Step 1", "msd_run security scope", **v).stdout)
        assert scope["recorded"] is False and "src/list.html" in [f["path"] for f in scope["files"]], scope
        walk.spawn(a, "reviewer")
        draft = f".planning/drafts/{P1.nn}-security.json"
        a.write(draft, json.dumps({"findings": [{
            "id": "S1", "severity": "low", "category": "information-disclosure", "file": "src/list.html",
            "title": "habit names shown to anyone with the page", "what": "the page has no sign-in",
            "evidence": "src/list.html line 1 is served as is", "fix": "serve the page behind the sign-in",
            "truth": "the list is shown only to its owner", "status": "open"}],
            "checked": ["no form on the page: nothing is sent"]}))
        rec = json.loads(a.run("secure-phase", "Step 3", "msd_run security record", **v).stdout)
        assert rec["status"] == "secured" and rec["gaps"] == [] and rec["open"] == ["S1"], rec
        assert not (a.project / draft).exists()  # the draft is removed once recorded
        shown = json.loads(a.run("secure-phase", "Step 4", "msd_run security show", **v).stdout)
        assert shown["status"] == "secured", shown
        review = scope["review_file"]
        assert (a.project / review).is_file()
        a.run("secure-phase", "Step 5", "msd_run state sync", **v)
        a.run("secure-phase", "Step 5", "msd_run commit", review_file=review, **v)
        cycle.check("/msd-audit-milestone")

    with cycle.step("/msd-ui-review 1: a gap found, recorded"):
        a.begin("/msd-ui-review 1")
        detect = json.loads(a.run("ui-review", "Step 1", "msd_run ui detect", **v).stdout)
        assert detect["files"] == ["src/list.html"] and detect["contract_exists"] is True, detect
        a.run("ui-review", "Step 1", "msd_run ui contract", **v)
        assert a.run("ui-review", "Step 2", "msd_run ui show", ok=(1,), **v).returncode == 1  # no review yet
        walk.spawn(a, "reviewer")
        draft = f".planning/drafts/{P1.nn}-ui.json"
        a.write(draft, json.dumps({"findings": [{
            "id": "V1", "severity": "high", "category": "states", "file": "src/list.html",
            "title": "no error state", "what": "a failed load shows a blank page",
            "evidence": "contract States: \"Could not load habits\"; the page has no such text",
            "fix": "show \"Could not load habits\" when the load fails", "truth": "a failed load says so",
            "status": "open"}], "checked": ["the heading reads \"Your habits\""]}))
        rec = json.loads(a.run("ui-review", "Step 3", "msd_run ui record", **v).stdout)
        assert rec["status"] == "gaps_found" and rec["gaps"], rec
        assert not (a.project / draft).exists()
        shown = json.loads(a.run("ui-review", "Step 4", "msd_run ui show", **v).stdout)
        assert shown["status"] == "gaps_found", shown
        review = f"{P1.dir}/01-UI-REVIEW.md"
        assert (a.project / review).is_file()
        a.run("ui-review", "Step 4", "msd_run state sync", **v)  # the gap reopens phase 1
        a.run("ui-review", "Step 4", "msd_run commit", file=review, **v)
        assert roadmap_marks(a.project)["Phase 1"] == " "
        cycle.check("/msd-plan-phase 1 --gaps")

    with cycle.step("/msd-docs-update: a doc naming a removed file fixed"):
        a.begin("/msd-docs-update")
        drift = json.loads(a.run("docs-update", "Step 1", "msd_run docs drift").stdout)
        stale = {d["path"]: d for d in drift["stale"]}
        assert "src/old.html" in stale["docs/screens.md"]["broken"], drift
        a.write("docs/screens.md", "# Screens\n\nThe list page lives in `src/list.html`.\n")
        # still listed for the changed file it names correctly (the step says: that one can be left)
        left = json.loads(a.run("docs-update", "Step 3", "msd_run docs drift --check", ok=(1,)).stdout)
        assert [(d["path"], d["broken"], d["changed"]) for d in left["stale"]] == \
            [("docs/screens.md", [], ["src/list.html"])], left
        example = a.content.command("docs-update", "Step 3", "msd_run commit")
        a.commit_like(example, ["docs/screens.md"], "docs: bring docs in line with the milestone")
        cycle.check("/msd-plan-phase 1 --gaps")

    print(f"\nscenario reviews (compact {compact}): " + cycle.report())


def test_import_then_spike(cycle, compact):
    a = cycle.agent
    walk.seed_repository(a)
    prd = "# Habit tracker PRD\n\nPeople forget their habits.\n\n## Needs\n\nA person can add a habit.\n" \
          "A person can check a habit off each day.\n"
    (a.project / "docs").mkdir()
    (a.project / "docs/prd.md").write_text(prd)
    git(a.project, "add", "docs/prd.md")
    git(a.project, "commit", "-q", "-m", "docs: the PRD")
    a.msd("config", "set", "workflow.compact_content", "true" if compact == "on" else "false", "--create")
    git(a.project, "add", ".planning/config.json")
    git(a.project, "commit", "-q", "-m", "chore: msd settings")
    src = {"source": "docs/prd.md"}

    with cycle.step("/msd-import docs/prd.md"):
        a.begin("/msd-import docs/prd.md")
        scan = json.loads(a.run("import", "Step 1", "msd_run import scan", **src).stdout)
        assert [d["path"] for d in scan["documents"]] == ["prd.md"], scan
        a.write(".planning/PROJECT.md", a.content.template("project.md", project_name="Habit tracker"))
        a.write(".planning/drafts/import-draft.json", json.dumps({"requirements": [
            {"id": "HABIT-01", "category": "Habits", "text": "A person can add a habit", "tier": "v1",
             "source": "prd.md:7"},
            {"id": "HABIT-02", "category": "Habits", "text": "A person can check a habit off each day", "tier": "v1",
             "source": "prd.md:8"}]}))
        # a citation outside the document is refused with the requirement named, nothing written
        bad = json.loads((a.project / ".planning/drafts/import-draft.json").read_text())
        bad["requirements"][1]["source"] = "prd.md:80-90"
        a.write(".planning/drafts/import-draft.json", json.dumps(bad))
        refused = a.run("import", "Step 3", "msd_run import requirements", ok=(2,), **src)
        assert "HABIT-02" in refused.stderr + refused.stdout
        assert not (a.project / ".planning/REQUIREMENTS.md").exists()
        bad["requirements"][1]["source"] = "prd.md:8"
        a.write(".planning/drafts/import-draft.json", json.dumps(bad))
        a.run("import", "Step 3", "msd_run import requirements", **src)
        reqs = (a.project / ".planning/REQUIREMENTS.md").read_text()
        assert "HABIT-01" in reqs and "prd.md:8" in reqs, reqs
        a.run("import", "Step 4", "msd_run commit", **src)
        assert dirty(a.project) == [], dirty(a.project)

    with cycle.step("/msd-spike: start, commit on the branch, finish, list"):
        a.begin('/msd-spike "can a text file hold a year of check-offs?"')
        q = {"question": "can a text file hold a year of check-offs?"}
        start = json.loads(a.run("spike", "Start", "msd_run spike start", **q).stdout)
        slug = start["slug"]
        assert start["branch"] == f"spike/{slug}" and start["base"] == "main", start
        assert git(a.project, "branch", "--show-current").strip() == f"spike/{slug}"
        a.write("spike/year.txt", "x\n" * 365)
        a.commit_like(a.content.command("spike", "Start", "msd_run commit"), ["spike/year.txt"], "chore(spike): a year of lines")
        a.write(".planning/drafts/spike-finding.md", "# Finding\n\nYes: 365 lines, 730 bytes.\n")
        fin = json.loads(a.run("spike", "Finish", "msd_run spike finish", slug=slug).stdout)
        assert fin["verdict"] == "works" and fin["branch_kept"] is True, fin
        assert git(a.project, "branch", "--show-current").strip() == "main"
        assert not (a.project / "spike/year.txt").exists()  # spike code never lands on the base branch
        a.run("spike", "Finish", "msd_run commit", file=fin["file"], slug=slug)
        assert (a.project / fin["file"]).is_file() and dirty(a.project) == []
        listed = json.loads(a.run("spike", "List", "msd_run spike list").stdout)
        assert [s["slug"] for s in listed["finished"]] == [slug] and listed["open"] == [], listed

    print(f"\nscenario import/spike (compact {compact}): " + cycle.report())
