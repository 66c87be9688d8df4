"""The reviewer's walk of issue 4, done by a test: install, then follow the commands.

A real `msd install --local` into a temp project, then new-project -> discuss -> plan ->
execute -> verify (UAT with issues) -> gap plan -> re-verify -> pause/resume -> add-phase
-> complete-milestone, with every project file rendered from the *installed* templates,
every flow driven with `next-step`/`step-done --root <install>` as the spines say, and
`msd_run next` asked after each stage. A second test runs every `msd_run` line of the
installed content for real (placeholders filled) and requires that none is a usage error.

Expected routes and step orders are written by hand from docs/CONTRACTS.md and the
spines, never taken from the code under test.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import time
from pathlib import Path

from msd_core.checks.contract import invocations
from msd_core.checks.textlines import code_segments

CONTENT = Path(__file__).resolve().parents[2] / "msd_core" / "content"
INSTALL_READERS = {"resolve", "agent-skills", "extensions", "next-step", "step-done", "compile-plan"}


# ------------------------------------------------------------------ static guards


def colon_command_names(text: str) -> list[str]:
    """`/msd:<name>` spellings (the installed skills are `/msd-<name>`)."""
    return re.findall(r"/msd:[\w-]+", text)


def test_colon_finder_catches_old_spelling():
    assert colon_command_names("run /msd:plan-phase 2, then /msd-execute-phase 2") == ["/msd:plan-phase"]
    assert colon_command_names("/msd-plan-phase and msd_run next") == []


def test_no_colon_command_names_anywhere_in_content():
    bad = {}
    for p in sorted(CONTENT.rglob("*")):
        if p.is_file():
            found = colon_command_names(p.read_text(encoding="utf-8", errors="replace"))
            if found:
                bad[str(p.relative_to(CONTENT))] = found
    assert bad == {}, "commands are installed as skills: write /msd-<name>"


def msd_run_calls(text: str) -> list[str]:
    """Every msd_run invocation in the code of a markdown text, as the words after `msd_run`."""
    out = []
    for seg in code_segments(text.splitlines()):
        if "msd_run" in seg.text:
            out.extend(b.strip() for b in invocations(seg.text) if b.strip())
    return out


def missing_root(body: str) -> bool:
    words = body.split()
    if not words or (len(words) <= 2 and not any(w.startswith("-") for w in words)):
        return False  # the command named in prose ("`msd_run extensions planner` decides ...")
    reads_install = words[0] in INSTALL_READERS or words[:2] == ["template", "select"]
    return reads_install and "--root ~/.claude/msd-core" not in body


def test_missing_root_finder():
    assert missing_root("next-step --workflow plan-phase --var phase=<nn>")
    assert missing_root("template select <plan-path>")
    assert not missing_root("step-done --workflow x --step y --root ~/.claude/msd-core")
    assert not missing_root("state get")
    assert not missing_root("extensions planner")  # a mention, not a call


def test_every_call_that_reads_the_install_names_its_root():
    """Without --root these commands read the *global* install: a local install would fail
    (exit 2, no install) or, worse, run another version's flow."""
    bad = []
    for p in sorted(CONTENT.rglob("*.md")):
        for body in msd_run_calls(p.read_text(encoding="utf-8")):
            if missing_root(body):
                bad.append(f"{p.relative_to(CONTENT)}: msd_run {body}")
    assert bad == []


def test_flow_header_comments_name_the_root_too():
    for p in sorted((CONTENT / "msd-core" / "flows").glob("*.toml")):
        comments = "\n".join(ln for ln in p.read_text().splitlines() if ln.startswith("#"))
        for m in re.finditer(r"msd_run (?:next-step|step-done)[^`]*", comments):
            assert "--root ~/.claude/msd-core" in m.group(0), p.name


# ------------------------------------------------------------------ the walk


def render(text: str, values: dict[str, str]) -> str:
    """Fill a template's `{{...}}` placeholders: by name from `values`, else a neutral word."""
    return re.sub(r"\{\{([^}]*)\}\}", lambda m: values.get(m.group(1).strip(), "Core"), text)


