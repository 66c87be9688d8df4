"""The regression gate: detection, time-bounded runs, records, and the execute-phase flow's routing on it."""

from __future__ import annotations

import json
import shlex
import sys
import time

import pytest

from tests.kit.flowkit import fake_install
from tests.kit.gitkit import make_project, run_msd, start_executor

PY = shlex.quote(sys.executable)
SUITE = f"{PY} -c \"import sys; sys.exit(0 if open('src/ok.txt').read().strip() == 'ok' else 1)\""


@pytest.mark.parametrize("files,expected", [
    ({"pyproject.toml": "[tool.pytest.ini_options]\n"}, "python -m pytest -q"),
    ({"setup.py": "", "tests/test_x.py": ""}, "python -m pytest -q"),
    ({"package.json": '{"scripts": {"test": "vitest run"}}'}, "npm test"),
    ({"package.json": '{"scripts": {"test": "vitest run"}}', "pnpm-lock.yaml": ""}, "pnpm test"),
    ({"package.json": '{"scripts": {"test": "echo \\"Error: no test specified\\" && exit 1"}}'}, None),
    ({"package.json": "{broken"}, None),
    ({"Cargo.toml": "[package]\n"}, "cargo test"),
    ({"go.mod": "module x\n"}, "go test ./..."),
    ({"Makefile": "build:\n\tcc x.c\ntest: build\n\t./t\n"}, "make test"),
    ({"Makefile": "build:\n\tcc x.c\n"}, None),
    ({}, None),
])
def test_detect_proposes_the_test_command(tmp_path, files, expected):
    root = tmp_path / "p"
    (root / ".planning").mkdir(parents=True)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    r = run_msd(["gate", "detect"], root)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["command"] == expected and out["configured"] is None


def _project(tmp_path, command):
    root = tmp_path / "p"
    (root / ".planning").mkdir(parents=True)
    (root / ".planning" / "config.json").write_text("{}")
    r = run_msd(["gate", "confirm", "--command", command], root)
    assert r.returncode == 0, r.stderr
    return root


def test_a_command_the_repository_carries_runs_only_once_confirmed(tmp_path):
    """config.json can come from a clone: its testing.command is not run until the user confirms it here."""
    root = tmp_path / "p"
    (root / ".planning").mkdir(parents=True)
    planted = f"{PY} -c \"open('PWNED', 'w').write('x')\""
    (root / ".planning" / "config.json").write_text(json.dumps({"testing": {"command": planted}}))
    r = run_msd(["gate", "run"], root)
    assert r.returncode == 1 and json.loads(r.stdout)["status"] == "unconfirmed" and "gate confirm" in r.stderr
    assert not (root / "PWNED").exists()
    assert (root / ".planning" / ".msd" / "gate" / "failed").is_file()  # the gate does not pass
    # another command confirmed does not confirm this one
    assert run_msd(["gate", "confirm", "--command", "true"], root).returncode == 0
    (root / ".planning" / "config.json").write_text(json.dumps({"testing": {"command": planted}}))
    assert json.loads(run_msd(["gate", "run"], root).stdout)["status"] == "unconfirmed"
    assert run_msd(["gate", "confirm", "--command", planted], root).returncode == 0
    assert run_msd(["gate", "run"], root).returncode == 0 and (root / "PWNED").exists()
    for bad in ("", "a\nb"):
        assert run_msd(["gate", "confirm", "--command", bad], root).returncode == 2


def test_gate_records_pass_fail_duration_and_tail(tmp_path):
    root = _project(tmp_path, f"{PY} -c \"print('x' * 10000); print('FAILED test_login'); raise SystemExit(3)\"")
    r = run_msd(["gate", "run", "--label", "phase 02 wave 1"], root)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "failed" in r.stderr
    entry = json.loads(r.stdout)
    assert entry["status"] == "failed" and entry["exit_code"] == 3 and entry["duration_s"] >= 0
    assert entry["tail"].rstrip().endswith("FAILED test_login") and len(entry["tail"]) <= 4000
    gate = root / ".planning" / ".msd" / "gate"
    assert (gate / "failed").is_file() and json.loads((gate / "last.json").read_text())["label"] == "phase 02 wave 1"
    assert run_msd(["gate", "confirm", "--command", f"{PY} -c pass"], root).returncode == 0
    assert run_msd(["gate", "run", "--label", "again"], root).returncode == 0
    assert not (gate / "failed").exists()
    runs = json.loads(run_msd(["gate", "status"], root).stdout)["runs"]
    assert [x["status"] for x in runs] == ["failed", "passed"]


def test_gate_time_bound_kills_the_whole_suite(tmp_path):
    root = _project(tmp_path, f"{PY} -c \"import subprocess, sys; subprocess.run([sys.executable, '-c', 'import time; time.sleep(60)'])\"")
    start = time.monotonic()
    r = run_msd(["gate", "run", "--timeout", "1"], root, timeout=30)
    assert time.monotonic() - start < 20
    assert r.returncode == 1 and json.loads(r.stdout)["status"] == "timeout"


