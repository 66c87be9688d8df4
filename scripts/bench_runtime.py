#!/usr/bin/env python3
"""Benchmark every agent-facing `msd_run` command against its peer equivalent, side by side.

Set-up (all in one temporary folder, nothing faked):
  - a project: a copy of one corpus tree (../shared/corpus/planning/<tree>, default the
    first with phases, plans and summaries) or --project DIR (copied, never written);
  - msd: `msd install --local` into that project (a real install, manifest and all);
  - peer: get-shit-done-cc@1.42.3 from npm in its own prefix (--peer-prefix, outside the
    repository), then its installer `install.js --claude --global` into a scratch HOME,
    as scripts/bench_install.py does; the peer's commands run the INSTALLED gsd-tools.cjs.

Every command runs as a fresh process, round-robin (one warm-up round, then --runs
rounds; each round runs every command once), so a change of machine load hits all
commands alike. The table gives medians and the ratios median/median to
`python -I -S -c pass` and to the peer's equivalent command (like with like; `-` where
the peer has none). Commands that write (state patch, step-done) restore their input
before each run, untimed.

    python scripts/bench_runtime.py [--runs 11] [--json] [--tree NAME | --project DIR]
                                    [--peer-prefix DIR] [--no-peer] [--only SUBSTR]...

Goals (issue 17): every command <= 5x `python -I -S -c pass` and <= 0.4x its peer.
"""

from __future__ import annotations

import argparse
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
CORPUS = REPO.parent / "shared" / "corpus" / "planning"
PEER_PACKAGE = "get-shit-done-cc@1.42.3"
GOAL_VS_PYTHON = 5.0
GOAL_VS_PEER = 0.4
BASE = "python -I -S -c pass"


def pick_tree(name: str | None) -> Path:
    if name:
        p = CORPUS / name
        if not p.is_dir():
            raise SystemExit(f"bench: no corpus tree {p}")
        return p
    if not CORPUS.is_dir():
        raise SystemExit(f"bench: corpus {CORPUS} absent; pass --project DIR")
    for tree in sorted(CORPUS.iterdir()):
        pl = tree / ".planning"
        if (pl / "STATE.md").is_file() and any(pl.glob("phases/*/*-PLAN.md")) and any(pl.glob("phases/*/*-SUMMARY.md")):
            return tree
    raise SystemExit("bench: no corpus tree with STATE.md, plans and summaries")


def peer_tools(prefix: Path, home: Path, env: dict) -> Path | None:
    """Install the peer package into `prefix` (once) and run its installer into `home`."""
    if not (shutil.which("node") and shutil.which("npm")):
        return None
    installer = prefix / "node_modules" / "get-shit-done-cc" / "bin" / "install.js"
    if not installer.is_file():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(prefix), PEER_PACKAGE],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600,
                       check=False)
    if not installer.is_file():
        return None
    subprocess.run(["node", str(installer), "--claude", "--global"], env={**env, "HOME": str(home)},
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300, check=False)
    found = sorted((home / ".claude").rglob("gsd-tools.cjs"))
    return found[0] if found else None


def first(pattern: str, proj: Path) -> str:
    hits = sorted((proj / ".planning").glob(pattern))
    if not hits:
        raise SystemExit(f"bench: nothing matches .planning/{pattern} in {proj}")
    return hits[0].relative_to(proj).as_posix()


