"""Settings per project, preferences per person: a personal key (mode, model_profile, ...) can have
the person's own value in `.planning/.msd/personal.json` (never committed), which wins for them;
a setting the team shares never comes from there; `config list` names each value's layer."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tests.kit.gitkit import git, new_repo, run_msd


def project(tmp_path):
    root = new_repo(tmp_path / "p")
    (root / ".planning").mkdir()
    (root / ".planning/config.json").write_text(json.dumps({"mode": "interactive", "model_profile": "quality",
                                                            "testing": {"command": "pytest -q"}}, indent=2) + "\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "config")
    return root


def get(root, key):
    return json.loads(run_msd(["config", "get", key], root).stdout)


def sources(root) -> dict:
    return {e["key"]: (e["value"], e["source"], e.get("problem")) for e in
            json.loads(run_msd(["config", "list", "--json"], root).stdout)}


def test_a_personal_value_wins_for_its_person_and_is_never_committed(tmp_path):
    root = project(tmp_path)
    shared = (root / ".planning/config.json").read_bytes()
    r = run_msd(["config", "set", "model_profile", "budget", "--personal"], root)
    assert r.returncode == 0 and json.loads(r.stdout)["layer"] == "personal"
    assert get(root, "model_profile") == "budget"
    assert sources(root)["model_profile"] == ("budget", "personal", None)
    assert sources(root)["mode"] == ("interactive", "project", None)
    assert (root / ".planning/config.json").read_bytes() == shared
    assert json.loads((root / ".planning/.msd/personal.json").read_text()) == {"model_profile": "budget"}
    assert git(root, "status", "--porcelain").strip() == ""  # msd's private folder ignores itself
    line = run_msd(["config", "list"], root).stdout
    assert "model_profile = budget  (personal)" in line and "testing.command = pytest -q  (project)" in line
    r = run_msd(["config", "unset", "model_profile", "--personal"], root)
    assert r.returncode == 0 and get(root, "model_profile") == "quality"


def test_the_model_a_subagent_gets_follows_the_personal_profile(tmp_path):
    root = project(tmp_path)
    quality = run_msd(["model", "executor", "--raw"], root).stdout
    run_msd(["config", "set", "model_profile", "budget", "--personal"], root)
    budget = run_msd(["model", "executor", "--raw"], root).stdout
    run_msd(["config", "set", "model_profile", "budget"], tmp_path / "p")  # the same via the shared file
    assert budget == run_msd(["model", "executor", "--raw"], root).stdout and budget != quality


def test_a_shared_setting_is_refused_there_and_ignored_if_written_by_hand(tmp_path):
    root = project(tmp_path)
    r = run_msd(["config", "set", "testing.command", "make test", "--personal"], root)
    assert r.returncode == 2 and "the team shares" in r.stderr and not (root / ".planning/.msd/personal.json").exists()
    assert run_msd(["config", "unset", "git.branching_strategy", "--personal"], root).returncode == 2
    (root / ".planning/.msd").mkdir(exist_ok=True)
    (root / ".planning/.msd/personal.json").write_text(json.dumps({"testing": {"command": "rm -rf /"}, "mode": "yolo"}))
    assert get(root, "testing.command") == "pytest -q"
    value, source, problem = sources(root)["testing.command"]
    assert (value, source) == ("pytest -q", "project") and "ignored there" in problem
    assert sources(root)["mode"][:2] == ("yolo", "personal")


def test_a_damaged_personal_file_is_a_clear_error(tmp_path):
    root = project(tmp_path)
    (root / ".planning/.msd").mkdir(exist_ok=True)
    (root / ".planning/.msd/personal.json").write_text("{oops")
    r = run_msd(["config", "get", "mode"], root)
    assert r.returncode == 2 and "personal config" in r.stderr and "line 1" in r.stderr


def test_msd_config_list_names_the_personal_layer(tmp_path, monkeypatch):
    from msd_core.cli.app import app

    root = project(tmp_path)
    r = CliRunner().invoke(app, ["config", "set", "mode", "yolo", "--personal", "--cwd", str(root)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["config", "list", "--cwd", str(root)])
    assert "personal config (yours, not committed):" in r.output
    row = next(line for line in r.output.splitlines() if line.split()[:1] == ["mode"])
    assert "yolo" in row and "personal" in row
