"""`msd_run next-step` / `step-done` as agents call them: install-verified flows, exit codes, locks."""

from __future__ import annotations

import json

import pytest

from tests.kit.flowkit import fake_install


@pytest.fixture
def install(tmp_path):
    return fake_install(tmp_path / "cfg")




def _json(r):
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_next_step_from_install_resolves_verified_context(msd_run, install, project):
    (project / ".planning" / "ROADMAP.md").write_text("# Roadmap\n")
    out = _json(msd_run(["next-step", "--workflow", "plan-phase", "--root", str(install), "--var", "phase=02"], cwd=project))
    assert out["step"] == "load-context"
    assert out["context_files"] == [str(project / ".planning" / "ROADMAP.md")]
    r = msd_run(["step-done", "--workflow", "plan-phase", "--root", str(install), "--step", "load-context",
                 "--result", '{"phase": "02", "phase_dir": "02-x"}', "--cwd", str(project)])
    nxt = _json(r)["next"]
    assert nxt["step"] == "research"
    r = msd_run(["step-done", "--workflow", "plan-phase", "--root", str(install), "--step", "research", "--cwd", str(project)])
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "RESEARCH.md does not exist" in r.stderr
    (project / ".planning" / "phases" / "02-x").mkdir(parents=True)
    (project / ".planning" / "phases" / "02-x" / "02-RESEARCH.md").write_text("r")
    nxt = _json(msd_run(["step-done", "--workflow", "plan-phase", "--root", str(install), "--step", "research"], cwd=project))["next"]
    assert str(install / "templates" / "plan.md") in nxt["context_files"]


def test_tampered_flow_is_an_integrity_failure(msd_run, install, project):
    path = install / "flows" / "plan-phase.toml"
    path.write_text(path.read_text().replace('max_visits = 3', 'max_visits = 99'))
    r = msd_run(["next-step", "--workflow", "plan-phase", "--root", str(install)], cwd=project)
    assert r.returncode == 3 and "modified" in r.stderr and "msd install" in r.stderr


def test_unknown_flow_and_bad_names(msd_run, install, project):
    r = msd_run(["next-step", "--workflow", "ship-it", "--root", str(install)], cwd=project)
    assert r.returncode == 2 and "known: execute-phase, new-milestone, new-project, plan-phase" in r.stderr
    for bad in ("../flows/plan-phase", "Plan-Phase", "plan_phase", "a" * 80, ""):
        r = msd_run(["next-step", "--workflow", bad, "--root", str(install)], cwd=project)
        assert r.returncode == 2, bad
        assert "Traceback" not in r.stderr


def test_flow_file_planted_outside_the_manifest_is_not_used(msd_run, install, project):
    (install / "flows" / "planted.toml").write_text((install / "flows" / "plan-phase.toml").read_text().replace("plan-phase", "planted"))
    r = msd_run(["next-step", "--workflow", "planted", "--root", str(install)], cwd=project)
    assert r.returncode == 2 and "no flow named 'planted'" in r.stderr


def test_context_file_not_matching_the_manifest_is_not_listed(msd_run, install, project):
    (install / "templates" / "plan.md").write_text("tampered\n")
    (project / ".planning" / "phases" / "01-a").mkdir(parents=True)
    (project / ".planning" / "phases" / "01-a" / "01-RESEARCH.md").write_text("r")
    msd_run(["step-done", "--workflow", "plan-phase", "--root", str(install), "--step", "load-context",
             "--result", '{"phase": "01", "phase_dir": "01-a"}'], cwd=project)
    out = _json(msd_run(["next-step", "--workflow", "plan-phase", "--root", str(install)], cwd=project))
    assert out["step"] == "plan"
    assert not any(p.endswith("templates/plan.md") for p in out["context_files"])
    assert {"path": "msd-core/templates/plan.md", "reason": f"installed file {install / 'templates' / 'plan.md'} was modified (hash mismatch)"} in out["unavailable_context"]


def test_no_install_is_exit_3(msd_run, project):
    r = msd_run(["next-step", "--workflow", "plan-phase"], cwd=project)
    assert r.returncode == 3 and "msd install" in r.stderr


def test_invalid_installed_flow_is_reported_with_its_line(msd_run, tmp_path, project):
    bad = 'workflow = "plan-phase"\nversion = 1\nstart = "a"\n[[steps]]\nid = "a"\naction = "fly"\nprompt = "p"\nnext = "z"\n[[steps]]\nid = "z"\naction = "done"\n'
    install = fake_install(tmp_path / "cfg2", flows={"plan-phase": bad})
    r = msd_run(["next-step", "--workflow", "plan-phase", "--root", str(install)], cwd=project)
    assert r.returncode == 3 and "plan-phase.toml:6: step 'a': unknown action 'fly'" in r.stderr