def command_table(proj: Path, root: str, peer: list[str] | None) -> list[dict]:
    """label, msd argv (after msd_run), peer argv or None, optional untimed `prep` argv list."""
    plan = first("phases/*/*-PLAN.md", proj)
    phase_dir = str(Path(plan).parent)
    phase = Path(phase_dir).name.split("-")[0]
    p = peer or []

    def peer_cmd(*a):
        return [*p, *a] if peer else None

    restart = ["next-step", "--workflow", "plan-phase", "--restart", "--var", f"phase={phase}", "--root", root]
    result = json.dumps({"phase": phase, "phase_dir": Path(phase_dir).name})
    rows = [
        ("config get mode --raw", ["config", "get", "mode", "--raw"], peer_cmd("config-get", "mode", "--raw"), None),
        ("config list", ["config", "list"], None, None),
        ("resolve plan-phase --emit", ["resolve", "plan-phase", "--emit", "--root", root], None, None),
        ("agent-skills executor --raw", ["agent-skills", "executor", "--root", root, "--raw"],
         peer_cmd("agent-skills", "gsd-executor"), None),
        ("extensions executor --plan", ["extensions", "executor", "--plan", plan, "--root", root, "--raw"], None, None),
        ("extensions planner --phase-dir", ["extensions", "planner", "--phase-dir", phase_dir, "--root", root, "--raw"],
         None, None),
        ("state get", ["state", "get"], peer_cmd("state", "load"), None),
        ("state get 'Current Position'", ["state", "get", "Current Position"],
         peer_cmd("state", "get", "Current Position"), None),
        ("state patch --status", ["state", "patch", "--status", "Benchmarking"],
         peer_cmd("state", "patch", "--Status", "Benchmarking"), "restore-state"),
        ("template select", ["template", "select", plan, "--root", root], peer_cmd("template", "select", plan), None),
        ("compile-plan (fresh)", ["compile-plan", plan, "--root", root], None, None),
        ("compile-plan --check", ["compile-plan", plan, "--check", "--root", root], None, None),
        ("next", ["next"], None, None),
        ("next-step plan-phase", ["next-step", "--workflow", "plan-phase", "--var", f"phase={phase}", "--root", root],
         None, None),
        ("step-done plan-phase", ["step-done", "--workflow", "plan-phase", "--step", "load-context", "--result", result,
                                  "--var", f"phase={phase}", "--root", root], None, restart),
        ("history-digest (cold)", ["history-digest", "--no-cache"], peer_cmd("history-digest"), None),
        ("history-digest (warm cache)", ["history-digest"], peer_cmd("history-digest"), None),
        ("memory search", ["memory", "search", "test"], None, None),
        ("memory decisions-affecting", ["memory", "decisions-affecting", "ui"], None, None),
    ]
    return [{"label": a, "msd": b, "peer": c, "prep": d} for a, b, c, d in rows]


