"""The repair and look-back commands in a whole cycle (issue 45.5): /msd-map-codebase on a project with
a phase built, the planner's history digest, /msd-undo's dry run of a phase, /msd-health repairing a
write that was killed and renumbering two phases that two clones each added, /msd-autonomous agreeing
with `next`, /msd-milestone-summary and /msd-forensics with --write, /msd-ship --milestone. Compact
content off and on; every command as the installed content names it (tests/kit/cyclekit.py)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.kit import cyclewalk as walk
from tests.kit.cyclekit import Agent, dirty, git

P1 = walk.Phase("1", "Core", "core", "habits can be created and checked off", ["HABIT-01"])
PLANS = [walk.Plan("01-01", 1, ["src/habits.txt"], "habit list", requirements=["HABIT-01"])]
SETTINGS = {"mode": "yolo", "granularity": "coarse", "parallelization.enabled": "false", "workflow.research": "false",
            "workflow.plan_check": "false", "workflow.verifier": "true", "commit_docs": "true"}
MAPS = {"stack": ["STACK.md", "INTEGRATIONS.md"], "architecture": ["ARCHITECTURE.md", "STRUCTURE.md"],
        "conventions": ["CONVENTIONS.md", "TESTING.md"], "concerns": ["CONCERNS.md"]}


def _install(a: Agent, where) -> None:
    """`msd install --global` run in a repository: its merge drivers (git copies no config to a clone)."""
    proc = subprocess.run([sys.executable, "-m", "msd_core", "install", "--global"], cwd=str(where), env=a.env(),
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_repairs_and_look_backs(cycle, compact, tmp_path):
    a = cycle.agent
    walk.values(P1)  # the same draw test_validation.py makes
    remote = tmp_path / "origin.git"

    with cycle.step("phase 1 built"):
        walk.seed_repository(a, remote)
        walk.new_project(a, [P1], {**SETTINGS, "workflow.compact_content": "true" if compact == "on" else "false"})
        walk.discuss_phase(a, P1)
        walk.plan_phase(a, P1, PLANS, walk.Checker())
        walk.execute_phase(a, P1, PLANS)
        cycle.check("/msd-audit-milestone")

    with cycle.step("/msd-map-codebase: four mappers write .planning/codebase/, the test command detected"):
        a.begin("/msd-map-codebase")
        made = a.content.command("map-codebase", "Step 1", "mkdir -p .planning/codebase")
        a.sh(made)
        assert (a.project / ".planning/codebase").is_dir()
        a.sh(a.content.command("map-codebase", "Step 2", "msd_run agent-skills codebase-mapper"))
        for focus, files in MAPS.items():
            for name in files:  # each mapper writes its own documents (msd-codebase-mapper)
                a.write(f".planning/codebase/{name}", f"# {name[:-3].title()}\n\nFocus {focus}: src/core.txt, tests/run.sh.\n")
        a.run("map-codebase", "Step 4", "msd_run commit --files")
        assert not dirty(a.project), dirty(a.project)
        detected = json.loads(a.run("map-codebase", "Step 5", "msd_run gate detect").stdout)
        assert detected["configured"] == "sh tests/run.sh", detected  # new-project confirmed it; not asked again
        cycle.check("/msd-audit-milestone")

    with cycle.step("the planner's digest of earlier work"):
        line = a.content.line_command("agents/msd-planner.md", "msd_run history-digest --affects")
        digest = json.loads(a.sh(line, area="Core").stdout)  # the SUMMARY's affects: the template's area, filled
        assert digest["phases"], digest
        assert not dirty(a.project)

    with cycle.step("/msd-undo --phase 1: the dry run only, nothing changed"):
        a.begin("/msd-undo --phase 1")
        dry = json.loads(a.run("undo", "Step 1", "msd_run undo --phase", n="1").stdout)
        assert dry["commits"] and all(c["plan"].startswith("01-") for c in dry["commits"]), dry
        assert not dirty(a.project)
        cycle.check("/msd-audit-milestone")

    with cycle.step("/msd-health: a write killed mid-way is repaired after the dry run"):
        tmp = a.project / f".planning/.STATE.md.{_dead_pid()}-k1ll.msd-tmp"
        tmp.write_text("half a STATE.md\n")
        a.begin("/msd-health --repair")
        text = a.run("health", "Step 1", "msd_run health --text", ok=(0, 1)).stdout  # an info finding: exit 0
        assert "temp-orphaned" in text, text
        dry = a.run("health", "Step 2", "msd_run health --repair --dry-run --text").stdout
        assert "temp-orphaned" in dry and tmp.exists(), dry
        done = a.run("health", "Step 2", "msd_run health --repair --text", ok=(0, 1)).stdout
        assert not tmp.exists(), done
        assert a.sh("msd_run health --repair").returncode == 0  # the repair the guardrail names: nothing left
        assert not dirty(a.project), dirty(a.project)
        cycle.check("/msd-audit-milestone")

    with cycle.step("/msd-autonomous agrees with next"):
        a.begin("/msd-autonomous")
        auto = json.loads(a.run("autonomous", "The loop", "msd_run autonomous").stdout)
        nxt = a.msd("next")
        assert (auto["action"], auto["command"]) == ("done", nxt["command"]) == ("done", "/msd-audit-milestone"), (auto, nxt)
        assert not dirty(a.project), dirty(a.project)

    with cycle.step("/msd-milestone-summary --write and /msd-forensics --write"):
        a.begin("/msd-milestone-summary --write")
        line = a.content.command("milestone-summary", "Step 1", "msd_run milestone-summary --text")
        a.sh(line + " --write", template=line)
        summary = (a.project / ".planning/MILESTONE-SUMMARY.md").read_text()
        assert "Core" in summary, summary
        a.begin("/msd-forensics --write")
        line = a.content.command("forensics", "Step 1", "msd_run forensics --text")
        a.sh(line + " --write", ok=(0, 1), template=line)
        assert list((a.project / ".planning/forensics").iterdir())

    with cycle.step("/msd-ship --milestone"):
        git(a.project, "add", "-A")
        git(a.project, "commit", "-q", "-m", "docs: milestone summary, forensics report")
        a.begin("/msd-ship --milestone v1.0")
        first = a.run("ship", "Step 1", "msd_run ship --milestone", ok=(0, 1), version="v1.0")
        if first.returncode == 1:
            assert "msd_run config set git.branching_strategy milestone" in first.stderr, first.stderr
            a.run("ship", "Step 1", "msd_run config set git.branching_strategy milestone")
            first = a.run("ship", "Step 1", "msd_run ship --milestone", version="v1.0")
        out = json.loads(first.stdout)
        assert out["commands"][0].startswith("msd_run branch --milestone"), out
        git(a.project, "add", "-A")  # the strategy the user chose
        git(a.project, "commit", "-q", "-m", "chore: branching strategy milestone")
        cycle.check("/msd-audit-milestone")
    print(f"\nscenario repairs (compact {compact}): " + cycle.report())


def test_two_clones_add_a_phase_each_and_health_renumbers(cycle, compact, tmp_path):
    """Two clones each add phase 2 and merge: `next` routes to /msd-health, whose check names
    `msd_run phase reconcile`; its dry run, the run and the commit leave phases 2 and 3, clean."""
    a = cycle.agent
    remote = tmp_path / "origin.git"
    mine, theirs = (walk.Phase("2", "Streaks", "streaks", "streaks are counted", []),
                    walk.Phase("2", "Reminders", "reminders", "reminders are sent", []))

    with cycle.step("the project, pushed"):
        walk.seed_repository(a, remote)
        walk.new_project(a, [P1], {**SETTINGS, "workflow.compact_content": "true" if compact == "on" else "false"})
        _install(a, a.project)  # the merge drivers, in this repository
        if dirty(a.project):
            git(a.project, "add", "-A")
            git(a.project, "commit", "-q", "-m", "msd merge drivers")
        git(a.project, "push", "-q", "origin", "main")

    with cycle.step("a teammate's clone adds phase 2, so does this one; pulled"):
        other = tmp_path / "teammate"
        git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(other))
        for key, value in (("user.email", "mate@example.com"), ("user.name", "mate"), ("commit.gpgsign", "false")):
            git(other, "config", key, value)
        _install(a, other)
        assert not dirty(other), dirty(other)
        mate = Agent(other, a.content, base_env=a.base_env)
        walk.add_phase(mate, theirs, P1)
        git(other, "push", "-q", "origin", "main")
        walk.add_phase(a, mine, P1)
        git(a.project, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
        nxt = a.msd("next")
        assert (nxt["route"], nxt["command"]) == ("reconcile-phases", "/msd-health"), nxt

    with cycle.step("/msd-health: phase reconcile, dry run first, then committed"):
        out = walk.health_reconcile(a)
        assert out["dry"]["dry_run"] is True and out["out"]["commit_files"], out
        a.run("phase-change", "Commit", "msd_run commit", op="reconcile", n="2",
              **{"commit-files": " ".join(out["out"]["commit_files"])})
        assert not dirty(a.project), dirty(a.project)
        road = (a.project / ".planning/ROADMAP.md").read_text()
        assert "Phase 2:" in road and "Phase 3:" in road, road
        assert a.msd("next")["route"] != "reconcile-phases"
        assert a.sh("msd_run health --text", ok=(0, 1)).stdout.count("phase-number-shared") == 0

    with cycle.step("/msd-autonomous: each command it runs is the one next proposes"):
        a.begin("/msd-autonomous --until 1")
        line = a.content.command("autonomous", "The loop", "msd_run autonomous")
        auto = json.loads(a.sh(line + " --until 1", template=line).stdout)
        assert (auto["action"], auto["command"]) == ("run", a.msd("next")["command"]) == ("run", "/msd-discuss-phase 1"), auto
        walk.discuss_phase(a, P1)
        auto = json.loads(a.sh(line, template=line).stdout)
        assert (auto["action"], auto["command"]) == ("run", a.msd("next")["command"]) == ("run", "/msd-plan-phase 1"), auto
        cycle.check("/msd-plan-phase 1")
    print(f"\nscenario two clones (compact {compact}): " + cycle.report())