VALUES = {
    "project_name": "Habit tracker", "date": "2026-11-30", "date time": "2026-11-30 14:00",
    "core_value": "Logging a habit takes one tap", "n": "1", "total_phases": "2", "phase_name": "Core",
    "p": "0", "plans_in_phase": "0", "Ready to plan | In progress | Phase complete": "Ready to plan",
    "what happened": "roadmap created", "last completed action": "Roadmap created",
    "Name": "Core", "CAT": "HABIT", "NN-slug": "01-core", "NN": "01", "PP": "01", "CAT-NN": "HABIT-01",
    "capability now available": "create_habit()", "area touched": "storage", "area, e.g. auth": "habits",
    "Nmin": "5min", "YYYY-MM-DD": "2026-11-30",
}


class Walk:
    def __init__(self, project: Path, msd_run):
        self.project = project
        self.root = str(project / ".claude" / "msd-core")
        self._run = msd_run
        self.calls = 0

    def run(self, *args: str, ok=(0,)) -> str:
        r = self._run(list(args), cwd=self.project)
        self.calls += 1
        assert r.returncode in ok, f"msd_run {' '.join(args)} -> {r.returncode}: {r.stderr}"
        assert "Traceback" not in r.stderr
        return r.stdout

    def json(self, *args: str) -> dict:
        return json.loads(self.run(*args))

    def next(self) -> dict:
        return self.json("next")

    def template(self, name: str, **extra: str) -> str:
        return render((Path(self.root) / "templates" / name).read_text(), {**VALUES, **extra})

    def write(self, rel: str, text: str, age: float = 0.0) -> Path:
        p = self.project / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        if age:
            t = time.time() + age
            os.utime(p, (t, t))
        return p

    def flow(self, workflow: str, results: list[tuple[str, dict]], first_vars: list[str] = (), restart=False,
             before: dict | None = None) -> list[str]:
        """Drive a flow as its spine says; returns the steps visited (done included)."""
        args = ["next-step", "--workflow", workflow, "--root", self.root]
        for v in first_vars:
            args += ["--var", v]
        if restart:
            args.append("--restart")
        first = self.json(*args)
        seen = [first["step"]]
        for step_id, result in results:
            assert seen[-1] == step_id, (workflow, seen)
            if before and step_id in before:
                before[step_id]()  # the step's work: the files it must produce
            out = self.json("step-done", "--workflow", workflow, "--step", step_id,
                            "--result", json.dumps(result), "--root", self.root)
            seen.append(out["next_step"])
        return seen


