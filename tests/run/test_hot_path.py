"""Every agent-facing msd_run command stays on the light path: each runs in a fresh
interpreter (through msd_core.run.dispatch.main) against a real install and a project in
the common planning form, and fails when it imports a module on the deny list.

Adding a command is one line in HOT: (id, argv, modules it may import beyond the standard
light set, reason). `{root}` is the installed msd-core folder, `{plan}` / `{phase_dir}` a
plan and its phase folder. Rows run in order in one project (a write may feed a later read).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.kit.probe import denied, probe

MEMORY = {"sqlite3", "datetime"}
TXN = {"shutil"}  # msd_core.files.txn removes its staging folder with shutil.rmtree

# commands whose probe needs a fixture of its own; the probe runs in the named test
ROWS_ELSEWHERE = {"step-report": "tests/chain/test_step_report.py::test_step_report_imports_nothing_heavy",
                  "commit": "tests/execution/test_exec_commit.py::test_commit_imports_nothing_heavy",
                  # git commands: probed in a git repository (k-lifecycle2)
                  "undo": "tests/execution/test_lifecycle_undo.py::test_git_commands_import_nothing_heavy",
                  "recorded": "tests/execution/test_lifecycle_undo.py::test_git_commands_import_nothing_heavy",
                  "ship": "tests/execution/test_lifecycle_undo.py::test_git_commands_import_nothing_heavy",
                  "drift": "tests/execution/test_drift.py::test_drift_imports_nothing_heavy",
                  # exits 1 on the fixture's gaps: probed in its own project
                  "validate": "tests/execution/test_validate.py::test_validate_imports_nothing_heavy",
                  # the host's side: probed with the host's JSON on stdin
                  "hook": "tests/hooks/test_hooks.py::test_hooks_import_nothing_heavy",
                  "statusline": "tests/hooks/test_hooks.py::test_hooks_import_nothing_heavy",
                  # run by git during a merge, in a repository with a merge going on (team)
                  "merge-driver": "tests/merging/test_merge_driver.py::test_driver_imports_only_what_it_declares"}

HOT = [
    ("config-get", ["config", "get", "mode", "--raw"], set()),
    ("config-list", ["config", "list"], set()),
    ("config-set", ["config", "set", "mode", "yolo"], set()),
    ("resolve", ["resolve", "plan-phase", "--root", "{root}"], set()),
    ("resolve-emit", ["resolve", "plan-phase", "--emit", "--root", "{root}"], set()),
    ("agent-skills", ["agent-skills", "executor", "--root", "{root}", "--raw"], set()),
    ("agent-role", ["agent-role", "executor", "--root", "{root}", "--raw"], set()),
    ("extensions-executor", ["extensions", "executor", "--plan", "{plan}", "--root", "{root}", "--raw"], set()),
    ("extensions-planner", ["extensions", "planner", "--phase-dir", "{phase_dir}", "--root", "{root}", "--raw"], set()),
    ("state-get", ["state", "get"], set()),
    ("state-get-section", ["state", "get", "Current Position"], set()),
    ("state-get-field", ["state", "get", "status"], set()),
    ("state-patch", ["state", "patch", "--status", "Executing", "--add-decision", "Use X"], set()),
    ("state-sync", ["state", "sync"], set()),
    ("model", ["model", "planner", "--raw"], set()),
    ("branch", ["branch", "--phase", "1"], set()),  # git runs through msd_core.lean.spawn
    ("template-select", ["template", "select", "{plan}", "--root", "{root}"], set()),
    ("compile-plan", ["compile-plan", "{plan}", "--root", "{root}"], set()),
    ("compile-plan-fresh", ["compile-plan", "{plan}", "--root", "{root}"], set()),
    ("compile-plan-check", ["compile-plan", "{plan}", "--check", "--root", "{root}"], set()),
    ("next", ["next"], set()),
    ("workspace", ["workspace", "--json"], set()),
    ("next-step", ["next-step", "--workflow", "plan-phase", "--var", "phase=01", "--root", "{root}"], set()),
    ("step-done", ["step-done", "--workflow", "plan-phase", "--step", "load-context", "--var", "phase=01",
                   "--result", '{"phase": "01", "phase_dir": "01-auth"}', "--root", "{root}"], set()),
    ("history-digest-cold", ["history-digest"], set()),
    ("history-digest-warm", ["history-digest"], set()),
    ("history-digest-phase", ["history-digest", "--phase", "1", "--no-cache"], set()),
    # git runs through msd_core.lean.spawn, never subprocess (this fixture is no repository: git is asked)
    ("wave-plan", ["wave", "plan", "--phase-dir", "{phase_dir}"], set()),
    ("evidence-status", ["evidence", "status"], set()),
    ("evidence-adopt", ["evidence", "adopt"], set()),
    ("wave-check", ["wave", "check", "--phase-dir", "{phase_dir}"], set()),
    ("check-plan", ["check", "plan", "1", "--json"], set()),
    ("verify", ["verify", "1", "--json", "--no-write"], set()),
    ("gate-detect", ["gate", "detect"], set()),
    ("gate-status", ["gate", "status"], set()),
    ("memory-index", ["memory", "index"], MEMORY),
    ("memory-search", ["memory", "search", "token"], MEMORY),
    ("memory-what-uses", ["memory", "what-uses", "AuthService"], MEMORY),
    ("memory-pattern-for", ["memory", "pattern-for", "auth"], MEMORY),
    ("memory-decisions", ["memory", "decisions-affecting", "auth"], MEMORY),
    ("todo-add", ["todo", "add", "an idea", "--file", "src/a.py"], set()),
    ("todo-list", ["todo", "list"], set()),
    ("claim-list", ["claim", "--list"], set()),  # claim <phase> (it commits): tests/planning/test_claims.py
    # rare, person-started edits applied through the install transaction (shutil only)
    ("phase-insert", ["phase", "insert", "1", "Hotfix"], TXN),
    ("phase-remove", ["phase", "remove", "1.1"], TXN),
    ("phase-insert-dry-run", ["phase", "insert", "1", "Preview", "--dry-run"], set()),
    # lifecycle (k-lifecycle2)
    ("debug-list", ["debug", "list"], set()),
    ("debug-start", ["debug", "start", "login fails after reload"], set()),
    ("debug-resume", ["debug", "resume"], set()),
    ("autonomous", ["autonomous"], set()),
    # reviews (issue 33): the scope reads plans and recorded commits, the findings are checked in code
    ("security-scope", ["security", "scope", "--phase", "1"], set()),
    ("security-record", ["security", "record", "--phase", "1", "--findings", "findings.json"], set()),
    ("security-show", ["security", "show", "--phase", "1"], set()),
    ("ui-detect", ["ui", "detect", "--phase", "1"], set()),
    ("ui-show-after-record", ["ui", "record", "--phase", "1", "--findings", "ui.json"], set()),
    ("import-scan", ["import", "scan", ".planning/phases"], set()),
    ("docs-drift", ["docs", "drift"], set()),
    ("spike-list", ["spike", "list"], set()),
    ("explore-record", ["explore", "record", "--topic", "tokens", "--note", "note.md"], set()),
    ("explore-list", ["explore", "list"], set()),
    # the people's reports (issue 33)
    ("health", ["health"], set()),
    ("health-dry-run", ["health", "--repair", "--dry-run"], set()),
    ("stats", ["stats"], set()),
    ("milestone-summary", ["milestone-summary"], set()),
    ("forensics", ["forensics"], set()),
    ("second-opinion-list", ["second-opinion", "--list"], set()),
]

STATE = """---
status: planning
stopped_at: Phase 1 planned
---
# Project State

