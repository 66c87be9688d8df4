#!/usr/bin/env python3
"""A fixture phase of 4 plans in 2 waves, executed both ways side by side in one run.

Each plan is run by a simulated executor (tests/kit/sim_executor.py, its own process): per
task it writes the plan's files, waits `--work` seconds (standing in for the agent's
work) and commits through `msd_run commit --plan --task`; then it writes and commits the
SUMMARY. The orchestration is the content's, with real commands:

  parallel    per wave: `msd_run wave plan`; one git worktree and branch per plan (what
              the Agent tool's `isolation: "worktree"` makes); every executor of a batch
              at once, each first `msd_run wave sync --base <base>`; then
              `msd_run wave merge`; then `msd_run gate run`.
  sequential  the same project with parallelization.isolation none: one executor at a
              time in the project itself; `msd_run gate run` after each wave.

Prints, for each mode: wall time, the git log mapped plans -> commits (first parent and
each merge's commits), the gate runs; then the ratio sequential/parallel.

Usage: scripts/bench_waves.py [--work 1.5] [--tasks 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from tests.kit.gitkit import commits, git, make_project, run_msd, start_executor  # noqa: E402

PLANS = {
    "02-01": {"wave": 1, "files": ["src/models.py", "tests/test_models.py"]},
    "02-02": {"wave": 1, "files": ["src/hashing.py", "tests/test_hashing.py"]},
    "02-03": {"wave": 2, "files": ["src/api.py", "tests/test_api.py"], "depends_on": ["02-01"]},
    "02-04": {"wave": 2, "files": ["src/session.py", "tests/test_session.py"], "depends_on": ["02-02"]},
}


def _check(r, what):
    if r.returncode != 0:
        raise SystemExit(f"{what} failed ({r.returncode}): {r.stderr.strip()}")
    return json.loads(r.stdout) if r.stdout.strip().startswith(("{", "[")) else r.stdout


def run_mode(base: Path, mode: str, work: float, tasks: int) -> dict:
    root = base / mode
    suite = f"{shlex.quote(sys.executable)} -c \"import pathlib, sys; sys.exit(0 if all(p.read_text() for p in pathlib.Path('src').glob('*.py')) else 1)\""
    config = {"testing": {"command": suite},
              "parallelization": {"enabled": True, "max_concurrent_agents": 3,
                                  "isolation": "worktree" if mode == "parallel" else "none"}}
    specs = {pid: dict(spec, tasks=tasks) for pid, spec in PLANS.items()}
    phase = make_project(root, specs, config=config)
    start = time.monotonic()
    waves = 0
    while True:
        plan = _check(run_msd(["wave", "plan", "--phase-dir", phase.name], root), "wave plan")
        if not plan["runnable"]:
            break
        waves += 1
        wave = plan["next_wave"]
        for batch in plan["batches"]:
            procs = []
            for pid in batch["plans"]:
                files = PLANS[pid]["files"]
                if batch["isolation"] == "worktree":
                    wt = root / ".claude" / "worktrees" / f"agent-{pid}"
                    git(root, "worktree", "add", "-q", "-b", f"worktree-agent-{pid}", str(wt), "HEAD")
                    _check(run_msd(["wave", "sync", "--base", plan["base"]], wt), "wave sync")
                    plan_path = wt / ".planning" / "phases" / phase.name / f"{pid}-PLAN.md"
                    procs.append(start_executor(wt, plan_path, files, tasks=tasks, delay=work))
                else:
                    procs.append(start_executor(root, phase / f"{pid}-PLAN.md", files, tasks=tasks, delay=work))
            for p in procs:
                _out, err = p.communicate(timeout=600)
                if p.returncode != 0:
                    raise SystemExit(f"executor failed: {err}")
        if plan["mode"] == "parallel":
            _check(run_msd(["wave", "merge", "--phase-dir", phase.name, "--wave", str(wave)], root), "wave merge")
        gate = run_msd(["gate", "run", "--label", f"phase 02 wave {wave}"], root)
        if gate.returncode != 0:
            raise SystemExit(f"gate failed: {gate.stdout}")
    wall = time.monotonic() - start
    log = commits(root, first_parent=True)
    mapping: dict[str, list[str]] = {}
    for c in commits(root):
        if c["subject"].startswith("merge(") or c["subject"] == "init":
            continue
        pid = c["subject"].split("(", 1)[1].split(")", 1)[0]
        mapping.setdefault(pid, []).append(f"{c['hash'][:7]} {c['subject']} [{', '.join(c['files'])}]")
    gate_runs = _check(run_msd(["gate", "status"], root), "gate status")["runs"]
    return {
        "mode": mode, "waves": waves, "wall_s": round(wall, 2),
        "first_parent": [f"{c['hash'][:7]} {c['subject']}" for c in log],
        "plans_to_commits": {pid: list(reversed(v)) for pid, v in sorted(mapping.items())},
        "gate_runs": [{k: g[k] for k in ("label", "status", "duration_s")} for g in gate_runs],
        "clean": git(root, "status", "--porcelain", "--untracked-files=no") == "",
        "worktrees_left": len(git(root, "worktree", "list").splitlines()) - 1,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=float, default=1.5, help="seconds of simulated work per task")
    ap.add_argument("--tasks", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="msd-bench-waves-") as tmp:
        results = [run_mode(Path(tmp), m, args.work, args.tasks) for m in ("parallel", "sequential")]
    par, seq = results
    ratio = round(seq["wall_s"] / par["wall_s"], 2) if par["wall_s"] else None
    if args.json:
        print(json.dumps({"results": results, "sequential_over_parallel": ratio}, indent=1))
        return 0
    for r in results:
        print(f"== {r['mode']}: {r['waves']} waves, {r['wall_s']} s, tree clean: {r['clean']}, worktrees left: {r['worktrees_left']}")
        print("  first-parent history (newest first):")
        for line in r["first_parent"]:
            print(f"    {line}")
        print("  plans -> commits:")
        for pid, lines in r["plans_to_commits"].items():
            for line in lines:
                print(f"    {pid}: {line}")
        print("  gate runs:")
        for g in r["gate_runs"]:
            print(f"    {g['label']}: {g['status']} ({g['duration_s']} s)")
    print(f"wall time sequential / parallel: {ratio}  (work {args.work} s per task, {args.tasks} tasks per plan)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
