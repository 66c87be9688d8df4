"""`msd_run agent-skills AGENT`: compact or canonical payload, verified, never empty by surprise."""

from __future__ import annotations

import json

import pytest

from tests.conftest import compact_default
from tests.kit.hostile import HOSTILE
from tests.kit.installed import default_agents, make_install, make_project, run_inproc

NOTE = "has no compact skill payload"




def skills(agent, inst, proj, *extra):
    return run_inproc(["agent-skills", agent, "--root", str(inst.root), "--cwd", str(proj), *extra])


def proj_with(tmp_path, compact):
    cfg = {} if compact is None else {"workflow": {"compact_content": compact}}
    return make_project(tmp_path / f"p-{compact}", cfg)


@pytest.mark.parametrize("compact", [True, False, None])
def test_executor_variant_follows_compact(tmp_path, inst, compact):
    effective = compact_default() if compact is None else compact
    code, out, err = skills("executor", inst, proj_with(tmp_path, compact))
    assert code == 0, err
    data = json.loads(out)
    agents = default_agents()
    if effective:
        assert data["variant"] == "compact" and data["text"] == agents["executor"]["compact"]
        assert data["path"] == str(inst.root / "agent-skills" / "executor.compact.md")
    else:
        assert data["variant"] == "canonical" and data["text"] == agents["executor"]["canonical"]
        assert data["path"] == str(inst.root / "agent-skills" / "executor.md")
    assert data["agent"] == "executor" and data["compact"] is effective


def test_no_compact_variant_gives_canonical_with_one_line(tmp_path, inst):
    code, out, _ = skills("planner", inst, proj_with(tmp_path, True), "--raw")
    assert code == 0
    canonical = default_agents()["planner"]["canonical"]
    lines = out.splitlines()
    noted = [ln for ln in lines if NOTE in ln]
    assert len(noted) == 1
    # inserted after the frontmatter, everything else intact
    assert out.replace(noted[0] + "\n", "", 1) == canonical
    assert lines.index(noted[0]) == 3
    code, out, _ = skills("planner", inst, proj_with(tmp_path, False), "--raw")
    assert out == canonical and NOTE not in out


def test_note_goes_first_without_frontmatter(tmp_path):
    agents = {"solo": {"canonical": "BODY\n", "compact": None}}
    inst = make_install(tmp_path / "cfg", workflows={}, agents=agents)
    code, out, _ = skills("solo", inst, proj_with(tmp_path, True), "--raw")
    assert code == 0 and out.splitlines()[1:] == ["BODY"] and NOTE in out.splitlines()[0]


def test_agent_without_any_payload_is_empty_not_an_error(tmp_path):
    inst = make_install(tmp_path / "cfg", workflows={}, agents={"bare": {"canonical": None, "compact": None}})
    code, out, _ = skills("bare", inst, proj_with(tmp_path, False))
    assert code == 0 and json.loads(out) == {"agent": "bare", "compact": False, "variant": None, "path": None, "text": ""}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_agent_names_exit_2(tmp_path, name):
    code, out, err = run_inproc(["agent-skills", name, "--root", str(tmp_path / "none" / "msd-core"), "--cwd", str(tmp_path)])
    assert code == 2 and out == "" and err.count("\n") == 1


def test_unknown_agent_exit_2(tmp_path, inst):
    code, _, err = skills("executer", inst, proj_with(tmp_path, False))
    assert code == 2 and "executor" in err


@pytest.mark.parametrize("compact", [True, False])
def test_tampered_payload_exit_3(tmp_path, inst, compact):
    name = "executor.compact.md" if compact else "executor.md"
    (inst.root / "agent-skills" / name).write_text("EVIL\n")
    code, out, err = skills("executor", inst, proj_with(tmp_path, compact))
    assert code == 3 and "EVIL" not in out and "msd install" in err


def test_planted_compact_variant_is_ignored(tmp_path, inst):
    (inst.root / "agent-skills" / "planner.compact.md").write_text("PLANTED\n")
    code, out, _ = skills("planner", inst, proj_with(tmp_path, True), "--raw")
    assert code == 0 and "PLANTED" not in out and "CANONICAL-PLANNER" in out


def test_no_install_exit_3(tmp_path):
    code, _, err = run_inproc(["agent-skills", "executor", "--root", str(tmp_path / "x" / "msd-core"), "--cwd", str(tmp_path)])
    assert code == 3 and "msd install" in err


def test_registry_payload_outside_agent_skills_is_refused(tmp_path, inst):
    data = json.loads(inst.manifest_path.read_text())
    data["registry"]["agents"]["executor"]["skills"]["canonical"] = "agents/msd-executor.md"
    inst.manifest_path.write_text(json.dumps(data))
    code, _, err = skills("executor", inst, proj_with(tmp_path, False))
    assert code == 3
