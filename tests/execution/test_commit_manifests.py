"""`msd_run commit` and package manifests (issue 30 item 5): a change to a manifest or lock file the
plan does not name is the user's decision: refused unless `--deviation` records their approval."""

from __future__ import annotations

import json

import pytest

from msd_core.execution.manifests import is_manifest, undeclared
from tests.kit.gitkit import git, make_project, run_msd

PLANS = {"02-01": {"wave": 1, "files": ["src/app.js", "src/"], "tasks": 1},
         "02-02": {"wave": 1, "files": ["src/b.js", "package.json", "package-lock.json"], "tasks": 1}}


@pytest.mark.parametrize("rel,yes", [
    ("package.json", True), ("web/package-lock.json", True), ("yarn.lock", True), ("pnpm-lock.yaml", True),
    ("pyproject.toml", True), ("requirements.txt", True), ("requirements-dev.txt", True), ("requirements/base.txt", True),
    ("poetry.lock", True), ("uv.lock", True), ("Cargo.toml", True), ("crates/x/Cargo.lock", True), ("go.mod", True),
    ("go.sum", True), ("Gemfile.lock", True), ("src/App.csproj", True),
    ("src/package.js", False), ("docs/requirements.md", False), ("my-package.json.bak", False), ("README.md", False),
])
def test_what_counts_as_a_manifest(rel, yes):
    assert is_manifest(rel) is yes


def test_a_declared_folder_does_not_declare_the_manifest_inside_it():
    assert undeclared(["src/package.json", "src/a.js"], ["src/"]) == ["src/package.json"]
    assert undeclared(["package.json"], ["package.json"]) == []
    assert undeclared(["go.mod"], None) == ["go.mod"]


def _setup(tmp_path):
    root = tmp_path / "p"
    phase = make_project(root, PLANS, extra_files={"package.json": '{"name": "demo"}\n'})
    return root, phase


def test_an_undeclared_manifest_change_is_refused_then_recorded_with_the_approval(tmp_path):
    root, phase = _setup(tmp_path)
    plan = str(phase / "02-01-PLAN.md")
    (root / "src").mkdir()
    (root / "src" / "app.js").write_text("x\n")
    (root / "package.json").write_text('{"name": "demo", "dependencies": {"left-padd": "1.0.0"}}\n')
    r = run_msd(["commit", "--plan", plan, "-m", "feat(02-01): app", "--", "src/app.js", "package.json"], root)
    assert r.returncode == 1 and "package.json" in r.stderr and "user's approval" in r.stderr
    assert "Traceback" not in r.stderr
    assert git(root, "log", "--format=%s").splitlines() == ["init"]  # nothing committed
    assert git(root, "diff", "--cached", "--name-only").strip() == ""  # nothing staged
    # under a declared folder: still refused
    (root / "src" / "package.json").write_text("{}\n")
    r = run_msd(["commit", "--plan", plan, "-m", "feat(02-01): sub", "--", "src/package.json"], root)
    assert r.returncode == 1 and "src/package.json" in r.stderr
    # with the user's approval
    r = run_msd(["commit", "--plan", plan, "-m", "feat(02-01): app", "--deviation", "user approved left-pad 1.3.0",
                 "--", "src/app.js", "package.json"], root)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["dependency_change"] == ["package.json"] and out["deviation"] == "user approved left-pad 1.3.0"
    rec = json.loads(run_msd(["commit", "--plan", plan, "--list"], root).stdout)
    assert rec["commits"][0]["dependency_change"] == ["package.json"]
    body = git(root, "log", "-1", "--format=%B")
    assert "Msd-Deviation: user approved left-pad 1.3.0" in body and "Msd-Plan: 02-demo/02-01" in body


def test_a_manifest_the_plan_names_commits_as_any_declared_file(tmp_path):
    root, phase = _setup(tmp_path)
    (root / "package.json").write_text('{"name": "demo", "version": "2.0.0"}\n')
    (root / "package-lock.json").write_text("{}\n")
    r = run_msd(["commit", "--plan", str(phase / "02-02-PLAN.md"), "-m", "chore(02-02): deps", "--",
                 "package.json", "package-lock.json"], root)
    assert r.returncode == 0, r.stderr
    assert "dependency_change" not in json.loads(r.stdout)
    assert "Msd-Deviation" not in git(root, "log", "-1", "--format=%B")


def test_without_a_plan_a_manifest_change_needs_the_approval_too(tmp_path):
    root, _phase = _setup(tmp_path)
    (root / "package.json").write_text('{"name": "demo", "dependencies": {"x": "1"}}\n')
    r = run_msd(["commit", "-m", "fix: deps", "--", "package.json"], root)
    assert r.returncode == 1 and "no plan names" in r.stderr
    r = run_msd(["commit", "-m", "fix: deps", "--deviation", "approved by the user: x 1", "--", "package.json"], root)
    assert r.returncode == 0, r.stderr
    assert "Msd-Deviation: approved by the user: x 1" in git(root, "log", "-1", "--format=%B")
