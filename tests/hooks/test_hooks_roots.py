"""One local install at a repository's top serves a `.planning/` root in a subfolder: its hooks and
status line act on the root the session is in (docs/CONTRACTS.md, "Which project")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import repo_env
from tests.kit.gitkit import new_repo


@pytest.fixture
def mono(tmp_path):
    """A repository: a project at the top, another in services/api (a flow running there), msd installed locally at the top."""
    from msd_core.install.installer import install
    from msd_core.paths import resolve_target

    top = new_repo(tmp_path / "mono")
    for base, name in ((top, "Top"), (top / "services" / "api", "Api")):
        pl = base / ".planning"
        (pl / "phases" / "01-auth").mkdir(parents=True)
        (pl / "PROJECT.md").write_text(f"# {name}\n")
        (pl / "ROADMAP.md").write_text("# Roadmap\n\n- [ ] **Phase 1: Auth** - log in\n")
        (pl / "STATE.md").write_text(f"---\nmilestone: {name.lower()}-v1\n---\n# State\n")
    assert install(resolve_target("local", project_dir=top)).exit_code == 0
    api = top / "services" / "api"
    r = run("next-step", "--workflow", "plan-phase", "--var", "phase=01", "--root", str(top / ".claude/msd-core"), cwd=api)
    assert r.returncode == 0, r.stderr
    return top


def run(*args: str, cwd: Path, stdin: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    full = repo_env()
    full.pop("CLAUDE_PROJECT_DIR", None)
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "msd_core.run", *args], input=stdin, cwd=str(cwd), env=full,
                          capture_output=True, text=True, timeout=60)


def test_a_session_started_in_the_subfolder_finds_the_install_at_the_top(mono):
    api = mono / "services" / "api"
    payload = {"cwd": str(api), "hook_event_name": "SessionStart", "source": "compact"}
    # the host sets CLAUDE_PROJECT_DIR to where the session started: the subfolder, which holds no .claude/
    for env in ({"CLAUDE_PROJECT_DIR": str(api)}, {}):
        r = run("hook", "session-start", "--root", ".claude/msd-core", cwd=api, stdin=json.dumps(payload), env=env)
        assert r.returncode == 0 and r.stderr == "", r.stderr
        text = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
        assert "plan-phase workflow is in progress (phase 01)" in text
        assert f"msd_run next-step --workflow plan-phase --root {mono / '.claude' / 'msd-core'}" in text


def test_a_session_at_the_top_is_not_told_about_the_subfolder_root(mono):
    payload = {"cwd": str(mono), "hook_event_name": "SessionStart", "source": "compact"}
    r = run("hook", "session-start", "--root", ".claude/msd-core", cwd=mono, stdin=json.dumps(payload),
            env={"CLAUDE_PROJECT_DIR": str(mono)})
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_the_status_line_shows_the_root_the_session_is_in_now(mono):
    api = mono / "services" / "api"
    payload = {"cwd": str(mono), "workspace": {"project_dir": str(mono), "current_dir": str(api)}}
    r = run("statusline", "--root", ".claude/msd-core", cwd=mono, stdin=json.dumps(payload), env={"CLAUDE_PROJECT_DIR": str(mono)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("msd api-v1 · phase 01 · plan-phase: load-context"), r.stdout
    payload["workspace"] = {"project_dir": str(mono), "current_dir": str(mono)}
    r = run("statusline", "--root", ".claude/msd-core", cwd=mono, stdin=json.dumps(payload), env={"CLAUDE_PROJECT_DIR": str(mono)})
    assert r.stdout == "msd top-v1\n"


def test_commands_run_in_the_subfolder_act_on_its_root(mono):
    api = mono / "services" / "api" / "src"
    api.mkdir()
    out = json.loads(run("next", cwd=api).stdout)
    assert out["project_root"] == str(mono / "services" / "api")
    assert "plan-phase" in [f["workflow"] for f in out["flows_in_progress"]]
    top = json.loads(run("next", cwd=mono).stdout)
    assert top["project_root"] == str(mono) and "flows_in_progress" not in top
    assert os.path.isdir(mono / ".claude" / "msd-core") and not (mono / "services" / "api" / ".claude").exists()