## Current Position

Phase: 1 of 2 (auth)
Status: planning

## Decisions

- Use tokens

## Blockers/Concerns

None yet.

## Session Continuity

Last session: 2026-11-30 10:00
Stopped at: planning
Resume file: None
"""

PLAN = """---
phase: 01-auth
plan: 01
type: execute
wave: 1
depends_on: []
files_modified: [src/auth.py, src/token.py]
autonomous: true
must_haves:
  truths:
    - "User can log in"
  artifacts:
    - path: src/auth.py
      provides: AuthService
  key_links: []
---
<objective>Log in.</objective>

<task type="auto">
  <name>Task 1: AuthService</name>
  <files>src/auth.py</files>
  <action>Write it.</action>
</task>
<task type="auto" tdd="true">
  <name>Task 2: tokens</name>
  <files>src/token.py</files>
</task>
"""

SUMMARY = """---
phase: 01-auth
plan: 01
subsystem: auth
tags: [jwt, login]
requires: []
provides:
  - AuthService with token login
affects: [api]
tech-stack:
  added: [pyjwt]
  patterns:
    - token refresh on 401
key-files:
  created: [src/auth.py]
  modified: []
key-decisions:
  - "Tokens expire after 1 hour"
completed: 2026-11-30
duration: 12min
---
# Phase 1 Plan 1: Summary

