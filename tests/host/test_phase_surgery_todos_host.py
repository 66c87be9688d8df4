"""Phase surgery, todos and new-milestone in the real host.

- /msd-insert-phase runs `msd_run phase insert` (dry run, then for real) under the one
  permission msd installs, and the phase lands on disk.
- All five new commands carry `disable-model-invocation: true` (a person starts them; the
  per-turn listing budget has no room for more): the host leaves them out of the skill
  listing the model sees, yet runs them when a person types them.
- The first request of each new command stays within the 8,000 proxy-token goal, compact off.
"""

from __future__ import annotations

import json

import hostkit
import pytest
from hostkit import bash

from tests.planning.test_phase_ops import make_project

PERSON_ONLY = ["msd-remove-phase", "msd-move-phase", "msd-insert-phase", "msd-todo", "msd-new-milestone"]
MODEL_LISTED = ["msd-plan-phase", "msd-progress"]
ARGS = ["--permission-mode", "acceptEdits"]


def listing(run: hostkit.HostRun) -> str:
    return hostkit.request_text(run.first_request)


def test_person_only_commands_are_not_listed_to_the_model_but_run_when_typed(host_global):
    host = host_global
    text = listing(host.run("1", [{"text": "ok"}]))
    for name in MODEL_LISTED:
        assert name in text, f"{name} is not in the listing the model gets"
    for name in PERSON_ONLY:
        assert name not in text, f"{name} is listed to the model despite disable-model-invocation"
    # the guard's fixture: the same install with the flag removed lists the command
    skill = host.config_dir / "skills" / "msd-remove-phase" / "SKILL.md"
    shipped = skill.read_text()
    assert "disable-model-invocation: true\n" in shipped
    skill.write_text(shipped.replace("disable-model-invocation: true\n", ""))
    assert "msd-remove-phase" in listing(host.run("1", [{"text": "ok"}]))
    skill.write_text(shipped)
    # typed by a person, each still runs: the skill body reaches the model and its call works
    make_project(host.project)
    for name, command, expect in (
        ("msd-remove-phase", "msd_run phase remove 2 --dry-run", '"renumbered":{"3":"2","4":"3"}'),
        ("msd-move-phase", "msd_run phase move 2 --after 3 --dry-run", '"number":"2.1"'),
    ):
        run = host.run(f"/{name} 2", [bash(command), {"when": expect, "text": "SHOWN"}], args=ARGS)
        assert run.returncode == 0, run.stderr
        assert f"<command-name>/{name}</command-name>" in run.first_user_text
        assert "Do the \"" in run.first_user_text and "phase-change workflow" in run.first_user_text
        assert run.permission_denials == []
        assert run.result.get("result") == "SHOWN", run.tool_results


def test_insert_phase_through_its_slash_command(host_global):
    host = host_global
    make_project(host.project)
    script = [
        bash('msd_run phase insert 2 "Fix login" --goal "Users can log in again" --dry-run'),
        bash('msd_run phase insert 2 "Fix login" --goal "Users can log in again"', when='"dry_run":true'),
        {"when": '"dry_run":false', "text": "INSERTED"},
    ]
    run = host.run("/msd-insert-phase 2 Fix login", script, args=ARGS)
    assert run.returncode == 0, run.stderr
    assert "<command-name>/msd-insert-phase</command-name>" in run.first_user_text
    assert run.permission_denials == [] and run.refusals == []
    assert run.result.get("result") == "INSERTED", run.tool_results
    pl = host.project / ".planning"
    assert (pl / "phases/02.1-fix-login/.gitkeep").is_file()
    road = (pl / "ROADMAP.md").read_text()
    assert "- [ ] **Phase 2.1: Fix login** (inserted)" in road
    assert "**Goal**: Users can log in again" in road
    results = [r for name, _inp, r, err in run.tool_results if name == "Bash"]
    assert json.loads(results[-1])["phase"]["folder"] == ".planning/phases/02.1-fix-login"


def test_todo_capture_through_its_slash_command(host_global):
    host = host_global
    make_project(host.project)
    script = [bash('msd_run todo add "cache the search index" --file src/search.py'),
              {"when": '"id":"T1"', "text": "CAPTURED T1"}]
    run = host.run("/msd-todo cache the search index", script, args=ARGS)
    assert run.returncode == 0 and run.permission_denials == []
    assert run.result.get("result") == "CAPTURED T1", run.tool_results
    line = (host.project / ".planning/TODOS.md").read_text().splitlines()[-1]
    assert line.startswith("- [ ] **T1** ") and line.endswith("· phase 02 · src/search.py — cache the search index")


@pytest.mark.parametrize("name", ["msd-new-milestone", "msd-insert-phase", "msd-remove-phase", "msd-move-phase", "msd-todo"])
def test_first_request_within_the_goal_compact_off(host_global, name):
    tok = pytest.importorskip("msd_core.bench.tokenizer")
    _label, count = tok.load()
    host = host_global
    (host.project / ".planning").mkdir()
    host.msd_run("config", "set", "workflow.compact_content", "false")
    base = count(listing(host.run("1", [{"text": "ok"}])))
    cost = count(listing(host.run(f"/{name} 1", [{"text": "ok"}]))) - base
    assert 0 < cost <= 8000, f"/{name}: first request costs {cost} proxy tokens over a plain prompt"
