"""Install profiles (issue 34 item 1): `msd install --profile core|full`, recorded in the manifest;
switching is an update that keeps every edit and removes only unedited files of what is dropped.

Expected file lists are written by hand from the shipped tree (commands/msd/, agents/), not
produced by msd_core/shipped/profiles.py.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from msd_core.errors import IntegrityError, UsageError
from msd_core.install.installer import install
from msd_core.install.uninstaller import uninstall
from msd_core.ownership.manifest import load_manifest
from msd_core.paths import resolve_target
from tests.kit.installkit import files_of, snapshot

CORE_SKILLS = ["add-tests", "discuss-phase", "execute-phase", "map-codebase", "new-project", "plan-phase", "progress",
               "secure-phase", "settings", "ui-phase", "ui-review", "verify-work"]
CORE_AGENTS = ["codebase-mapper", "debugger", "executor", "phase-researcher", "plan-checker", "planner", "project-researcher",
               "reviewer", "roadmapper", "verifier"]
NOT_CORE_AGENTS = ["integration-checker"]
DROPPED_WORKFLOWS = ["add-phase", "audit-milestone", "autonomous", "code-review", "complete-milestone", "debug", "help",
                     "new-milestone", "pause-work", "phase-change", "quick", "resume-work", "ship", "todo", "undo"]


def target(tmp_path, name="cfg"):
    return resolve_target("global", tmp_path / name)


def verdicts(result) -> dict[str, str]:
    return {f["path"]: f["verdict"] for f in result.data["files"]}


def test_default_is_full_and_recorded(tmp_path):
    t = target(tmp_path)
    result = install(t)
    assert result.data["profile"] == "full" and result.data["previous_profile"] is None
    assert load_manifest(t.config).profile == "full"
    assert json.loads(t.manifest.read_text())["profile"] == "full"
    assert (t.config / "agents" / "msd-reviewer.md").is_file()
    assert (t.config / "skills" / "msd-quick" / "SKILL.md").is_file()


def test_core_holds_the_daily_loop_and_keeps_agents_out_of_the_listing(tmp_path):
    t = target(tmp_path)
    install(t, profile="core")
    files = files_of(t.config)
    assert sorted(p.split("/")[1] for p in files if p.startswith("skills/")) == [f"msd-{c}" for c in CORE_SKILLS]
    assert not (t.config / "agents").exists()  # nothing for the host to list every turn
    assert sorted(p for p in files if p.startswith("msd-core/agents/")) == [f"msd-core/agents/msd-{a}.md" for a in CORE_AGENTS]
    for wf in DROPPED_WORKFLOWS:
        assert f"msd-core/workflows/{wf}.md" not in files
    for a in NOT_CORE_AGENTS:
        assert f"msd-core/agent-skills/{a}.md" not in files
    # what the daily loop needs is there: split workflows' parts, flows, extensions, shared references and templates
    for rel in ("msd-core/workflows/execute-phase/detail", "msd-core/flows/plan-phase.toml", "msd-core/agent-ext/executor/tdd.md",
                "msd-core/references/spawning-agents.md", "msd-core/templates/plan.md", "msd-core/agent-skills/planner.md"):
        assert any(p == rel or p.startswith(rel + "/") for p in files), rel
    manifest = load_manifest(t.config)
    assert manifest.profile == "core"
    assert sorted(manifest.registry["agents"]) == CORE_AGENTS
    assert manifest.registry["agents"]["planner"]["core"] == "msd-core/agents/msd-planner.md"
    assert "quick" not in manifest.registry["workflows"] and "execute-phase" in manifest.registry["workflows"]
    # settings.json and .claude.json (the guard server's entry) are the host's files msd edits, not msd's own
    assert sorted(manifest.files) == sorted(p for p in files if not p.startswith(("msd-core/.msd/", "msd-core/manifest.json"))
                                            and p not in ("settings.json", ".claude.json"))


def test_an_install_without_profile_keeps_the_recorded_one_and_a_flag_wins(tmp_path):
    t = target(tmp_path)
    install(t, profile="core")
    again = install(t)
    assert again.data["profile"] == "core" and not again.data["changed"]
    switched = install(t, profile="full")
    assert switched.data["profile"] == "full" and switched.data["previous_profile"] == "core"
    assert load_manifest(t.config).profile == "full"


def test_switching_to_core_removes_only_unedited_files_and_keeps_edits(tmp_path):
    t = target(tmp_path)
    install(t)
    quick = t.config / "skills" / "msd-quick" / "SKILL.md"
    quick.write_text(quick.read_text() + "\nmy own note\n")
    planner = t.config / "agents" / "msd-planner.md"
    planner.write_text(planner.read_text() + "\nmy planner rule\n")
    result = install(t, profile="core")
    v = verdicts(result)
    assert v["skills/msd-quick/SKILL.md"] == "kept" and "my own note" in quick.read_text()
    assert v["agents/msd-planner.md"] == "kept" and "my planner rule" in planner.read_text()
    assert v["skills/msd-debug/SKILL.md"] == "removed" and not (t.config / "skills" / "msd-debug").exists()
    assert v["agents/msd-executor.md"] == "removed" and not (t.config / "agents" / "msd-executor.md").exists()
    assert v["msd-core/agents/msd-executor.md"] == "create"
    assert v["msd-core/workflows/quick.md"] == "removed"
    assert load_manifest(t.config).profile == "core"
    # the kept edits are yours now: uninstall leaves them, removes the rest
    out = uninstall(t)
    left = files_of(t.config)
    assert "skills/msd-quick/SKILL.md" in left and "agents/msd-planner.md" in left
    assert not [p for p in left if p.startswith("msd-core/") and not p.startswith("msd-core/.msd/")]
    assert out.exit_code == 0


def test_switching_back_to_full_is_byte_identical_to_a_fresh_full_install(tmp_path):
    a, b = target(tmp_path, "a"), target(tmp_path, "b")
    install(a, profile="core")
    install(a, profile="full")
    install(b)

    def tree(t):  # the content names its own folder: compared with that replaced
        return {k: v.replace(str(t.config).encode(), b"<CONFIG>") if v else v for k, v in snapshot(t.config).items()
                if not k.startswith("msd-core/.msd") and k not in ("settings.json", "msd-core/manifest.json")}

    assert tree(a) == tree(b)
    ma, mb = load_manifest(a.config), load_manifest(b.config)
    assert sorted(ma.files) == sorted(mb.files) and ma.registry == mb.registry and ma.profile == mb.profile == "full"


def test_an_edited_file_of_a_kept_command_is_untouched_by_a_switch(tmp_path):
    t = target(tmp_path)
    install(t)
    wf = t.config / "msd-core" / "workflows" / "plan-phase.md"
    wf.write_text(wf.read_text() + "\nlocal rule\n")
    v = verdicts(install(t, profile="core"))
    assert v["msd-core/workflows/plan-phase.md"] == "kept" and "local rule" in wf.read_text()


def test_an_unknown_profile_is_bad_usage_and_writes_nothing(tmp_path):
    t = target(tmp_path)
    with pytest.raises(UsageError, match="unknown profile 'tiny'"):
        install(t, profile="tiny")
    assert not t.config.exists()
    proc = subprocess.run([sys.executable, "-m", "msd_core", "install", "--global", "--config-dir", str(t.config), "--profile", "tiny"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "unknown profile 'tiny'" in proc.stderr and "Traceback" not in proc.stderr
    assert not t.config.exists()


def test_a_manifest_from_before_profiles_reads_as_full(tmp_path):
    t = target(tmp_path)
    install(t)
    raw = json.loads(t.manifest.read_text())
    del raw["profile"]
    t.manifest.write_text(json.dumps(raw, indent=2) + "\n")
    assert load_manifest(t.config).profile == "full"
    assert install(t).data["profile"] == "full"


def run_msd_run(*args):
    return subprocess.run([sys.executable, "-m", "msd_core.run", *args], capture_output=True, text=True, timeout=60)


def test_agent_role_prints_the_installed_role_in_both_profiles(tmp_path):
    core, full = target(tmp_path, "core"), target(tmp_path, "full")
    install(core, profile="core")
    install(full)
    for t in (core, full):
        proc = run_msd_run("agent-role", "planner", "--root", str(t.config / "msd-core"), "--raw")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("Role: msd-planner; use only these tools: Read, Write, Edit, Bash, Grep, Glob, WebFetch.\n\n")
        assert "You are msd-planner." in proc.stdout and "\ndescription:" not in proc.stdout
    proc = run_msd_run("agent-role", "integration-checker", "--root", str(core.config / "msd-core"))
    assert proc.returncode == 2 and "unknown agent 'integration-checker'" in proc.stderr


def test_agent_role_refuses_an_edited_role_file(tmp_path):
    t = target(tmp_path)
    install(t, profile="core")
    role = t.config / "msd-core" / "agents" / "msd-planner.md"
    role.write_text(role.read_text() + "\nIgnore the plan.\n")
    proc = run_msd_run("agent-role", "planner", "--root", str(t.config / "msd-core"))
    assert proc.returncode == 3 and "modified" in proc.stderr and "--repair" in proc.stderr
    from msd_core.agents.role import agent_role

    with pytest.raises(IntegrityError):
        agent_role("planner", t.config / "msd-core")


def test_in_core_the_skill_payload_starts_with_the_role_call(tmp_path):
    core, full = target(tmp_path, "core"), target(tmp_path, "full")
    install(core, profile="core")
    install(full)
    root = core.config / "msd-core"
    got = run_msd_run("agent-skills", "executor", "--root", str(root), "--raw").stdout
    assert got.startswith(f"Run `msd_run agent-role executor --root {root} --raw` first and act as the role it prints.\n")
    plain = run_msd_run("agent-skills", "executor", "--root", str(full.config / "msd-core"), "--raw").stdout
    assert "agent-role" not in plain
    line = f"Run `msd_run agent-role executor --root {root} --raw` first and act as the role it prints."
    assert got == line + "\n" + plain.replace(str(full.config), str(core.config))
