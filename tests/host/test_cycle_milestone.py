"""A whole milestone in the real Claude Code CLI, one `claude -p /msd-<command>` run per step:
new project -> discuss -> plan (a checker revision) -> execute -> verify (a UAT issue, diagnosed)
-> gap plan -> execute -> re-verify -> close the debug session -> audit -> complete the milestone
(archive moves, tag) -> new milestone.

The actions come from a rehearsal: the same walk as the scenario suite (tests/kit/cyclewalk.py,
every command read from the installed content), run first in a twin project with the same
install. Each step is then replayed in the host: the scripted model issues the rehearsal's
Bash commands and file writes as tool calls, in order, in the real CLI, which renders the skill
(its spine, and its detail parts when compact content is off), applies the permissions msd
installs (plus `Bash(git *)`, which a user allows for git) and runs the tools.

After each run: no tool call denied or failed, the skill's content reached the model, nothing
is left uncommitted, STATE.md and ROADMAP.md agree with the files, and `msd_run next` proposes
what it proposed in the rehearsal at that point. At the end both projects hold the same
commits (by subject), the same planning files and the tag.
"""

from __future__ import annotations

import json
import re

import hostkit
import pytest
from hostkit import bash

from tests.kit import cyclewalk as walk
from tests.kit.cyclekit import Agent, Content, dirty, git, roadmap_marks, sessions

ARGS = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash(git *)"]
P1 = walk.Phase("1", "Core", "core", "habits can be created and checked off", ["HABIT-01", "HABIT-02"])
P2 = walk.Phase("2", "Share", "share", "a habit can be shared by link", ["SHARE-01"])
PLANS = [walk.Plan("01-01", 1, ["src/habits.txt"], "habit list", requirements=["HABIT-01"]),
         walk.Plan("01-02", 2, ["src/checkoff.txt"], "check-off", depends_on=["01-01"], requirements=["HABIT-02"])]
GAP = [walk.Plan("01-03", 1, ["src/habits.txt"], "keep the list after reload", closes="U2", requirements=["HABIT-01"])]
SETTINGS = {"mode": "yolo", "granularity": "coarse", "parallelization.enabled": "false", "workflow.research": "false",
            "workflow.plan_check": "true", "workflow.verifier": "true", "commit_docs": "true"}


def rehearse(host: hostkit.Host, compact: str) -> tuple[Agent, list[str]]:
    """The walk in a twin project; returns the agent (its log) and `next` after each slash command."""
    project = host.root / "rehearsal"
    project.mkdir()
    a = Agent(project, Content(host.config_dir), base_env=host.env())
    nexts: list[str] = []

    def act(fn, *args, **kw):
        out = fn(a, *args, **kw)
        nexts.append(a.msd("next")["command"])
        return out

    walk.seed_repository(a)
    act(walk.new_project, [P1], {**SETTINGS, "workflow.compact_content": "true" if compact == "on" else "false"})
    act(walk.discuss_phase, P1)
    act(walk.plan_phase, P1, PLANS, walk.Checker([1, 0]))
    act(walk.execute_phase, P1, PLANS)
    slug = act(walk.verify_work, P1, issue="the list is empty after reload")
    act(walk.plan_phase, P1, GAP, walk.Checker([0]), gaps=True)
    act(walk.execute_phase, P1, GAP)
    act(walk.verify_work, P1)
    act(walk.close_debug, slug)
    act(walk.audit_milestone, "v1.0")
    act(walk.complete_milestone, "v1.0", "Habits", [P1])
    act(walk.new_milestone, "v1.1", "Sharing", [P2], last_phase="1")
    assert nexts[-1] == "/msd-discuss-phase 2"
    return a, nexts


def turns_of(host: hostkit.Host, actions) -> list[dict]:
    out = []
    for act in actions:
        if act.kind == "bash":
            assert " && " not in act.text, act.text  # no worktrees here: every command runs in the project
            out.append(bash(act.text))
        elif act.kind == "edit":
            # the judgement written around this project's own machine part (cyclekit.Agent.write):
            # read the file, then edit the text before and after the part
            path = str(host.project / act.text)
            if act.edits:
                out.append({"tool_use": [{"name": "Read", "input": {"file_path": path}}]})
            out += [{"tool_use": [{"name": "Edit", "input": {"file_path": path, "old_string": old, "new_string": new}}]}
                    for old, new in act.edits]
        else:
            out.append({"tool_use": [{"name": "Write", "input": {"file_path": str(host.project / act.text),
                                                                  "content": act.content}}]})
    return out


