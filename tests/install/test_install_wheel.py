"""Build the wheel, install it into a fresh venv, run `msd install --local` from it.

Proves the content ships as package data and is read through importlib.resources, not from
the checkout. Needs PyPI for the wheel's dependencies (skips when unreachable).
"""

from __future__ import annotations

import json
import subprocess
import zipfile

import pytest

from tests.kit.wheel_venv import wheel_env

pytestmark = pytest.mark.slow


def _run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600, **kw)


def test_wheel_installs_and_msd_install_local_works(tmp_path, isolated_home, wheel_venv):
    wheel, venv = wheel_venv  # built with `pip wheel`, installed into a fresh venv (tests/kit/wheel_venv.py)
    env = wheel_env()  # this test's HOME
    names = zipfile.ZipFile(wheel).namelist()
    shipped = [n for n in names if n.startswith("msd_core/content/")]
    assert any(n.startswith("msd_core/content/commands/msd/") for n in shipped), "content is not in the wheel"

    project = tmp_path / "project"
    project.mkdir()
    # run from the project folder so the checkout is not importable: the venv's copy is used
    res = _run([str(venv / "bin" / "msd"), "install", "--local", "--json"], cwd=project, env=env)
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["source"] == "package msd_core/content"
    where = _run([str(venv / "bin" / "python"), "-c", "import msd_core, sys; print(msd_core.__file__)"], cwd=project, env=env)
    assert str(venv) in where.stdout, where.stdout

    cfg = project / ".claude"
    manifest = json.loads((cfg / "msd-core/manifest.json").read_text())
    assert manifest["scope"] == "local" and manifest["target"] == ".claude"  # portable
    assert any(p.startswith("skills/msd-") for p in manifest["files"])
    assert any(p.startswith("agents/msd-") for p in manifest["files"])
    assert any(p.startswith("msd-core/workflows/") for p in manifest["files"])
    assert manifest["registry"]["workflows"]
    for rel in manifest["files"]:
        assert b"~/.claude/" not in (cfg / rel).read_bytes(), rel
    assert (venv / "bin" / "msd_run").exists()

    # the hooks as the install registered them start from the venv: the guard's lean start (msd's python,
    # -I -S, msd_core's folder in the venv) refuses a read of .env; msd_run's probe answers
    hooks = json.loads((cfg / "settings.local.json").read_text())["hooks"]
    (guard,) = {json.dumps(h) for g in hooks["PreToolUse"] if g.get("matcher") == "Read" for h in g["hooks"]}
    guard = json.loads(guard)
    assert guard["command"] == str(venv / "bin" / "python") and guard["args"][:3] == ["-I", "-S", "-c"]
    assert "site-packages" in guard["args"][3] and str(venv) in guard["args"][3]  # msd_core's folder: the venv's site-packages
    (project / ".env").write_text("TOKEN=x\n")
    payload = {"hook_event_name": "PreToolUse", "cwd": str(project), "tool_name": "Read",
               "tool_input": {"file_path": str(project / ".env")}}
    r = subprocess.run([guard["command"], *guard["args"]], input=json.dumps(payload), capture_output=True, text=True,
                       cwd=project, env={**env, "CLAUDE_PROJECT_DIR": str(project)}, timeout=60)
    assert r.returncode == 0 and '"permissionDecision": "deny"' in r.stdout, (r.stdout, r.stderr)
    probe = _run([hooks["SessionStart"][0]["hooks"][0]["command"], "hook", "probe"], cwd=project, env=env)
    assert probe.stdout.strip() == "ok", probe.stderr
