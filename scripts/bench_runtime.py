#!/usr/bin/env python3
"""Benchmark msd_run's hot commands against bare Python and the npm peer, side by side.

For each command: the median wall time of --runs (>= 20) fresh processes, measured in
this run, as a ratio to `python -I -S -c pass` and (when node is present) to
`node gsd-tools.cjs config-get <key>` from get-shit-done-cc@1.42.3. The commands run
against a fake install in a temporary HOME, from a project with a .planning/config.json.

    python scripts/bench_runtime.py [--runs 21] [--json] [--importtime] [--no-peer]
                                    [--gsd-tools PATH] [--peer-prefix DIR]

Goals (issue 3): <= 5x bare python, <= 0.4x the peer. `--importtime` adds the
self/cumulative import times (python -X importtime) of the slowest imports per command.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PEER_PACKAGE = "get-shit-done-cc@1.42.3"
GOAL_VS_PYTHON = 5.0
GOAL_VS_PEER = 0.4


def fake_install(config: Path) -> Path:
    """A small but realistic install: plan-phase with 4 parts of ~6 KB, executor payloads."""
    files, parts = {}, []

    def put(rel: str, text: str) -> None:
        p = config / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        files[rel] = hashlib.sha256(text.encode()).hexdigest()

    put("msd-core/workflows/plan-phase.md", "# plan-phase spine\n")
    for i in range(1, 5):
        rel = f"msd-core/workflows/plan-phase/detail/0{i}-part.md"
        put(rel, f"# part {i}\n" + ("detail text line for the benchmark.\n" * 170))
        parts.append(rel)
    put("agents/msd-executor.md", "# executor\n")
    put("msd-core/agent-skills/executor.md", "# executor skills\n" + "rule\n" * 200)
    put("msd-core/agent-skills/executor.compact.md", "# executor skills (compact)\n" + "rule\n" * 40)
    registry = {"registry_version": 1,
                "workflows": {"plan-phase": {"spine": "msd-core/workflows/plan-phase.md", "parts": parts}},
                "agents": {"executor": {"core": "agents/msd-executor.md", "extensions": {},
                                        "skills": {"canonical": "msd-core/agent-skills/executor.md",
                                                   "compact": "msd-core/agent-skills/executor.compact.md"}}}}
    manifest = {"manifest_version": 1, "package": "msd-core", "version": "bench", "scope": "global",
                "target": str(config), "runtime": "claude", "files": files, "created_dirs": [],
                "registry": registry, "settings_permission": None}
    (config / "msd-core" / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return config / "msd-core"


def find_peer(args, env) -> Path | None:
    if args.no_peer or not shutil.which("node"):
        return None
    if args.gsd_tools:
        p = Path(args.gsd_tools)
        return p if p.is_file() else None
    prefix = Path(args.peer_prefix)
    found = sorted(prefix.glob("node_modules/get-shit-done-cc/**/gsd-tools.cjs"))
    if not found and shutil.which("npm"):
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--ignore-scripts",
                        "--prefix", str(prefix), PEER_PACKAGE], env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300, check=False)
        found = sorted(prefix.glob("node_modules/get-shit-done-cc/**/gsd-tools.cjs"))
    return found[0] if found else None


def run_once(cmd: list[str], cwd: Path, env: dict) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=str(cwd), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd)} failed ({r.returncode}): {r.stderr.decode()[:300]}")
    return dt


def time_all(cmds: dict[str, list[str]], cwd: Path, env: dict, runs: int) -> dict[str, dict]:
    """Round-robin: each round runs every command once (after one warm-up round), so a change
    in machine load hits all commands alike. Median and min wall time per command."""
    samples: dict[str, list[float]] = {k: [] for k in cmds}
    for i in range(runs + 1):
        for label, cmd in cmds.items():
            dt = run_once(cmd, cwd, env)
            if i:
                samples[label].append(dt)
    return {k: {"median_ms": statistics.median(v) * 1000, "min_ms": min(v) * 1000, "runs": runs}
            for k, v in samples.items()}


def importtime(cmd_args: list[str], cwd: Path, env: dict, top: int = 8, repeat: int = 7) -> list[dict]:
    """Slowest imports of one command (python -X importtime): per module the minimum self
    time over `repeat` runs, which filters out the noise of a busy machine."""
    best: dict[str, list[int]] = {}
    totals = []
    for _ in range(repeat):
        r = subprocess.run([sys.executable, "-X", "importtime", "-m", "msd_core.run", *cmd_args], cwd=str(cwd),
                           env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        total = 0
        for line in r.stderr.splitlines():
            if not line.startswith("import time:") or "|" not in line or "self [us]" in line:
                continue
            self_us, cum_us, name = (x.strip() for x in line.split(":", 1)[1].split("|"))
            total += int(self_us)
            cur = best.get(name)
            if cur is None or int(self_us) < cur[0]:
                best[name] = [int(self_us), int(cum_us)]
        totals.append(total)
    rows = sorted(({"module": k, "self_us": v[0], "cumulative_us": v[1]} for k, v in best.items()),
                  key=lambda r: r["self_us"], reverse=True)
    head = {"module": f"(all imports: min total self of {repeat} runs)", "self_us": min(totals),
            "cumulative_us": min(totals)}
    return [head] + rows[:top]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--importtime", action="store_true", help="also report the slowest imports per command")
    ap.add_argument("--no-peer", action="store_true", help="skip the node peer")
    ap.add_argument("--gsd-tools", default=None, help="path to gsd-tools.cjs (default: npm install into --peer-prefix)")
    ap.add_argument("--peer-prefix", default=os.path.join(tempfile.gettempdir(), "msd-bench-peer"))
    args = ap.parse_args(argv)
    runs = max(20, args.runs)

    tmp = Path(tempfile.mkdtemp(prefix="msd-bench-"))
    try:
        home = tmp / "home"
        home.mkdir()
        root = fake_install(home / ".claude")
        proj = tmp / "proj"
        (proj / ".planning").mkdir(parents=True)
        (proj / ".planning" / "config.json").write_text(json.dumps(
            {"mode": "yolo", "model_profile": "balanced", "workflow": {"research": True, "compact_content": False}},
            indent=2), encoding="utf-8")
        env = dict(os.environ)
        for var in ("CLAUDE_CONFIG_DIR", "MSD_TRACE", "MSD_COMPACT_DEFAULT", "PYTHONSTARTUP", "PYTHONDONTWRITEBYTECODE"):
            env.pop(var, None)
        # an installed wheel has its bytecode compiled by pip; do the same for this checkout
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "msd_core")], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})
        env.pop("MSD_USER_CONFIG_DIR", None)  # the real lookup: $XDG_CONFIG_HOME/msd/defaults.json
        env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        npm_env = dict(os.environ)

        py = sys.executable
        console = shutil.which("msd_run", path=str(Path(py).parent)) or shutil.which("msd_run")
        hot = {
            "config get mode": ["config", "get", "mode"],
            "resolve plan-phase": ["resolve", "plan-phase", "--root", str(root)],
            "resolve plan-phase --emit": ["resolve", "plan-phase", "--emit", "--root", str(root)],
            "agent-skills executor": ["agent-skills", "executor", "--root", str(root)],
        }
        cmds = {"python -I -S -c pass": [py, "-I", "-S", "-c", "pass"], "python -c pass": [py, "-c", "pass"]}
        for label, a in hot.items():
            cmds[f"python -m msd_core.run {label}"] = [py, "-m", "msd_core.run", *a]
            if console:
                cmds[f"msd_run {label}"] = [console, *a]
        peer_path = find_peer(args, npm_env)
        peer_label = "node gsd-tools.cjs config-get mode"
        if peer_path:
            cmds[peer_label] = ["node", str(peer_path), "config-get", "mode"]
        timed = time_all(cmds, proj, env, runs)
        base = timed["python -I -S -c pass"]
        peer = timed.get(peer_label)
        rows = []
        for label, t in timed.items():
            rows.append({"command": label, **t,
                         "x_python": t["median_ms"] / base["median_ms"],
                         "x_python_min": t["min_ms"] / base["min_ms"],
                         "x_peer": t["median_ms"] / peer["median_ms"] if peer else None,
                         "x_peer_min": t["min_ms"] / peer["min_ms"] if peer else None})
        result = {"python": sys.version.split()[0], "runs": runs, "peer": str(peer_path) if peer_path else None,
                  "goals": {"x_python": GOAL_VS_PYTHON, "x_peer": GOAL_VS_PEER}, "rows": rows}
        if args.importtime:
            result["importtime"] = {label: importtime(a, proj, env) for label, a in hot.items()}
        if args.json:
            print(json.dumps(result, indent=2))
            return 0
        print(f"msd_run hot-path benchmark: median of {runs} runs (python {result['python']})")
        print("ratios: median/median (min/min) to `python -I -S -c pass` and to the peer")
        print(f"{'command':<50} {'median ms':>9} {'min ms':>7} {'x python':>14} {'x peer':>12}")
        for row in rows:
            xp = f"{row['x_peer']:.2f} ({row['x_peer_min']:.2f})" if row["x_peer"] is not None else "-"
            xpy = f"{row['x_python']:.2f} ({row['x_python_min']:.2f})"
            print(f"{row['command']:<50} {row['median_ms']:>9.1f} {row['min_ms']:>7.1f} {xpy:>14} {xp:>12}")
        print(f"goals: <= {GOAL_VS_PYTHON}x python -I -S -c pass, <= {GOAL_VS_PEER}x the peer"
              + ("" if peer else " (peer not measured: node or the package unavailable)"))
        if args.importtime:
            for label, imps in result["importtime"].items():
                print(f"\nimports of `{label}` (self us, cumulative us):")
                for imp in imps:
                    print(f"  {imp['self_us']:>7} {imp['cumulative_us']:>8}  {imp['module']}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