def _planning_files(root) -> dict[str, str]:
    """The planning files, clock times masked (the two projects ran minutes apart), and so are commit
    hashes and digests (a verification's machine part names the commit its tests ran on). Times are
    dates in the prose and epoch seconds in config.json's evidence record (`"since": <float>`, the
    moment new-project began: the record itself must match, its clock cannot)."""
    skip = (".planning/.msd/", ".planning/state.json")
    stamp = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?")
    epoch = re.compile(r'("since": )\d+(?:\.\d+)?')
    digest = re.compile(r"\b[0-9a-f]{12}(?:[0-9a-f]{28})?\b")
    return {str(p.relative_to(root)): digest.sub("<hash>", epoch.sub(r"\1<time>", stamp.sub("<time>", p.read_text())))
            for p in sorted((root / ".planning").rglob("*"))
            if p.is_file() and not str(p.relative_to(root)).startswith(skip)}


@pytest.mark.parametrize("compact", ["off", "on"])
def test_a_whole_milestone_in_the_real_host(host_global, compact):
    host = host_global
    rehearsal, nexts = rehearse(host, compact)
    runs = sessions(rehearsal.log)
    assert len(runs) == len(nexts) == 12
    seed = Agent(host.project, rehearsal.content, base_env=host.env())
    walk.seed_repository(seed)

    for (invocation, actions), expected_next in zip(runs, nexts):
        closing = f"DONE {invocation}"
        turns = turns_of(host, actions)
        run = host.run(invocation, turns + [{"text": closing}], args=ARGS, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
        assert run.refusals == [], run.refusals
        name = invocation.split()[0].lstrip("/")
        assert f"<command-name>/{name}</command-name>" in run.first_user_text
        assert run.permission_denials == [], f"{invocation}: denied {run.permission_denials}"
        results = [r for r in run.tool_results if r[0] in ("Bash", "Write", "Edit", "Read")]
        failed = [(n, i.get("command", i.get("file_path")), out[:300]) for n, i, out, err in results if err]
        assert failed == [], f"{invocation}: tool calls failed: {failed}"
        assert len(results) == len(turns), f"{invocation}: {len(results)} of {len(turns)} tool calls ran"
        assert run.result.get("result") == closing
        # the skill reached the model: its spine, and its detail parts unless compact content is on
        stem = name.removeprefix("msd-")
        spine_file = host.config_dir / "msd-core" / "workflows" / f"{stem}.md"
        if spine_file.is_file():
            first_line = spine_file.read_text().splitlines()[0]
            assert first_line in run.first_user_text, f"{invocation}: the spine was not loaded"
        if stem in ("plan-phase", "execute-phase") and invocation != "/msd-new-project a habit tracker":
            marker = "<!-- msd:compact -->" if compact == "on" else "<!-- msd:part msd-core/workflows/"
            assert marker in run.first_user_text, f"{invocation}: compact {compact} not rendered"
        # what the user checks
        assert dirty(host.project) == [], f"{invocation}: uncommitted: {dirty(host.project)}"
        synced = host.msd_run("state", "sync", "--check", check=False)
        assert synced.returncode == 0, f"{invocation}: STATE.md/ROADMAP.md disagree with the files: {synced.stdout}"
        nxt = json.loads(host.msd_run("next").stdout)
        assert nxt["command"] == expected_next, f"{invocation}: next is {nxt['command']} ({nxt['reason']})"

    subjects = lambda root: git(root, "log", "--format=%s").splitlines()  # noqa: E731
    assert subjects(host.project) == subjects(rehearsal.project)
    assert _planning_files(host.project) == _planning_files(rehearsal.project)
    assert git(host.project, "tag", "--list").split() == ["v1.0"]
    assert roadmap_marks(host.project) == {"Phase 2": " "}
    print(f"\nhost cycle (compact {compact}): {len(runs)} claude runs, {sum(len(acts) for _i, acts in runs)} tool calls")