def test_the_whole_path_on_an_installed_project(tmp_path, msd, msd_run):
    project = tmp_path / "proj"
    project.mkdir()
    res = msd(["install", "--local"], cwd=project)
    assert res.returncode == 0, res.stderr
    w = Walk(project, msd_run)
    ph1 = ".planning/phases/01-core"

    assert w.next()["route"] == "new-project"

    # --- new-project: every step, research on, commits off (no git here)
    def settings():
        w.write(".planning/config.json", (Path(w.root) / "templates" / "config.json").read_text())
        w.run("config", "set", "commit_docs", "false")
        w.run("config", "set", "workflow.compact_content", "true")
        assert w.run("config", "get", "commit_docs", "--raw").strip() == "false"

    steps = ["detect-existing", "questioning", "ask-settings", "write-project", "research",
             "write-requirements", "roadmap", "confirm-roadmap", "commit", "done"]
    first = w.json("next-step", "--workflow", "new-project", "--root", w.root)
    assert first["step"] == "detect-existing"
    # the report hint an agent may copy names this (local) install; run as printed, it works
    hint = shlex.split(first["report"])
    assert hint[-2:] == ["--root", w.root] and hint[0] == "msd_run"
    hint[hint.index("<json>")] = json.dumps({"has_project": False, "has_code": False})
    assert w.json(*hint[1:])["next"]["report"].endswith(f"--root {w.root}")
    w.run("next-step", "--workflow", "new-project", "--restart", "--root", w.root)
    seen = ["detect-existing"]
    results = {
        "detect-existing": {"has_project": False, "has_code": False},
        "questioning": {"summary": "Building: a habit tracker\nCore value: one tap"},
        "ask-settings": {"settings": {"commit_docs": False}},
        "write-project": {"written": True},
        "research": {"files": 1},
        "write-requirements": {"v1": 2, "categories": 1},
        "roadmap": {"phases": 2},
        "confirm-roadmap": {"approved": True},
        "commit": {"committed": False, "reason": "commit_docs is false: planning files stay uncommitted"},
    }
    writers = {
        "ask-settings": settings,
        "write-project": lambda: w.write(".planning/PROJECT.md", w.template("project.md")),
        "research": lambda: w.write(".planning/research/SUMMARY.md", "# Research summary\n"),
        "write-requirements": lambda: w.write(".planning/REQUIREMENTS.md", w.template("requirements.md")),
        "roadmap": lambda: (w.write(".planning/ROADMAP.md", w.template("roadmap.md")),
                            w.write(".planning/STATE.md", w.template("state.md"))),
    }
    while seen[-1] != "done":
        sid = seen[-1]
        if sid in writers:
            writers[sid]()
        out = w.json("step-done", "--workflow", "new-project", "--step", sid,
                     "--result", json.dumps(results[sid]), "--root", w.root)
        seen.append(out["next_step"])
        assert len(seen) < 20
    assert seen == steps
    assert w.json("state", "get")["position"]["Status"] == "Ready to discuss"  # derived by state sync on step-done (no CONTEXT.md yet)

    nxt = w.next()
    assert (nxt["route"], nxt["command"]) == ("discuss-phase", "/msd-discuss-phase 1")

    # --- discuss-phase
    w.write(f"{ph1}/01-CONTEXT.md", w.template("context.md"))
    w.run("state", "patch", "--status", "Ready to plan", "--set-session", "Phase 1 context gathered")
    assert w.next()["command"] == "/msd-plan-phase 1"

    # --- plan-phase: research (on, no RESEARCH.md yet) -> plan -> check (0 issues) -> done
    plan_results = [
        ("load-context", {"phase": "01", "phase_dir": "01-core", "gaps": False, "skip_research": False}),
        ("research", {"research_file": f"{ph1}/01-RESEARCH.md"}),
        ("plan", {"plans": 1, "waves": 1}),
        ("check", {"issues_found": 0, "issues": []}),
        ("commit", {"committed": False, "reason": "commit_docs is false"}),
    ]
    def plan():
        assert w.run("extensions", "planner", "--phase-dir", ph1, "--root", w.root, "--raw") == ""
        w.write(f"{ph1}/01-01-PLAN.md", w.template("plan.md"))

    before = {"research": lambda: w.write(f"{ph1}/01-RESEARCH.md", "# Research\n"), "plan": plan}
    assert w.flow("plan-phase", plan_results, ["phase=01"], before=before) == [
        "load-context", "research", "plan", "check", "commit", "done"]
    w.run("state", "patch", "--status", "Ready to execute", "--set-session", "Planned phase 1")
    assert w.next()["command"] == "/msd-execute-phase 1"

    # --- execute-phase: the three preparation calls on the template-made plan
    plan = f"{ph1}/01-01-PLAN.md"
    compiled = w.json("compile-plan", plan, "--root", w.root)
    assert Path(compiled["compiled"]).is_file()
    ext = w.run("extensions", "executor", "--plan", plan, "--root", w.root, "--raw").split()
    assert [Path(p).name for p in ext] == ["deviation-rules.md", "tdd.md", "checkpoints.md", "summary.md"]
    assert all(Path(p).is_file() for p in ext)
    sel = w.json("template", "select", plan, "--root", w.root)
    assert sel["exists"] and Path(sel["path"]).is_file()
    summary_template = Path(sel["path"]).name
    write_summary = {"execute-wave": lambda: w.write(f"{ph1}/01-01-SUMMARY.md", w.template(summary_template), age=-100)}
    w.write(f"{ph1}/01-VERIFICATION.md", "---\nphase: 01-core\nstatus: passed\nscore: 1/1\ngaps: []\n---\n", age=-50)
    exec_results = [
        ("discover-plans", {"phase": "01", "phase_dir": "01-core", "plans_remaining": 1}),
        ("execute-wave", {"wave": 1, "plans_remaining": 0, "stuck": False}),
        ("gate", {"status": "skipped"}),
        ("verify", {"status": "passed"}),
        ("update-state", {"updated": True}),
    ]
    # the project has no test suite: the user answered `none`; the gate records a skip
    w.run("config", "set", "testing.command", "none")
    assert w.json("gate", "run", "--label", "phase 01 wave 1")["status"] == "skipped"
    # the executor writes the SUMMARY in execute-wave: msd_run counts the plans left from the files
    assert w.flow("execute-phase", exec_results, ["phase=01"], before=write_summary) == [
        "discover-plans", "execute-wave", "gate", "verify", "update-state", "done"]
    w.run("state", "patch", "--position", "1 of 2 (Core)", "--status", "Phase complete", "--set-session", "Executed phase 1")
    w.run("state", "patch", "--add-decision", "[Phase 1]: Habits live in one table")
    digest = w.json("history-digest", "--phase", "1")
    assert "create_habit()" in digest["phases"]["01-core"]["p"]  # the template's frontmatter is readable
    nxt = w.next()
    assert nxt["command"] == "/msd-discuss-phase 2" and "phase 1 is done" in nxt["reason"]

    # --- verify-work finds an issue: the UAT format of the spine routes to gap planning
    uat = (Path(w.root) / "workflows" / "verify-work.md").read_text()
    block = re.search(r"```markdown\n(---\nstatus: testing.*?)```", uat, re.S).group(1)
    w.write(f"{ph1}/01-UAT.md", block.replace("status: testing ", "status: issues_found", 1))
    w.run("state", "patch", "--add-blocker", "Phase 1 UAT: 1 issue(s), see the UAT file")
    nxt = w.next()
    assert (nxt["route"], nxt["command"]) == ("plan-gaps", "/msd-plan-phase 1 --gaps")

    # --- plan-phase --gaps and execute the gap plan
    gap_ext = w.run("extensions", "planner", "--phase-dir", ph1, "--gaps", "--root", w.root, "--raw").split()
    assert "gap-closure.md" in [Path(p).name for p in gap_ext]
    w.write(f"{ph1}/01-02-PLAN.md", w.template("plan.md", PP="02"))
    gap_results = [
        ("load-context", {"phase": "01", "phase_dir": "01-core", "gaps": True, "skip_research": True}),
        ("plan", {"plans": 1, "waves": 1}),
        ("check", {"issues_found": 0}),
        ("commit", {"committed": False, "reason": "commit_docs is false"}),
    ]
    assert w.flow("plan-phase", gap_results, ["phase=01"], restart=True) == ["load-context", "plan", "check", "commit", "done"]
    assert w.next()["command"] == "/msd-execute-phase 1"
    write_summary2 = {"execute-wave": lambda: w.write(f"{ph1}/01-02-SUMMARY.md", w.template(summary_template, PP="02"), age=+100)}
    exec2 = [("discover-plans", {"phase": "01", "phase_dir": "01-core", "plans_remaining": 1}),
             ("execute-wave", {"wave": 1, "plans_remaining": 0, "stuck": False}),
             ("gate", {"status": "skipped"}),
             ("verify", {"status": "passed"}),
             ("update-state", {"updated": True})]
    assert w.flow("execute-phase", exec2, ["phase=01"], restart=True, before=write_summary2)[-1] == "done"
    nxt = w.next()  # the UAT issues predate the fix: test again before moving on
    assert (nxt["route"], nxt["command"]) == ("verify-work", "/msd-verify-work 1")
    w.write(f"{ph1}/01-UAT.md", block.replace("status: testing ", "status: complete", 1).replace("result: issue", "result: pass"),
            age=+200)
    w.run("state", "patch", "--resolve-blocker", "Phase 1 UAT")
    assert w.next()["command"] == "/msd-discuss-phase 2"

    # --- pause-work / resume-work
    w.write(".planning/.continue-here.md", "---\nphase: none\nstatus: between_steps\n---\n# Continue here\n")
    w.run("state", "patch", "--set-session", "Paused: before phase 2", "--resume-file", ".planning/.continue-here.md")
    nxt = w.next()
    assert nxt["route"] == "resume-work" and nxt["resume_file"] == ".planning/.continue-here.md"
    (project / ".planning/.continue-here.md").unlink()
    w.run("state", "patch", "--set-session", "Resumed: phase 2", "--resume-file", "None")
    assert w.json("state", "get", "Handoff")["value"] == "None"
    assert w.json("state", "get", "Resume file")["value"] == "None"  # the older label finds the same line
    assert w.next()["command"] == "/msd-discuss-phase 2"

    # --- add-phase: the lines the workflow appends
    roadmap = project / ".planning/ROADMAP.md"
    text = roadmap.read_text()
    last_item = [ln for ln in text.splitlines() if ln.startswith("- [ ] Phase 2")][0]
    text = text.replace(last_item, last_item + "\n- [ ] Phase 3: Extra — more", 1)
    roadmap.write_text(text)
    w.run("state", "patch", "--position", "2 of 3 (Core)")
    w.run("state", "patch", "--add-decision", "[Roadmap]: added Phase 3 (Extra)")
    nxt = w.next()
    assert nxt["command"] == "/msd-discuss-phase 2" and nxt["phases_total"] == 3

    # --- every phase done: audit-milestone, then complete-milestone, then archived: next milestone
    roadmap.write_text(roadmap.read_text().replace("- [ ] Phase", "- [x] Phase"))
    assert w.next()["route"] == "audit-milestone"
    audit = project / ".planning/v1.0-MILESTONE-AUDIT.md"
    audit.write_text("---\nmilestone: v1.0\nstatus: passed\n---\n# Milestone v1.0 audit\n")
    later = time.time() + 1000  # after every SUMMARY (one was written 100 s ahead)
    os.utime(audit, (later, later))
    assert w.next()["route"] == "complete-milestone"
    w.run("state", "patch", "--status", "Milestone v1.0 complete", "--set-session", "Completed milestone v1.0")
    w.run("state", "patch", "--add-decision", "[Milestone]: v1.0 shipped; archive in .planning/milestones/")
    archive = project / ".planning/milestones/v1.0-phases"
    archive.mkdir(parents=True)
    (project / ph1).rename(archive / "01-core")
    roadmap.write_text("# Roadmap: Habit tracker\n\n## Completed Milestones\n\n- **v1.0 Core** (Phases 1-3, 2 plans) - shipped 2026-11-30\n")
    nxt = w.next()
    assert (nxt["route"], nxt["command"]) == ("new-milestone", "/msd-new-milestone")

    # --- new-milestone: its flow, a rejected roadmap sent back once, numbering continued
    def new_phases():
        roadmap.write_text(roadmap.read_text() + "\n## v1.1 Sharing\n\n- [ ] **Phase 4: Share links** - share\n"
                           "- [ ] **Phase 5: Invites** - invite\n\n### Phase 4: Share links\n**Goal**: share\n\n"
                           "### Phase 5: Invites\n**Goal**: invite\n")

    def requirements():
        req = project / ".planning/REQUIREMENTS.md"
        req.write_text(req.read_text() + "\n## v1.1 Requirements\n\n- [ ] **SHARE-01**: share a habit by link\n")

    steps = w.flow("new-milestone", [
        ("check-previous", {"finished": True, "last_phase": "3"}),
        ("shipped", {"summary": "v1.0: daily habits"}),
        ("questioning", {"version": "v1.1", "name": "Sharing", "goals": "share habits"}),
        ("write-requirements", {"new_ids": 1}),
        ("roadmap", {"phases": 2}),
        ("confirm-roadmap", {"approved": False, "changes": "split invites"}),
        ("roadmap", {"phases": 2}),
        ("confirm-roadmap", {"approved": True}),
        ("update-project", {"written": True}),
    ], before={"write-requirements": requirements, "roadmap": new_phases})
    assert steps[-1] == "commit"  # always: `msd_run commit` decides what commit_docs allows
    w.run("state", "sync")
    assert w.next()["command"] == "/msd-discuss-phase 4"
    assert w.flow("new-milestone", [("check-previous", {"finished": False, "last_phase": "5"})],
                  restart=True) == ["check-previous", "done"]

    # --- an urgent phase after 4 (the archived phase 3 is not the current milestone's) and a todo
    assert w._run(["phase", "insert", "3", "Fix sync"], cwd=project).returncode == 2
    out = w.json("phase", "insert", "4", "Fix sync", "--dry-run")
    assert out["phase"]["number"] == "4.1"
    todo = w.json("todo", "add", "log the sync errors", "--file", "src/sync.py")
    assert todo["phase"] == "04"


