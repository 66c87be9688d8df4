#!/usr/bin/env python3
"""Benchmark `msd install`: fresh install and no-op reinstall, as ratios measured in one run.

Baselines, measured interleaved with msd in the same run (median of --repeat rounds):
  copy       shutil.copytree of the same content tree (in process, and as a python process)
  peers      `node <pkg>/bin/install.js --claude --global` of each peer, with HOME=<temp>, when node
             and npm are present (installed into a temp folder first): npm get-shit-done-cc@1.42.3
             ("peer", the earlier one) and @opengsd/gsd-core@1.14.0 ("lead", the leading one)

`msd` is the console script installed beside this Python (the command users run); its
start-up alone is `msd --version` (typer reads every `msd` command line: scripts/bench_cli.py). The peer always runs
with HOME pointing at a scratch folder (its installer writes into $HOME/.claude and has no
option that only prints its version).

Process measures are also given in CPU time (user + system of the process and its
children), which a busy shared machine disturbs far less than wall time.

Goals (issue 17, issue 19 item 6, issue 34 item 6): fresh `msd install` <= 0.5x the peer's
installer; a no-op `msd install` <= 0.25x the reinstall of either peer.

    .venv/bin/python scripts/bench_install.py [--repeat 7] [--json] [--no-peer] [--peer-dir DIR] [--content-dir DIR]

--peer-dir: an npm prefix where the peers are already installed (either or both).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PEERS = {"peer": ("get-shit-done-cc", "1.42.3"), "lead": ("@opengsd/gsd-core", "1.14.0")}
PEER_PKG = "get-shit-done-cc@1.42.3"


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


CPU: dict[str, list[float]] = {}  # CPU seconds (user + system) of each timed process, by measure


def _proc(cmd: list[str], env: dict | None = None, measure: str | None = None) -> None:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    res = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])}... failed ({res.returncode}): {res.stderr.decode(errors='replace')[-400:]}")
    if measure:
        CPU.setdefault(measure, []).append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))


def _count_files(root: Path) -> int:
    return sum(len(names) for _d, _s, names in os.walk(root))


def setup_peers(work: Path, peer_dir: str | None) -> dict[str, Path]:
    """{"peer" | "lead": the installer script} of each peer found or installed."""
    out: dict[str, Path] = {}
    for key, (name, version) in PEERS.items():
        if peer_dir:
            prefix = Path(peer_dir)
        elif shutil.which("node") and shutil.which("npm"):
            prefix = work / f"peer-{key}"
            subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--cache", str(work / "npm-cache"),
                            f"{name}@{version}"], stdin=subprocess.DEVNULL, capture_output=True, timeout=600)
        else:
            continue
        script = prefix / "node_modules" / name / "bin" / "install.js"
        if script.exists():
            out[key] = script
    return out


def msd_cmd_label(content_dir: str | None) -> list[str]:
    msd = shutil.which("msd", path=str(Path(sys.executable).parent))
    return [msd or f"{sys.executable} -m msd_core"]


def run(repeat: int, content_dir: str | None, use_peer: bool, peer_dir: str | None) -> dict:
    from msd_core.install.installer import install
    from msd_core.install.source import resolve_source
    from msd_core.paths import resolve_target

    source = resolve_source(content_dir)
    content_root = Path(str(source.root))
    work = Path(tempfile.mkdtemp(prefix="msd-bench-"))
    times: dict[str, list[float]] = {k: [] for k in (
        "python_bare", "copy_api", "msd_fresh_api", "msd_noop_api", "copy_proc", "msd_version_cli", "msd_fresh_cli",
        "msd_noop_cli", "peer_fresh", "peer_noop", "lead_fresh", "lead_noop")}
    counts: dict[str, int] = {}
    try:
        peers = setup_peers(work, peer_dir) if use_peer else {}
        py = sys.executable
        msd = shutil.which("msd", path=str(Path(py).parent))
        msd_cmd = [msd] if msd else [py, "-m", "msd_core"]
        copy_code = "import shutil, sys; shutil.copytree(sys.argv[1], sys.argv[2])"
        base_env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
        for i in range(repeat):
            r = work / f"r{i}"
            r.mkdir()
            times["copy_api"].append(_timed(lambda: shutil.copytree(content_root, r / "copy")))
            target = resolve_target("global", r / "api")
            times["msd_fresh_api"].append(_timed(lambda: install(target, source=source)))
            times["msd_noop_api"].append(_timed(lambda: install(target, source=source)))
            times["copy_proc"].append(_timed(lambda: _proc([py, "-c", copy_code, str(content_root), str(r / "copy2")])))
            times["python_bare"].append(_timed(lambda: _proc([py, "-I", "-S", "-c", "pass"], measure="python_bare")))
            times["msd_version_cli"].append(_timed(lambda: _proc([*msd_cmd, "--version"], base_env, "msd_version_cli")))
            cli = [*msd_cmd, "install", "--global", "--config-dir", str(r / "cli"), "--json"]
            if content_dir:
                cli += ["--content-dir", content_dir]
            times["msd_fresh_cli"].append(_timed(lambda: _proc(cli, base_env, "msd_fresh_cli")))
            times["msd_noop_cli"].append(_timed(lambda: _proc(cli, base_env, "msd_noop_cli")))
            counts["msd"] = _count_files(r / "cli")
            counts["copy"] = _count_files(r / "copy")
            for key, script in peers.items():
                home = r / f"{key}-home"
                home.mkdir()
                env = {**base_env, "HOME": str(home), "npm_config_cache": str(work / "npm-cache")}
                node = [shutil.which("node") or "node", str(script), "--claude", "--global"]
                times[f"{key}_fresh"].append(_timed(lambda: _proc(node, env, f"{key}_fresh")))
                times[f"{key}_noop"].append(_timed(lambda: _proc(node, env, f"{key}_noop")))
                counts[key] = _count_files(home / ".claude")
            shutil.rmtree(r, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in times.items() if v}
    cpu = {k: statistics.median(v) for k, v in CPU.items() if v}

    def cpu_ratio(a: str, b: str):
        return round(cpu[a] / cpu[b], 3) if a in cpu and b in cpu and cpu[b] > 0 else None

    def ratio(a: str, b: str):
        return round(med[a] / med[b], 3) if a in med and b in med and med[b] > 0 else None

    return {
        "repeat": repeat,
        "content": source.label,
        "msd": " ".join(msd_cmd_label(content_dir)),
        "files_written": counts,
        "median_seconds": {k: round(v, 4) for k, v in med.items()},
        "ratios": {
            "fresh_api_vs_copytree": ratio("msd_fresh_api", "copy_api"),
            "noop_api_vs_fresh_api": ratio("msd_noop_api", "msd_fresh_api"),
            "fresh_cli_vs_copy_process": ratio("msd_fresh_cli", "copy_proc"),
            "noop_cli_vs_fresh_cli": ratio("msd_noop_cli", "msd_fresh_cli"),
            "fresh_cli_vs_peer": ratio("msd_fresh_cli", "peer_fresh"),
            "noop_cli_vs_peer_noop": ratio("msd_noop_cli", "peer_noop"),
            "fresh_cli_vs_lead": ratio("msd_fresh_cli", "lead_fresh"),
            "noop_cli_vs_lead_noop": ratio("msd_noop_cli", "lead_noop"),
            "version_cli_vs_peer_noop": ratio("msd_version_cli", "peer_noop"),
            "version_cli_vs_python_bare": ratio("msd_version_cli", "python_bare"),
        },
        "cpu_median_seconds": {k: round(v, 4) for k, v in cpu.items()},
        "cpu_ratios": {
            "noop_cli_vs_fresh_cli": cpu_ratio("msd_noop_cli", "msd_fresh_cli"),
            "fresh_cli_vs_peer": cpu_ratio("msd_fresh_cli", "peer_fresh"),
            "noop_cli_vs_peer_noop": cpu_ratio("msd_noop_cli", "peer_noop"),
            "fresh_cli_vs_lead": cpu_ratio("msd_fresh_cli", "lead_fresh"),
            "noop_cli_vs_lead_noop": cpu_ratio("msd_noop_cli", "lead_noop"),
            "version_cli_vs_peer_noop": cpu_ratio("msd_version_cli", "peer_noop"),
            "version_cli_vs_python_bare": cpu_ratio("msd_version_cli", "python_bare"),
        },
        "goals": {"fresh_cli_vs_peer": 0.5, "noop_cli_vs_peer_noop": 0.25, "noop_cli_vs_lead_noop": 0.25},
        "peer": PEER_PKG if "peer_fresh" in med else None,
        "lead": "@".join(PEERS["lead"]) if "lead_fresh" in med else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Benchmark msd install against a plain copy and the npm peer installer.")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--no-peer", action="store_true", help="skip the npm peer installer")
    ap.add_argument("--peer-dir", help="an npm prefix where the peers (get-shit-done-cc@1.42.3, @opengsd/gsd-core@1.14.0) are installed")
    ap.add_argument("--content-dir", help="benchmark this content tree instead of the packaged one")
    args = ap.parse_args(argv)
    out = run(max(1, args.repeat), args.content_dir, not args.no_peer, args.peer_dir)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"msd install benchmark: {out['content']}, median of {out['repeat']} rounds")
    print(f"files written: {out['files_written']}")
    print(f"{'measure':<20}{'seconds':>10}")
    for k, v in out["median_seconds"].items():
        print(f"{k:<20}{v:>10.4f}")
    print(f"{'ratio':<30}{'wall':>8}{'CPU':>8}")
    for k, v in out["ratios"].items():
        goal = out["goals"].get(k)
        c = out["cpu_ratios"].get(k)
        print(f"{k:<30}{'n/a' if v is None else f'{v:.3f}':>8}{'' if c is None else f'{c:.3f}':>8}"
              + (f"   goal <= {goal}" if goal else ""))
    for key in ("peer", "lead"):
        if out[key] is None and not args.no_peer:
            print(f"{key} installer ({'@'.join(PEERS[key])}) not measured (node/npm missing or npm install failed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
