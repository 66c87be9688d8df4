"""Three projects in one repository, walked as the user's agent walks them (issue 49).

The repository's top holds a project (the habit tracker); `/msd-new-project` run in services/api
and then in apps/web asks, as new-project's spine says, whether the folder is a project of its
own (`msd_run workspace --json`: inside the top's root) and makes each a root. The web's phase 1
depends on the API's phase 1 (`Depends on: Phase 1 of services/api`). Both are discussed and
planned; the web's phase then waits (`next`: wait-for-root naming the API's command) until the
API's phase 1 is executed and verified, and is executed after it.

Every command comes from the installed content (tests/kit/cyclekit.py, tests/kit/cyclewalk.py),
run in the root's own folder. After every step: nothing uncommitted anywhere in the repository,
each root's STATE.md and ROADMAP.md agree with its files, and `msd_run workspace --json` and
`msd_run next` in each root say what a user expects (written here by hand from docs/CONTRACTS.md).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.kit import cyclewalk as walk
from tests.kit.cyclekit import Agent, dirty, git

TOP = walk.Phase("1", "Core", "core", "habits can be created", ["HABIT-01"])
API = walk.Phase("1", "Endpoints", "endpoints", "the API serves habits", ["API-01"])
WEB = walk.Phase("1", "Screens", "screens", "the web app shows habits", ["WEB-01"])
API_PLANS = [walk.Plan("01-01", 1, ["src/api.txt"], "habit endpoint", requirements=["API-01"])]
WEB_PLANS = [walk.Plan("01-01", 1, ["src/web.txt"], "habit screen", requirements=["WEB-01"])]
SETTINGS = {"mode": "yolo", "granularity": "coarse", "parallelization.enabled": "false", "workflow.research": "false",
            "workflow.plan_check": "true", "workflow.verifier": "true", "commit_docs": "true"}
SECTION = "One repository, several projects"


def seed_folder(top: Path, rel: str) -> None:
    """A package of the repository: its own code and suite (what the user has before new-project there)."""
    for name, text in {"src/core.txt": "core\n", "tests/run.sh": walk.SUITE}.items():
        p = top / rel / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", f"{rel}: initial code")


def own_project(a: Agent, top: Path, inside: str) -> dict:
    """new-project's spine, before the flow: the folder lies inside another root; the user says it is a project of its own."""
    a.begin("/msd-new-project")
    ws = json.loads(a.run("new-project", SECTION, "msd_run workspace").stdout)
    assert (ws["current"], ws["start_is_root"], ws["top"]) == (inside, False, str(top)), ws
    a.run("new-project", SECTION, "mkdir -p .planning")
    return ws


def workspace(a: Agent) -> dict[str, dict]:
    out = a.msd("workspace", "--json")
    return {r["root"]: r for r in out["roots"]}


def check(top: Path, agents: dict[str, Agent], expected: dict[str, str]) -> dict[str, dict]:
    """After a step: nothing uncommitted, each root in sync, and `next` (there and in the workspace) as expected."""
    assert dirty(top) == [], dirty(top)
    listed = workspace(agents["."])
    assert sorted(listed) == sorted(expected), listed
    for rel, command in expected.items():
        a = agents[rel]
        proc = a._exec(["msd_run", "state", "sync", "--check"], a.project)
        assert proc.returncode == 0, (rel, proc.stdout)
        nxt = a.msd("next")
        assert nxt["command"] == command, (rel, nxt["reason"])
        assert listed[rel]["command"] == command and listed[rel]["route"] == nxt["route"], (rel, listed[rel])
    return listed