# ------------------------------------------------------------------ every line, for real

FILL = {
    "plan-path": ".planning/phases/01-core/01-01-PLAN.md", "phase-dir": ".planning/phases/01-core",
    "dir": ".planning/phases/01-core", "n": "1", "phase": "1", "nn": "01", "number": "001", "section": "Decisions",
    "agent": "planner", "stem": "plan-phase", "area": "storage", "subsystem": "storage", "key": "mode",
    "value": "interactive", "handoff-path": ".planning/.continue-here.md", "version": "v1.0",
    "after": "1", "m": "2", "id": "T1", "text": "an idea", "file": "src/app.py",
    "cli": "codex", "plan-file": ".planning/phases/01-core/01-01-PLAN.md",
    "source": ".planning",  # material to import (issue 33)
}


# commands named in prose ("change it only with `msd_run state patch`"), not calls
MENTIONS = {"state patch", "config set", "extensions planner", "extensions executor", "commit", "second-opinion"}


def fill(body: str) -> str:
    return re.sub(r"<([a-z][a-z0-9-]*)>", lambda m: FILL.get(m.group(1), "x"), body)


def test_every_msd_run_line_of_the_installed_content_runs(tmp_path, msd, msd_run):
    """No line the agent is told to run is a usage error (exit 2) on a project made from the
    templates; read-only calls succeed outright. Flow lines are walked above."""
    project = tmp_path / "proj"
    project.mkdir()
    assert msd(["install", "--local"], cwd=project).returncode == 0
    w = Walk(project, msd_run)
    w.write(".planning/config.json", (Path(w.root) / "templates" / "config.json").read_text())
    for name, rel in (("project.md", "PROJECT.md"), ("requirements.md", "REQUIREMENTS.md"),
                      ("roadmap.md", "ROADMAP.md"), ("state.md", "STATE.md")):
        w.write(f".planning/{rel}", w.template(name))
    w.write(".planning/phases/01-core/01-CONTEXT.md", w.template("context.md"))
    w.write(".planning/phases/01-core/01-01-PLAN.md", w.template("plan.md"))
    w.write(".planning/phases/01-core/01-01-SUMMARY.md", w.template("summary-standard.md"))
    # what the content has an agent write before it calls the runtime on it (issue 33)
    w.write(".planning/drafts/explore-note.md", "# x\n\nA note.\n")
    w.write(".planning/drafts/spike-finding.md", "It works.\n")
    w.write(".planning/drafts/import-draft.json", '{"requirements": [{"id": "CORE-01", "category": "Core", '
            '"text": "x", "tier": "v1", "source": "PROJECT.md:1"}]}\n')
    for name in ("01-security.json", "01-ui.json"):
        w.write(f".planning/drafts/{name}", '{"findings": []}\n')
    config = project / ".claude"
    texts = [p.read_text() for p in sorted(config.rglob("*.md")) if "/.msd/" not in str(p)]
    bodies = []
    for text in texts:
        assert "~/.claude/" not in text
        for body in msd_run_calls(text):
            words = body.split()
            if words[0] in ("next-step", "step-done") or words[0].startswith("<"):
                continue  # walked with real results above; `msd_run <command>` is prose
            if body in MENTIONS:
                continue
            filled = fill(body)
            if filled not in bodies:
                bodies.append(filled)
    assert len(bodies) > 40
    read_only = {"next", "history-digest", "resolve", "agent-skills", "extensions"}
    for body in bodies:
        args = shlex.split(body)
        if args[:2] in (["config", "get"], ["config", "list"], ["state", "get"], ["template", "select"]) or args[0] in read_only:
            w.run(*args)
        else:
            w.run(*args, ok=(0, 1))  # 1: a state line that is not there yet (reported, nothing invented)
