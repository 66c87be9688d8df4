"""msd_run's hot commands import no heavy framework: run each in a fresh interpreter
through msd_core.run.dispatch.main and inspect sys.modules afterwards."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from installed import make_install, make_project

BANNED = ("typer", "rich", "click", "pydantic", "yaml", "filelock", "tomllib", "tomli")

PROBE = r"""
import io, json, sys, contextlib
exec(sys.argv[3] if len(sys.argv) > 3 else "")
from msd_core.run.dispatch import main
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    code = main(json.loads(sys.argv[1]))
with open(sys.argv[2], "w") as fh:
    json.dump({"code": code, "out": buf.getvalue(), "modules": sorted(sys.modules)}, fh)
"""


def probe(argv, cwd, tmp_path, pre: str = ""):
    result = tmp_path / "probe.json"
    r = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv), str(result), pre], cwd=str(cwd),
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(result.read_text())


def heavy(modules):
    return sorted(m for m in modules if m.split(".")[0] in BANNED)


@pytest.fixture
def setup(tmp_path):
    inst = make_install(tmp_path / "cfg")
    proj = make_project(tmp_path / "proj", {"mode": "yolo", "workflow": {"compact_content": False}})
    return inst, proj


@pytest.mark.parametrize("argv", [
    ["config", "get", "mode"],
    ["config", "get", "mode", "--raw"],
    ["config", "list"],
    ["resolve", "plan-phase", "--root", "{root}"],
    ["resolve", "plan-phase", "--root", "{root}", "--raw"],
    ["resolve", "plan-phase", "--root", "{root}", "--emit"],
    ["agent-skills", "executor", "--root", "{root}"],
    ["agent-skills", "planner", "--root", "{root}", "--raw"],
])
def test_hot_commands_import_nothing_heavy(tmp_path, setup, argv):
    inst, proj = setup
    argv = [a.replace("{root}", str(inst.root)) for a in argv]
    res = probe(argv, proj, tmp_path)
    assert res["code"] == 0 and res["out"]
    assert heavy(res["modules"]) == []


def test_probe_can_see_a_heavy_import(tmp_path, setup):
    """The probe would notice a heavy import made during the call."""
    inst, proj = setup
    res = probe(["config", "get", "mode"], proj, tmp_path, pre="import filelock")
    assert res["code"] == 0 and "filelock" in heavy(res["modules"])


@pytest.mark.parametrize("argv", [
    ["config", "set", "mode", "interactive"],
    ["state", "patch", "--status", "Ready"],
])
def test_writes_take_their_lock_without_filelock(tmp_path, setup, argv):
    """Locks are fcntl.flock (standard library): a write loads nothing heavy either."""
    inst, proj = setup
    (proj / ".planning" / "STATE.md").write_text("# Project State\n\n## Current Position\nStatus: Planning\n")
    res = probe(argv, proj, tmp_path)
    assert res["code"] == 0, res
    assert heavy(res["modules"]) == []


def test_trace_on_stays_light(tmp_path, setup, monkeypatch):
    inst, proj = setup
    monkeypatch.setenv("MSD_TRACE", "1")
    res = probe(["resolve", "plan-phase", "--root", str(inst.root)], proj, tmp_path)
    assert res["code"] == 0 and heavy(res["modules"]) == []
    assert (proj / ".planning" / ".msd" / "loads.jsonl").is_file()


def test_builtin_sha256_matches_hashlib(tmp_path):
    import hashlib
    import os

    from msd_core import fsutil

    for n in (0, 1, 55, 56, 63, 64, 65, 4096, 1 << 17):
        data = os.urandom(n)
        assert fsutil.sha256_bytes(data) == hashlib.sha256(data).hexdigest()
        f = tmp_path / f"f{n}"
        f.write_bytes(data)
        assert fsutil.sha256_file(f) == hashlib.sha256(data).hexdigest()


def test_verifying_reads_do_not_load_openssl(tmp_path, setup):
    import importlib.util

    if not (importlib.util.find_spec("_sha256") or importlib.util.find_spec("_sha2")):
        pytest.skip("this Python has no built-in sha256 module")
    inst, proj = setup
    res = probe(["resolve", "plan-phase", "--root", str(inst.root)], proj, tmp_path)
    assert res["code"] == 0 and "_hashlib" not in res["modules"]
