"""Bad input the real host meets: each is found here before a user finds it.

The first two build a skill the host refuses and prove the guard the skill tests rely on
(`assert_loaded`) fails on it, so a shipped skill with such a line could not pass.
"""

from __future__ import annotations

import shutil

import hostkit
import pytest

from tests.host.test_skills import assert_loaded


def write_skill(host: hostkit.Host, name: str, allowed: str, lines: list[str]) -> None:
    folder = host.config_dir / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: probe skill {name}\nallowed-tools: {allowed}\n---\n" + "\n".join(lines) + "\n")


def test_compound_shell_line_without_a_permission_is_refused(host_global):
    host = host_global
    write_skill(host, "probe-compound", "Bash(msd_run resolve plan-phase --emit *)", [
        "PROBE-BODY",
        "!`msd_run resolve plan-phase --emit --root ~/.claude/msd-core && touch compound-ran.txt`",
    ])
    run = host.run("/probe-compound")
    assert run.returncode == 0, run.stderr
    assert len(run.refusals) == 1 and "Shell command permission check failed" in run.refusals[0]
    assert run.model_requests == [], "a refused skill never reaches the model"
    assert not (host.project / "compound-ran.txt").exists()
    with pytest.raises(AssertionError, match="refused"):
        assert_loaded(run, "probe-compound")
    # the shipped shape of the same line (one command, `|| true`) is allowed by the same rule
    write_skill(host, "probe-compound", "Bash(msd_run resolve plan-phase --emit *)", [
        "PROBE-BODY", "!`msd_run resolve plan-phase --emit --root ~/.claude/msd-core || true`"])
    assert_loaded(host.run("/probe-compound"), "probe-compound")


def test_non_zero_exit_in_shell_context_refuses_the_whole_skill(host_global):
    host = host_global  # the project has no .planning/, so `msd_run state get` exits 1
    write_skill(host, "probe-exit", "Bash(msd_run state *)", ["PROBE-BODY", "!`msd_run state get`"])
    run = host.run("/probe-exit")
    assert run.returncode == 0, run.stderr
    assert len(run.refusals) == 1 and "Shell command failed" in run.refusals[0]
    assert run.model_requests == []
    with pytest.raises(AssertionError, match="refused"):
        assert_loaded(run, "probe-exit")
    # with `|| true` (every shipped shell line has it) the skill loads and the error is text
    write_skill(host, "probe-exit", "Bash(msd_run state *)", ["PROBE-BODY", "!`msd_run state get || true`"])
    run = host.run("/probe-exit")
    assert_loaded(run, "probe-exit")
    assert "no .planning/ folder" in run.first_user_text


def test_shipped_shell_lines_cannot_fail():
    """Content: every `!` shell line of every shipped skill ends in `|| true`."""
    lines = [line for p in (hostkit.REPO / "msd_core/content/commands/msd").glob("*.md")
             for line in p.read_text().splitlines() if line.startswith("!`")]
    assert lines
    assert [line for line in lines if not line.endswith("|| true`")] == []


def test_missing_install_the_host_says_the_command_is_not_installed(host):
    run = host.run("/msd-plan-phase 1")
    assert run.returncode == 0, run.stderr
    text = run.first_user_text
    assert "/msd-plan-phase" in text and "no command with that name is available" in text
    assert "<command-name>" not in text and run.attachments == {}


def test_skills_without_their_msd_core_folder_get_the_repair_notice(host_global):
    """A half-removed install: the host silently drops the `@` lines it cannot read, and the
    shell line tells the model why and how to repair."""
    host = host_global
    shutil.rmtree(host.config_dir / "msd-core")
    run = host.run("/msd-plan-phase 1")
    assert_loaded(run, "msd-plan-phase")
    text = run.first_user_text
    assert run.attachments == {}
    assert "<!-- msd:notice -->" in text and "no msd-core install" in text and "msd install" in text


def test_project_without_planning_folder(host_global):
    host = host_global
    run = host.run("/msd-progress", [
        {"tool_use": [{"name": "Bash", "input": {"command": "msd_run state get"}}]},
        {"when": ".planning", "tool_use": [{"name": "Bash", "input": {"command": "msd_run next"}}]},
        {"when": "new-project", "text": "No project here: run /msd-new-project."},
    ])
    assert_loaded(run, "msd-progress")
    (state, _, out1, err1), (nxt, _, out2, err2) = run.tool_results
    assert err1 and "no .planning/ folder" in out1 and "Traceback" not in out1
    assert len([line for line in out1.splitlines() if "msd_run" in line]) == 1
    assert not err2 and '"route":"new-project"' in out2.replace(" ", "")
    assert run.permission_denials == []
    assert run.result["result"] == "No project here: run /msd-new-project."
    assert not (host.project / ".planning").exists(), "a read-only command created .planning/"


def test_home_variable_at_lines_stay_inert_and_tilde_lines_attach(host_global):
    host = host_global
    ref = "msd-core/references/questioning.md"
    write_skill(host, "probe-at", "Read", ["PROBE-BODY", f"@$HOME/.claude/{ref}", f"@~/.claude/{ref}"])
    run = host.run("/probe-at")
    assert_loaded(run, "probe-at")
    assert list(run.attachments) == [str(host.config_dir / ref)]
    assert f"@$HOME/.claude/{ref}" in run.first_user_text


def test_shell_copy_from_the_config_folder_is_refused(host_global):
    """Why new-project no longer says `cp ~/.claude/msd-core/templates/config.json ...`: the host
    refuses a shell copy out of its config folder as a sensitive file, and msd's planning guard
    refuses a shell write of `.planning/config.json` before that (it cannot judge the guards block)."""
    host = host_global
    (host.project / ".planning").mkdir()
    line = "cp ~/.claude/msd-core/templates/config.json .planning/config.json"
    elsewhere = "cp ~/.claude/msd-core/templates/config.json ./copied-config.json"
    run = host.run("go", [{"tool_use": [{"name": "Bash", "input": {"command": line}}]},
                          {"tool_use": [{"name": "Bash", "input": {"command": elsewhere}}]}, {"text": "end"}],
                   args=["--permission-mode", "acceptEdits"])
    [(_, _, out, err), (_, _, out2, err2)] = run.tool_results
    assert err and "msd guard: " in out and ".planning/config.json" in out, out
    assert err2 and "sensitive file" in out2, out2  # the host's own refusal
    assert not (host.project / ".planning" / "config.json").exists()
    assert not (host.project / "copied-config.json").exists()
    new_project = (host.config_dir / "msd-core" / "workflows" / "new-project.md").read_text()
    assert "cp ~/.claude/" not in new_project.replace(str(host.config_dir), "~/.claude")