def test_corrupt_state_file_is_reported_and_kept(msd_run, install, project):
    state = project / ".planning" / "state.json"
    state.write_text('{"version": 1, "workflows": {')
    for args in (["next-step", "--workflow", "plan-phase"],
                 ["step-done", "--workflow", "plan-phase", "--step", "load-context", "--result", '{"phase":"1","phase_dir":"01-a"}']):
        r = msd_run(args + ["--root", str(install)], cwd=project)
        assert r.returncode == 2 and "not valid JSON" in r.stderr and "line 1" in r.stderr
    assert state.read_text() == '{"version": 1, "workflows": {'
    state.write_text('{"version": 1, "workflows": {"plan-phase": {"current": 7}}}')
    r = msd_run(["next-step", "--workflow", "plan-phase", "--root", str(install)], cwd=project)
    assert r.returncode == 2 and "--restart" in r.stderr


def _open_plan(project):
    folder = project / ".planning" / "phases" / "01-a"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "01-01-PLAN.md").write_text("---\nwave: 1\n---\n# 01-01\n")


def test_state_keeps_other_workflows_and_custom_state_file(msd_run, install, project):
    state = project / ".planning" / "state.json"
    state.write_text(json.dumps({"version": 1, "workflows": {"other": {"current": "x"}}, "note": "keep"}))
    _open_plan(project)
    _json(msd_run(["step-done", "--workflow", "execute-phase", "--root", str(install), "--step", "discover-plans",
                   "--result", '{"phase": "1", "phase_dir": "01-a"}'], cwd=project))
    doc = json.loads(state.read_text())
    assert doc["note"] == "keep" and doc["workflows"]["other"] == {"current": "x"}
    assert doc["workflows"]["execute-phase"]["current"] == "execute-wave"
    custom = project / "elsewhere.json"
    _json(msd_run(["next-step", "--workflow", "execute-phase", "--root", str(install), "--state-file", str(custom),
                   "--var", "phase=3"], cwd=project))
    assert json.loads(custom.read_text())["workflows"]["execute-phase"]["vars"] == {"phase": "03"}  # canonical phase id


def test_held_lock_is_exit_4(msd_run, install, project):
    import filelock

    lock = filelock.FileLock(str(project / ".planning" / ".msd" / "flow-state.lock"))
    (project / ".planning" / ".msd").mkdir(parents=True, exist_ok=True)
    with lock.acquire(timeout=1):
        r = msd_run(["step-done", "--workflow", "plan-phase", "--root", str(install), "--step", "load-context",
                     "--result", '{"phase": "1", "phase_dir": "01-a"}'], cwd=project, env={"MSD_LOCK_TIMEOUT": "0.3"})
    assert r.returncode == 4
    assert not (project / ".planning" / "state.json").exists()


def test_concurrent_step_done_records_once(msd_run, install, project):
    import subprocess
    import sys

    _open_plan(project)
    args = [sys.executable, "-m", "msd_core.run", "step-done", "--workflow", "execute-phase", "--root", str(install),
            "--step", "discover-plans", "--result", '{"phase": "1", "phase_dir": "01-a"}']
    procs = [subprocess.Popen(args, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
             for _ in range(4)]
    outs = [json.loads(p.communicate(timeout=60)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(o["repeated"] for o in outs) == [False, True, True, True]
    doc = json.loads((project / ".planning" / "state.json").read_text())
    assert len(doc["workflows"]["execute-phase"]["history"]) == 1


def test_help_and_missing_arguments(msd_run):
    r = msd_run(["next-step", "--help"])
    assert r.returncode == 0 and "--flows-dir" in r.stdout and "--var" in r.stdout
    r = msd_run(["step-done", "--workflow", "plan-phase"])
    assert r.returncode == 2 and "--step" in r.stderr


def test_hot_path_imports_no_heavy_frameworks(install, project):
    import subprocess
    import sys

    code = (
        "import sys; from msd_core.run.dispatch import main; "
        f"main(['next-step','--workflow','plan-phase','--root',{str(install)!r}]); "
        "bad=[m for m in ('typer','rich','click','pydantic') if m in sys.modules]; "
        "sys.stderr.write(repr(bad))"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True, timeout=60)
    assert r.stderr.strip().endswith("[]"), r.stderr


def test_report_hint_quotes_root_as_shlex_does():
    import shlex

    from msd_core.flows.service import _shell_word

    for text in ["/home/u/.claude/msd-core", ".claude/msd-core", "a b", "it's", "", "x;rm -rf", "é/x", "a\tb",
                 "@%+=:,./-_", "$HOME", "tab\there", "\u00a0nbsp"]:
        assert _shell_word(text) == shlex.quote(text), text
