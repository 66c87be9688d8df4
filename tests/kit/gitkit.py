"""Real git repositories holding an msd project, and simulated executors, for execution tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import repo_env

REPO = Path(__file__).resolve().parents[2]
SIM = Path(__file__).resolve().parent / "sim_executor.py"


def git(cwd, *args, check=True) -> str:
    proc = subprocess.run(["git", *args], cwd=str(cwd), capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def new_repo(root: Path) -> Path:
    """An empty git repository on branch main with a test identity and unsigned commits."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "user.name", "msd test")
    git(root, "config", "commit.gpgsign", "false")
    git(root, "config", "tag.gpgsign", "false")
    return root


def run_msd(args, cwd, timeout=120, env_extra=None) -> subprocess.CompletedProcess:
    """`msd_run ARGS` in a fresh interpreter (this checkout on PYTHONPATH), with env_extra set."""
    env = repo_env(**(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "msd_core.run", *args], cwd=str(cwd), capture_output=True,
                          text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)


def plan_text(pid: str, wave: int, files: list[str], depends_on: list[str] | None = None, tasks: int = 2) -> str:
    phase = pid.split("-")[0]
    task_xml = "\n".join(
        f'<task type="auto">\n  <name>Task {i}: step {i}</name>\n  <files>{", ".join(files)}</files>\n</task>'
        for i in range(1, tasks + 1))
    return (f"---\nphase: {phase}-demo\nplan: {pid.split('-')[1]}\ntype: execute\nwave: {wave}\n"
            f"depends_on: [{', '.join(depends_on or [])}]\nfiles_modified: [{', '.join(files)}]\nautonomous: true\n---\n"
            f"<objective>demo {pid}</objective>\n<tasks>\n{task_xml}\n</tasks>\n")


def make_project(root: Path, plans: dict[str, dict], *, config: dict | None = None, phase_dir: str = "02-demo",
                 extra_files: dict[str, str] | None = None) -> Path:
    """A git repo with .planning/ and one phase folder; everything committed. Returns the phase folder."""
    new_repo(root)
    planning = root / ".planning"
    phase = planning / "phases" / phase_dir
    phase.mkdir(parents=True)
    cfg = {"commit_docs": True}
    cfg.update(config or {})
    (planning / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    (planning / "STATE.md").write_text("# Project State\n\n## Current Position\nPhase: 2 of 2 (Demo)\nStatus: Ready to execute\n")
    for pid, spec in plans.items():
        (phase / f"{pid}-PLAN.md").write_text(plan_text(pid, spec.get("wave", 1), spec["files"], spec.get("depends_on"),
                                                        spec.get("tasks", 2)))
    for rel, text in (extra_files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "README.md").write_text("demo\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    command = (cfg.get("testing") or {}).get("command")
    if command:  # the user confirmed it on this machine (recorded in git-ignored .planning/.msd/)
        r = run_msd(["gate", "confirm", "--command", command], root)
        assert r.returncode == 0, r.stderr
    return phase


def start_executor(cwd: Path, plan: Path, files: list[str], *, tasks: int = 2, start_at: float | None = None,
                   tag: str = "", summary: bool = True, delay: float = 0.0) -> subprocess.Popen:
    """A simulated msd-executor (a separate process) committing each task through `msd_run commit`."""
    env = repo_env()
    spec = json.dumps({"plan": str(plan), "files": files, "tasks": tasks, "start_at": start_at, "tag": tag,
                       "summary": summary, "delay": delay})
    return subprocess.Popen([sys.executable, str(SIM), spec], cwd=str(cwd), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)


def commits(cwd, rev="HEAD", first_parent=False) -> list[dict]:
    """[{hash, subject, files}] newest first."""
    args = ["log", "--format=%H%x1f%s", rev] + (["--first-parent"] if first_parent else [])
    out = []
    for line in git(cwd, *args).splitlines():
        h, subject = line.split("\x1f", 1)
        files = [f for f in git(cwd, "diff-tree", "--root", "--no-commit-id", "--name-only", "-r", h).splitlines() if f]
        out.append({"hash": h, "subject": subject, "files": files})
    return out