AuthService issues a token on login.
"""


def _project(base: Path) -> tuple[Path, Path]:
    from msd_core.install.installer import install
    from msd_core.paths import resolve_target

    proj = base / "proj"
    pl = proj / ".planning"
    (pl / "phases" / "01-auth").mkdir(parents=True)
    (pl / "config.json").write_text(json.dumps({"mode": "interactive", "workflow": {"compact_content": False},
                                                "testing": {"command": "none"}}))  # verify's tests check passes
    (pl / "STATE.md").write_text(STATE)
    (pl / "ROADMAP.md").write_text("# Roadmap\n\n- [ ] **Phase 1: Auth** - log in\n- [ ] **Phase 2: API** - serve\n")
    (pl / "PROJECT.md").write_text("# Project\n")
    (pl / "phases" / "01-auth" / "01-CONTEXT.md").write_text("---\nphase: 01-auth\n---\n# Context\n\nauth decisions\n")
    (pl / "phases" / "01-auth" / "01-01-PLAN.md").write_text(PLAN)
    (pl / "phases" / "01-auth" / "01-01-SUMMARY.md").write_text(SUMMARY)
    (proj / "src").mkdir()
    (proj / "src" / "auth.py").write_text("class AuthService:\n    def login(self, user):\n        return user\n")
    (proj / "ui.json").write_text(json.dumps({"findings": [{
        "id": "V1", "severity": "low", "category": "copy", "file": "src/auth.py", "title": "t", "what": "w",
        "evidence": "e", "fix": "f", "truth": "holds", "status": "open"}]}))
    (proj / "note.md").write_text("Tokens are made in `.planning/phases/01-auth/01-01-PLAN.md:1`.\n")
    (proj / "findings.json").write_text(json.dumps({"findings": [{
        "id": "S1", "severity": "high", "category": "spoofing", "file": "src/auth.py", "title": "t", "what": "w",
        "evidence": "e", "fix": "f", "truth": "holds", "status": "open"}]}))
    target = resolve_target("local", proj / ".claude")
    result = install(target)
    assert result.exit_code == 0, result.errors
    return proj, proj / ".claude" / "msd-core"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    base = tmp_path_factory.mktemp("hot")
    proj, root = _project(base)
    return {"proj": proj, "root": root, "base": base, "results": {}}


def _argv(argv: list[str], project: dict) -> list[str]:
    proj = project["proj"]
    subs = {"{root}": str(project["root"]), "{plan}": str(proj / ".planning/phases/01-auth/01-01-PLAN.md"),
            "{phase_dir}": str(proj / ".planning/phases/01-auth")}
    return [subs.get(a, a) for a in argv]


@pytest.mark.parametrize("name,argv,allowed", HOT, ids=[h[0] for h in HOT])
def test_hot_command_imports_nothing_denied(project, name, argv, allowed):
    res = probe(_argv(argv, project), project["proj"], project["base"] / f"{name}.json")
    assert res["code"] == 0, res["err"]
    assert res["out"].strip(), "no output"
    assert denied(res["modules"], allowed) == []


def test_every_runtime_command_has_a_row():
    """A new msd_run command gets its deny-list row (HOT) when it is added to COMMANDS."""
    from msd_core.run.dispatch import COMMANDS

    covered = {argv[0] for _, argv, _ in HOT} | set(ROWS_ELSEWHERE)
    assert set(COMMANDS) - covered == set()


def test_probe_sees_a_denied_import(project):
    """The guard can fail: PyYAML is imported when a summary leaves the common form
    (a block scalar), and the probe reports it."""
    proj = project["proj"]
    extra = proj / ".planning" / "phases" / "01-auth" / "01-02-SUMMARY.md"
    extra.write_text("---\nphase: 01-auth\nplan: 02\nprovides: |\n  a block scalar\n---\n# s\n")
    try:
        res = probe(["history-digest", "--no-cache"], proj, project["base"] / "yaml.json")
    finally:
        extra.unlink()
    assert res["code"] == 0
    assert "yaml" in denied(res["modules"], set())


def test_trace_on_stays_light(project, tmp_path):
    import os

    env = {**os.environ, "MSD_TRACE": "1"}
    res = probe(["resolve", "plan-phase", "--root", str(project["root"])], project["proj"], tmp_path / "t.json", env)
    assert res["code"] == 0 and denied(res["modules"], set()) == []
    assert (project["proj"] / ".planning" / ".msd" / "loads.jsonl").is_file()


def test_builtin_sha256_matches_hashlib(tmp_path):
    import hashlib
    import os

    from msd_core.files import atomic as fsutil

    for n in (0, 1, 55, 56, 63, 64, 65, 4096, 1 << 17):
        data = os.urandom(n)
        assert fsutil.sha256_bytes(data) == hashlib.sha256(data).hexdigest()
        f = tmp_path / f"f{n}"
        f.write_bytes(data)
        assert fsutil.sha256_file(f) == hashlib.sha256(data).hexdigest()


def test_usage_errors_stay_english_without_a_catalogue_lookup(project, tmp_path):
    """msd_run takes argparse's messages as they are: no gettext catalogue search (and no
    `locale` import) on any call, and a usage error is still its one English line."""
    import os

    env = {**os.environ, "LANGUAGE": "de", "LANG": "de_DE.UTF-8"}
    ok = probe(["config", "get", "mode", "--raw"], project["proj"], tmp_path / "ok.json", env)
    assert ok["code"] == 0 and "locale" not in ok["modules"]
    bad = probe(["config", "get", "--no-such-option"], project["proj"], tmp_path / "bad.json", env)
    assert bad["code"] == 2
    assert bad["err"].startswith("msd_run config: error: unrecognized arguments: --no-such-option")
    assert bad["err"].count("\n") == 1 and "locale" not in bad["modules"]
