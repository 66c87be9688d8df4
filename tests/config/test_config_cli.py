"""`msd config get|set|unset|list`: the people-facing verbs over the same store."""

from __future__ import annotations

import json

from tests.kit.installed import make_project


def test_msd_config_round_trip(tmp_path, msd):
    proj = make_project(tmp_path / "p", {"mode": "yolo", "custom": {"x": 1}})
    cfg = proj / ".planning" / "config.json"
    r = msd(["config", "get", "mode"], cwd=proj)
    assert (r.returncode, r.stdout) == (0, "yolo\n")
    r = msd(["config", "get", "granularity", "--json"], cwd=proj)
    data = json.loads(r.stdout)
    assert data["value"] == "standard" and data["source"] == "default" and data["schema_version"] == 1
    r = msd(["config", "set", "workflow.research", "off", "--json"], cwd=proj)
    assert r.returncode == 0 and json.loads(r.stdout)["value"] is False
    assert json.loads(cfg.read_text()) == {"mode": "yolo", "custom": {"x": 1}, "workflow": {"research": False}}
    r = msd(["config", "unset", "mode"], cwd=proj)
    assert r.returncode == 0 and "removed mode" in r.stdout
    r = msd(["config", "list", "--json"], cwd=proj)
    entries = {e["key"]: e for e in json.loads(r.stdout)["entries"]}
    assert entries["custom.x"]["known"] is False and entries["workflow.research"]["value"] is False


def test_msd_config_refusals_are_one_line_and_leave_the_file(tmp_path, msd):
    proj = make_project(tmp_path / "p", {"mode": "yolo"})
    cfg = proj / ".planning" / "config.json"
    before = cfg.read_bytes()
    r = msd(["config", "set", "mode", "fast"], cwd=proj)
    assert r.returncode == 2 and "interactive, yolo" in r.stderr and r.stderr.count("\n") == 1
    r = msd(["config", "set", "workflow.reserch", "true"], cwd=proj)
    assert r.returncode == 2 and "workflow.research" in r.stderr
    assert cfg.read_bytes() == before
    cfg.write_text("{broken")
    r = msd(["config", "list"], cwd=proj)
    assert r.returncode == 2 and "line 1 column 2" in r.stderr and "Traceback" not in r.stderr
    assert cfg.read_text() == "{broken"


def test_msd_config_list_warns_on_invalid_stored_values(tmp_path, msd):
    proj = make_project(tmp_path / "p", {"mode": "turbo"})
    r = msd(["config", "list"], cwd=proj)
    assert r.returncode == 0 and "mode" in r.stderr and "turbo" in r.stderr


def test_an_unknown_key_hint_names_the_command_being_typed(tmp_path, msd, msd_run):
    root = make_project(tmp_path)
    for run, prog in ((msd, "msd"), (msd_run, "msd_run")):
        for argv in (["config", "get", "zzqx"], ["config", "set", "zzqx", "1"]):
            r = run(argv, cwd=root)
            lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
            assert r.returncode == 2 and len(lines) == 1, r.stderr
            assert f"see `{prog} config list`" in lines[0], (prog, lines[0])