def test_three_roots_with_a_dependency_across_them(cycle, compact):
    top = cycle.agent.project
    settings = {**SETTINGS, "workflow.compact_content": "true" if compact == "on" else "false"}
    agents = {".": cycle.agent}

    with cycle.step("the top's project"):
        walk.seed_repository(cycle.agent)
        walk.new_project(cycle.agent, [TOP], settings)
        check(top, agents, {".": "/msd-discuss-phase 1"})

    with cycle.step("services/api becomes a project of its own"):
        seed_folder(top, "services/api")
        agents["services/api"] = api = Agent(top / "services" / "api", cycle.agent.content)
        own_project(api, top, ".")
        walk.new_project(api, [API], settings)
        check(top, agents, {".": "/msd-discuss-phase 1", "services/api": "/msd-discuss-phase 1"})

    with cycle.step("apps/web too, its phase 1 depending on the API's"):
        seed_folder(top, "apps/web")
        agents["apps/web"] = web = Agent(top / "apps" / "web", cycle.agent.content)
        own_project(web, top, ".")
        walk.new_project(web, [WEB], settings)
        road = web.project / ".planning/ROADMAP.md"
        web.write(".planning/ROADMAP.md", road.read_text().replace("Depends on: nothing", "Depends on: Phase 1 of services/api"))
        web.sh("msd_run state sync")
        web.sh('msd_run commit --files .planning/ROADMAP.md .planning/STATE.md -m "docs(web): phase 1 needs the API\'s phase 1"')
        listed = check(top, agents, {".": "/msd-discuss-phase 1", "services/api": "/msd-discuss-phase 1",
                                     "apps/web": "/msd-discuss-phase 1"})
        assert "waiting_on" in listed["apps/web"]  # discussing and planning may go ahead
        assert workspace(api)["services/api"]["current"] is True

    with cycle.step("both planned; the web waits for the API"):
        for a, phase, plans in ((api, API, API_PLANS), (web, WEB, WEB_PLANS)):
            walk.discuss_phase(a, phase)
            walk.plan_phase(a, phase, plans, walk.Checker([0]))
        listed = check(top, agents, {".": "/msd-discuss-phase 1", "services/api": "/msd-execute-phase 1",
                                     "apps/web": "/msd-progress"})
        assert listed["apps/web"]["route"] == "wait-for-root" and listed["apps/web"]["run_in"] == "services/api"
        assert listed["apps/web"]["waiting_on"] == [{"root": "services/api", "phase": "1", "state": "execute",
                                                     "next": "/msd-execute-phase 1"}]
        web.begin("/msd-progress")  # its Step 2 shows every root: the web's line says whom it waits on
        table = web.run("progress", "Step 2", "msd_run workspace").stdout
        assert "* apps/web" in table and "waits on phase 1 of services/api (there: /msd-execute-phase 1)" in table
        reason = web.msd("next")["reason"]
        assert "run /msd-execute-phase 1 in services/api first (`msd_run next --cwd ../../services/api`)" in reason
        # the web's executor cannot start: wave plan refuses, writing nothing
        proc = web._exec(["msd_run", "wave", "plan", "--phase-dir", WEB.folder], web.project)
        assert proc.returncode == 1 and "phase 1 of services/api is not done" in proc.stderr
        assert dirty(top) == []

    with cycle.step("the API's phase 1 executed and verified"):
        walk.execute_phase(api, API, API_PLANS)
        check(top, agents, {".": "/msd-discuss-phase 1", "services/api": "/msd-audit-milestone",
                            "apps/web": "/msd-execute-phase 1"})

    with cycle.step("the web's phase 1 executed"):
        walk.execute_phase(web, WEB, WEB_PLANS)
        listed = check(top, agents, {".": "/msd-discuss-phase 1", "services/api": "/msd-audit-milestone",
                                     "apps/web": "/msd-audit-milestone"})
        assert [(r, e.get("phases_done")) for r, e in sorted(listed.items())] == [(".", 0), ("apps/web", 1), ("services/api", 1)]
        # each root's commits name its own files, relative to the repository
        api_files = git(top, "log", "--format=", "--name-only", "--grep=Msd-Plan: ").split()
        assert "services/api/src/api.txt" in api_files and "apps/web/src/web.txt" in api_files
    print(cycle.report())
