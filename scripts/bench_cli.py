#!/usr/bin/env python3
"""What `msd`'s start-up costs per command, and what any path around typer would save.

`msd` is the people's command (install, status, help); agents call `msd_run`. This script
times, round-robin in one run so machine load hits every variant alike, each command as

  msd        the console script users run (`python -m msd_core`), as the code stands
  typer      the same typer app run by `msd_core.cli.helpstyle.run_typer`, no shortcut before it
  baseline   `python -I -S -c pass`: the interpreter alone

and prints, per command, the minimum over --runs of wall and CPU (user + system) time, the
ratio of each variant to the baseline of the same run, and `msd - typer` in milliseconds (what
a shortcut would save). The commands: `msd --help`, `msd install --help`, `msd status`,
`msd install --local` (a no-op after a first install in a temporary git project) and
`msd --version`.

    .venv/bin/python scripts/bench_cli.py [--runs 15] [--json]

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TYPER = ("import sys; from msd_core.cli.app import build_app; from msd_core.cli.helpstyle import run_typer; "
         "sys.exit(run_typer(build_app(), sys.argv[1:]))")

COMMANDS = [
    ("--help", ["--help"]),
    ("install --help", ["install", "--help"]),
    ("status", ["status"]),
    ("install --local (no-op)", ["install", "--local"]),
    ("--version", ["--version"]),
]


def variants(py: str) -> dict[str, list[str]]:
    return {"msd": [py, "-m", "msd_core"], "typer": [py, "-c", TYPER]}


def timed(cmd: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one process, which must exit 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, timeout=120)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.decode(errors='replace')[-400:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def project(work: Path, env: dict, py: str) -> Path:
    """A git project with msd installed locally (so `install --local` is a no-op and `status` has one to read)."""
    root = work / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    subprocess.run([py, "-m", "msd_core", "install", "--local"], cwd=root, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    return root


def measure(runs: int) -> dict:
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="msd-bench-cli-") as tmp:
        work = Path(tmp)
        (work / "home").mkdir()
        env = dict(os.environ, HOME=str(work / "home"), PYTHONPATH=str(REPO), NO_COLOR="1")
        env.pop("CLAUDE_CONFIG_DIR", None)
        root = project(work, env, py)
        base = [py, "-I", "-S", "-c", "pass"]
        runs_of: dict[str, list[tuple[float, float]]] = {}
        for _ in range(runs):
            runs_of.setdefault("baseline", []).append(timed(base, root, env))
            for label, args in COMMANDS:
                for name, head in variants(py).items():
                    runs_of.setdefault(f"{label}|{name}", []).append(timed([*head, *args], root, env))
    best = {key: (min(w for w, _ in vals), min(c for _, c in vals)) for key, vals in runs_of.items()}
    b_wall, b_cpu = best["baseline"]
    rows = []
    for label, _args in COMMANDS:
        (mw, mc), (tw, tc) = best[f"{label}|msd"], best[f"{label}|typer"]
        rows.append({"command": label, "msd_wall_ms": round(mw * 1000, 1), "msd_cpu_ms": round(mc * 1000, 1),
                     "typer_wall_ms": round(tw * 1000, 1), "typer_cpu_ms": round(tc * 1000, 1),
                     "msd_vs_baseline_wall": round(mw / b_wall, 2), "typer_vs_baseline_wall": round(tw / b_wall, 2),
                     "saved_wall_ms": round((tw - mw) * 1000, 1), "saved_cpu_ms": round((tc - mc) * 1000, 1)})
    return {"runs": runs, "baseline_wall_ms": round(b_wall * 1000, 1), "baseline_cpu_ms": round(b_cpu * 1000, 1),
            "rows": rows}


def run(doc: str, runs: int, measure_fn, show, argv: list[str] | None) -> int:
    """A benchmark's command line (--runs N, --json): its figures as JSON, or `show(figures)`."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--runs", type=int, default=runs, help=f"rounds; each figure is the minimum (default {runs})")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    out = measure_fn(max(1, args.runs))
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        show(out)
    return 0


def show(out: dict) -> None:
    print(f"baseline (python -I -S -c pass): {out['baseline_wall_ms']} ms wall, {out['baseline_cpu_ms']} ms CPU; "
          f"min of {out['runs']} runs")
    print(f"{'command':<26}{'msd ms':>10}{'x base':>8}{'typer ms':>10}{'x base':>8}{'saved ms':>10}{'saved CPU':>10}")
    for r in out["rows"]:
        print(f"{r['command']:<26}{r['msd_wall_ms']:>10}{r['msd_vs_baseline_wall']:>8}{r['typer_wall_ms']:>10}"
              f"{r['typer_vs_baseline_wall']:>8}{r['saved_wall_ms']:>10}{r['saved_cpu_ms']:>10}")


def main(argv: list[str] | None = None) -> int:
    return run(__doc__, 15, measure, show, argv)


if __name__ == "__main__":
    sys.exit(main())