def run(cmd: list[str], cwd: Path, env: dict, *, check: bool = True) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=str(cwd), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    dt = time.perf_counter() - t0
    if check and r.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd)} failed ({r.returncode}): {r.stderr.decode(errors='replace')[:300]}")
    return dt


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tree", help="corpus tree to copy as the project")
    ap.add_argument("--project", help="a project folder to copy instead of a corpus tree")
    ap.add_argument("--peer-prefix", default=os.path.join(tempfile.gettempdir(), "msd-bench-peer"),
                    help="npm prefix for the peer package (outside the repository)")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--only", action="append", default=[], help="only commands whose label contains this")
    args = ap.parse_args(argv)
    runs = max(3, args.runs)

    tmp = Path(tempfile.mkdtemp(prefix="msd-bench-rt-"))
    try:
        src = Path(args.project) if args.project else pick_tree(args.tree)
        proj = tmp / "proj"
        shutil.copytree(src, proj, symlinks=True, ignore=shutil.ignore_patterns(".git", ".claude", ".msd"))
        home = tmp / "home"
        home.mkdir()
        env = {k: v for k, v in os.environ.items()
               if k not in ("CLAUDE_CONFIG_DIR", "MSD_TRACE", "MSD_COMPACT_DEFAULT", "PYTHONSTARTUP",
                            "PYTHONDONTWRITEBYTECODE", "MSD_USER_CONFIG_DIR", "GSD_WORKSTREAM")}
        env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})
        py = sys.executable
        msd_run = shutil.which("msd_run", path=str(Path(py).parent))
        msd = shutil.which("msd", path=str(Path(py).parent))
        if not (msd_run and msd):
            raise SystemExit(f"bench: msd and msd_run must be installed beside {py} (pip install -e .)")
        run([msd, "install", "--local"], proj, env)
        root = ".claude/msd-core"
        tools = None if args.no_peer else peer_tools(Path(args.peer_prefix), home, env)
        peer = ["node", str(tools)] if tools else None
        table = command_table(proj, root, peer)
        if args.only:
            table = [t for t in table if any(s in t["label"] for s in args.only)]
        state = proj / ".planning" / "STATE.md"
        state_text = state.read_bytes()
        run([msd_run, "memory", "index"], proj, env)  # queries then run on a current index

        cmds: dict[str, tuple[list[str], object]] = {BASE: ([py, "-I", "-S", "-c", "pass"], None)}
        for t in table:
            cmds["msd_run " + t["label"]] = ([msd_run, *t["msd"]], t["prep"])
            if t["peer"] and "peer " + " ".join(t["peer"][2:]) not in cmds:
                cmds["peer " + " ".join(t["peer"][2:])] = (t["peer"], t["prep"])
        samples: dict[str, list[float]] = {k: [] for k in cmds}
        for i in range(runs + 1):
            for label, (cmd, prep) in cmds.items():
                if prep == "restore-state":
                    state.write_bytes(state_text)
                elif prep:
                    run([msd_run, *prep], proj, env)
                dt = run(cmd, proj, env, check=not label.startswith("peer "))
                if i:
                    samples[label].append(dt * 1000)
        med = {k: statistics.median(v) for k, v in samples.items()}
        low = {k: min(v) for k, v in samples.items()}
        base, base_min = med[BASE], low[BASE]
        rows = []
        for t in table:
            key = "msd_run " + t["label"]
            ms = med[key]
            pk = "peer " + " ".join(t["peer"][2:]) if t["peer"] else None
            pm = med.get(pk) if pk else None
            x_py, x_peer = ms / base, (ms / pm if pm else None)
            ok = x_py <= GOAL_VS_PYTHON and (x_peer is None or x_peer <= GOAL_VS_PEER)
            rows.append({"command": key, "median_ms": round(ms, 1), "min_ms": round(low[key], 1),
                         "x_python": round(x_py, 2), "x_python_min": round(low[key] / base_min, 2),
                         "peer": " ".join(t["peer"][2:]) if t["peer"] else None,
                         "peer_ms": round(pm, 1) if pm else None,
                         "x_peer": round(x_peer, 2) if x_peer else None,
                         "x_peer_min": round(low[key] / low[pk], 2) if pm else None,
                         "within_budget": ok})
        out = {"python": sys.version.split()[0], "runs": runs, "project": src.name, "base_ms": round(base, 1),
               "base_min_ms": round(base_min, 1), "peer": PEER_PACKAGE if peer else None,
               "goals": {"x_python": GOAL_VS_PYTHON, "x_peer": GOAL_VS_PEER}, "rows": rows}
        if args.json:
            print(json.dumps(out, indent=2))
            return 0
        print(f"msd_run vs peer ({out['peer'] or 'peer not measured'}): {runs} interleaved rounds, "
              f"project {src.name}, python {out['python']}, `{BASE}` median {base:.1f} ms (min {base_min:.1f})")
        print("ratios: median/median (min/min in parentheses); budget judged on the medians")
        print("| command | median ms | x python | peer's equivalent | peer median ms | x peer | budget |")
        print("|---|---:|---:|---|---:|---:|---|")
        for r in rows:
            peer_cmd = f"`{r['peer'][:40]}`" if r["peer"] else "-"
            xpeer = f"{r['x_peer']:.2f} ({r['x_peer_min']:.2f})" if r["x_peer"] is not None else "-"
            print(f"| `{r['command']}` | {r['median_ms']:.1f} | {r['x_python']:.2f} ({r['x_python_min']:.2f}) | "
                  f"{peer_cmd} | {r['peer_ms'] if r['peer_ms'] else '-'} | {xpeer} | "
                  f"{'ok' if r['within_budget'] else 'MISSED'} |")
        print(f"budget: <= {GOAL_VS_PYTHON}x `{BASE}` and <= {GOAL_VS_PEER}x the peer's equivalent")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