def test_gate_none_skips_and_unset_asks(tmp_path):
    root = _project(tmp_path, "none")
    r = run_msd(["gate", "run"], root)
    assert r.returncode == 0 and json.loads(r.stdout)["status"] == "skipped"
    run_msd(["config", "unset", "testing.command"], root)
    r = run_msd(["gate", "run"], root)
    assert r.returncode == 1 and json.loads(r.stdout)["status"] == "unconfigured" and "gate detect" in r.stderr
    r = run_msd(["gate", "run", "--timeout", "0"], root)
    assert r.returncode == 2


# ---------------------------------------------------------------- the flow routes on the gate


class Flow:
    def __init__(self, root, install):
        self.root, self.install, self.steps = root, install, []

    def start(self, phase):
        r = run_msd(["next-step", "--workflow", "execute-phase", "--root", str(self.install), "--var", f"phase={phase}"], self.root)
        assert r.returncode == 0, r.stderr
        self.steps.append(json.loads(r.stdout)["step"])
        return self.steps[-1]

    def done(self, step, result):
        r = run_msd(["step-done", "--workflow", "execute-phase", "--root", str(self.install), "--step", step,
                     "--result", json.dumps(result)], self.root)
        assert r.returncode == 0, r.stderr
        self.steps.append(json.loads(r.stdout)["next"]["step"])
        return self.steps[-1]


def _run_phase(tmp_path, breaks: bool):
    root = tmp_path / "p"
    phase = make_project(root, {"02-01": {"wave": 1, "files": ["src/ok.txt"], "tasks": 1}},
                         config={"testing": {"command": SUITE}},
                         extra_files={"src/ok.txt": "ok\n", ".planning/PROJECT.md": "# Demo\n",
                                      ".planning/ROADMAP.md": "# Roadmap\n\n- [x] **Phase 1: Base** - base\n"
                                                              "- [ ] **Phase 2: Demo** - demo\n"})
    install = fake_install(tmp_path / "cfg")
    flow = Flow(root, install)
    assert flow.start("02") == "discover-plans"
    plan = json.loads(run_msd(["wave", "plan", "--phase-dir", "02-demo"], root).stdout)
    assert flow.done("discover-plans", {"phase": "02", "phase_dir": "02-demo", "plans_remaining": plan["plans_remaining"]}) == "execute-wave"
    # the wave: one executor; when `breaks`, its change breaks the suite
    (root / "src" / "ok.txt").write_text("")
    p = start_executor(root, phase / "02-01-PLAN.md", ["src/ok.txt"], tasks=1, tag="broken" if breaks else "ok")
    assert p.wait(timeout=120) == 0, p.stderr.read()
    if not breaks:
        (root / "src" / "ok.txt").write_text("ok\n")
    assert flow.done("execute-wave", {"wave": 1, "plans_remaining": 0, "stuck": False}) == "gate"
    return root, flow


def test_failing_suite_after_a_wave_never_reaches_complete(tmp_path):
    root, flow = _run_phase(tmp_path, breaks=True)
    visited = []
    for _ in range(10):
        step = flow.steps[-1]
        visited.append(step)
        if step == "done":
            break
        if step == "gate":
            g = run_msd(["gate", "run", "--label", "phase 02"], root)
            assert g.returncode == 1
            # even a report claiming success routes on the recorded failure
            flow.done("gate", {"status": "passed"})
        elif step == "fix-up":
            flow.done("fix-up", {"fixed": True})  # the debugger believes it fixed it; the gate disagrees
        elif step == "tests-failing":
            flow.done("tests-failing", {"recorded": True})
        elif step == "update-state" and visited[-2:-1] == ["tests-failing"]:
            flow.done("update-state", {"updated": True})  # commits the record; code ticks nothing while the suite fails
        else:
            pytest.fail(f"the flow reached {step} with a failing suite")
    assert visited == ["gate", "fix-up", "gate", "fix-up", "gate", "tests-failing", "update-state", "done"]
    assert "verify" not in flow.steps
    nxt = json.loads(run_msd(["next"], root).stdout)
    assert nxt["route"] == "fix-tests" and nxt["command"] == "/msd-execute-phase 2"


def test_passing_suite_goes_on_to_verify(tmp_path):
    root, flow = _run_phase(tmp_path, breaks=False)
    assert run_msd(["gate", "run", "--label", "phase 02"], root).returncode == 0
    assert flow.done("gate", {"status": "passed"}) == "verify"


def test_torn_history_line_is_skipped(tmp_path):
    root = _project(tmp_path, "none")
    assert run_msd(["gate", "run", "--label", "a"], root).returncode == 0
    runs = root / ".planning" / ".msd" / "gate" / "runs.jsonl"
    with open(runs, "a") as fh:
        fh.write('{"label": "killed mid-wri')  # a run killed while appending
    r = run_msd(["gate", "status"], root)
    assert r.returncode == 0 and [x["label"] for x in json.loads(r.stdout)["runs"]] == ["a"]
    assert run_msd(["gate", "run", "--label", "b"], root).returncode == 0
