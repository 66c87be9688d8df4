#!/usr/bin/env python3
"""Benchmark `msd_run history-digest` against the peer `gsd-tools.cjs history-digest`.

For each corpus tree (copied to a temp dir first; the corpus is read-only):
  - median wall and CPU time (user + system) of N runs of each command, interleaved (each
    round runs the peer, our cold run and our warm run once), as a ratio ours/peer, for a cold start (`--no-cache`: every SUMMARY parsed) and a warm one
    (the per-file fact cache in .planning/.msd/ is current);
  - digest bytes as a share of the tree's SUMMARY bytes (the files the digest reads);
  - fact coverage: every provides / affects / pattern / decision / tech_stack entry the
    peer reports must be in ours. Entries are compared after collapsing whitespace and
    removing quote characters and doubled backslashes (the peer keeps YAML quoting and
    escapes as text; we decode them). A peer entry also counts as covered when
      - one of ours starts with it (the peer keeps only the first line of a multi-line value),
      - it reads `name: X` and X is ours (the peer prints a `{name: X}` tech item as text),
      - it holds `a, b, c` and every part is ours (the peer does not split a flow list
        containing an apostrophe, e.g. `[Let's Encrypt, certbot]`).

Summary line: the median over trees of each tree's ratio, and the pooled ratio (the sum over
trees of our median time over the sum of the peer's), which a few tiny trees cannot swing.
`--before DIR` also times the cold run of an older checkout of this repository
(PYTHONPATH=DIR, e.g. `git archive <commit> | tar -x -C DIR`) in the same rounds.

Usage:
  scripts/bench_planning.py [--peer PATH/gsd-tools.cjs | --peer-prefix DIR] [--runs 7] [--tree NAME]... [--json]
                            [--before DIR]
Without --peer, get-shit-done-cc@1.42.3 is installed once with `npm install --prefix DIR`
(default <tmp>/msd-bench-peer, outside the repository). Ours is the `msd_run` console script
of this checkout installed into a fresh venv as pipx installs it (`--install dev`: the one
beside this interpreter); see scripts/msd_under_test.py.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))
from msd_under_test import add_install_option, before_launcher, msd_bindir  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "planning"
PEER_PKG = "get-shit-done-cc@1.42.3"


def find_peer(explicit: str | None, prefix: str) -> Path:
    """gsd-tools.cjs: the given path, or get-shit-done-cc from npm in `prefix` (installed once)."""
    if explicit:
        return Path(explicit)
    hits = sorted(Path(prefix).rglob("gsd-tools.cjs"))
    if not hits:
        Path(prefix).mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", prefix, PEER_PKG],
                       check=True, stdout=subprocess.DEVNULL, timeout=600)
        hits = sorted(Path(prefix).rglob("gsd-tools.cjs"))
    if not hits:
        sys.exit(f"gsd-tools.cjs not found in {prefix}")
    return hits[0]


# Byte-compiled modules as in a real install: a PYTHONDONTWRITEBYTECODE shell would make
# every run recompile any module edited since its .pyc was written.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(cmd: list[str], env: dict | None = None) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds of the process and its children, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                          env=env or CHILD_ENV, timeout=120)
    dt = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return dt, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stdout


def interleaved(cmds: dict[str, list[str]], runs: int, before: dict[str, list[str]] | None = None,
                envs: dict[str, dict] | None = None) -> dict:
    """(median wall seconds, median CPU seconds, last output) per command; each round runs
    every command once (after one warm-up round), so a change of machine load hits them
    alike. `before[label]` runs untimed just before that command (e.g. to fill a cache);
    `envs[label]` is that command's environment."""
    times: dict[str, list[float]] = {k: [] for k in cmds}
    cpu: dict[str, list[float]] = {k: [] for k in cmds}
    outs: dict[str, bytes] = {}
    for i in range(runs + 1):
        for label, cmd in cmds.items():
            if before and label in before:
                _run(before[label])
            dt, ct, outs[label] = _run(cmd, (envs or {}).get(label))
            if i:
                times[label].append(dt)
                cpu[label].append(ct)
    return {k: (statistics.median(v), statistics.median(cpu[k]), outs[k]) for k, v in times.items()}


def norm(value) -> str:
    if isinstance(value, dict):
        value = "; ".join(f"{k}: {v}" for k, v in value.items())
    s = str(value).replace('"', "").replace("'", "").replace("\\\\", "\\")
    return " ".join(s.split())


def facts(digest: dict) -> dict[str, set[str]]:
    """Fact sets of either digest shape: ours (one string per field, a fact per line,
    short keys) or the peer's (lists per phase, decisions as {phase, decision})."""
    out = {k: set() for k in ("provides", "affects", "patterns", "decisions", "tech_stack")}
    short = {"p": "provides", "a": "affects", "t": "patterns", "d": "decisions"}
    for ph in (digest.get("phases") or {}).values():
        for k, v in ph.items():
            k = short.get(k, k)
            if k not in out:
                continue
            for item in v.split("\n") if isinstance(v, str) else v or []:
                out[k].add(norm(item))
    for d in digest.get("decisions") or []:
        out["decisions"].add(norm(d.get("decision") if isinstance(d, dict) else d))
    tech = digest.get("tech_stack") or []
    for t in tech.split("\n") if isinstance(tech, str) else tech:
        if t is not None:
            out["tech_stack"].add(norm(t))
    for k in out:
        out[k].discard("")
    return out


def covered(v: str, mine: set[str]) -> bool:
    if v in mine or any(m.startswith(v) for m in mine):
        return True
    if v.startswith("name: ") and v[6:] in mine:
        return True
    parts = [p.strip() for p in v.split(",")]
    return len(parts) > 1 and all(p in mine for p in parts)


def missing(peer: dict[str, set[str]], ours: dict[str, set[str]]) -> dict[str, list[str]]:
    gone = {}
    for k, values in peer.items():
        mine = ours[k]
        lost = [v for v in sorted(values) if not covered(v, mine)]
        if lost:
            gone[k] = lost
    return gone


def summary_bytes(root: Path) -> int:
    sys.path.insert(0, str(REPO))
    from msd_core.planning.discovery import project_summaries

    return sum(f.stat().st_size for _, f in project_summaries(root / ".planning"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", help="path to gsd-tools.cjs (default: npm install " + PEER_PKG + ")")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--peer-prefix", default=os.path.join(tempfile.gettempdir(), "msd-bench-peer"),
                    help="npm prefix for the peer package, outside the repository (installed once)")
    ap.add_argument("--tree", action="append", help="only this corpus tree (repeatable)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    ap.add_argument("--before", help="an older checkout whose cold run is timed beside this one (PYTHONPATH)")
    add_install_option(ap)
    args = ap.parse_args()
    if not CORPUS.is_dir():
        sys.exit(f"corpus not found at {CORPUS}")
    peer = find_peer(args.peer, args.peer_prefix)
    rows = []
    trees = args.tree or sorted(p.name for p in CORPUS.iterdir() if (p / ".planning").is_dir())
    with tempfile.TemporaryDirectory(prefix="bench-planning-") as tmp:
        bindir = msd_bindir(args.install, Path(tmp) / "venv")
        msd_run = shutil.which("msd_run", path=str(bindir))
        if not msd_run:
            sys.exit(f"msd_run not found in {bindir}: pip install -e . first")
        before_run = before_launcher(Path(args.before), msd_run, Path(tmp) / "before-bin") if args.before else None
        for name in trees:
            root = Path(tmp) / name
            shutil.copytree(CORPUS / name, root, symlinks=True)
            ours_cmd = [msd_run, "history-digest", "--cwd", str(root)]
            peer_cmd = ["node", str(peer), "history-digest", "--cwd", str(root)]
            cmds = {"peer": peer_cmd, "cold": ours_cmd + ["--no-cache"], "warm": ours_cmd}
            envs = {}
            if args.before:
                cmds["before_cold"] = [before_run, *ours_cmd[1:], "--no-cache"]
                envs["before_cold"] = {**CHILD_ENV, "PYTHONPATH": str(Path(args.before).resolve())}
            got = interleaved(cmds, args.runs, before={"warm": ours_cmd},  # the cache is current when the warm run starts
                              envs=envs)
            (t_peer, c_peer, peer_out), (t_cold, c_cold, _), (t_warm, c_warm, ours_out) = got["peer"], got["cold"], got["warm"]
            sbytes = summary_bytes(root)
            try:
                peer_json = json.loads(peer_out or b"{}")
            except ValueError:
                peer_json = {}
            ours_json = json.loads(ours_out)
            lost = missing(facts(peer_json), facts(ours_json))
            pf = facts(peer_json)
            rows.append({
                "tree": name,
                "summaries_bytes": sbytes,
                "peer_ms": round(t_peer * 1000, 1),
                "cold_ms": round(t_cold * 1000, 1),
                "warm_ms": round(t_warm * 1000, 1),
                "cold_ratio": round(t_cold / t_peer, 2),
                "warm_ratio": round(t_warm / t_peer, 2),
                "cold_cpu_ratio": round(c_cold / c_peer, 2) if c_peer else None,
                "warm_cpu_ratio": round(c_warm / c_peer, 2) if c_peer else None,
                "digest_bytes": len(ours_out),
                "peer_bytes": len(json.dumps(peer_json, ensure_ascii=False, separators=(",", ":")).encode()),
                "bytes_pct": round(100 * len(ours_out) / sbytes, 1) if sbytes else None,
                "peer_pct": round(100 * len(json.dumps(peer_json, ensure_ascii=False, separators=(",", ":")).encode()) / sbytes, 1) if sbytes else None,
                "peer_facts": sum(len(v) for v in pf.values()),
                "our_facts": sum(len(v) for v in facts(ours_json).values()),
                "missing": lost,
                "skipped": len(ours_json.get("skipped", [])),
                "peer_s": t_peer, "peer_cpu_s": c_peer, "cold_s": t_cold, "cold_cpu_s": c_cold,
                "warm_s": t_warm, "warm_cpu_s": c_warm,
            })
            if args.before:
                t_b, c_b, _ = got["before_cold"]
                rows[-1].update({"before_cold_s": t_b, "before_cold_cpu_s": c_b, "before_cold_ratio": round(t_b / t_peer, 2),
                                 "before_cold_cpu_ratio": round(c_b / c_peer, 2) if c_peer else None})
    if args.json:
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        return 0
    print(f"{'tree':38} {'sumKB':>6} {'peer ms':>8} {'cold':>6} {'warm':>6} {'c/p':>5} {'w/p':>5} {'dig%':>5} {'peer%':>5} {'facts':>6} {'miss':>5} {'skip':>5}")
    for r in rows:
        miss = sum(len(v) for v in r["missing"].values())
        print(f"{r['tree'][:38]:38} {r['summaries_bytes'] / 1024:6.0f} {r['peer_ms']:8.1f} {r['cold_ms']:6.1f} {r['warm_ms']:6.1f} "
              f"{r['cold_ratio']:5.2f} {r['warm_ratio']:5.2f} {r['bytes_pct'] if r['bytes_pct'] is not None else '-':>5} {r['peer_pct'] if r['peer_pct'] is not None else '-':>5} {r['peer_facts']:6} {miss:5} {r['skipped']:5}")
    tot_s = sum(r["summaries_bytes"] for r in rows)
    tot_d = sum(r["digest_bytes"] for r in rows if r["summaries_bytes"])
    tot_p = sum(r["peer_bytes"] for r in rows if r["summaries_bytes"])
    med = lambda k: statistics.median(r[k] for r in rows)
    facts_total = sum(r["peer_facts"] for r in rows)
    miss_total = sum(sum(len(v) for v in r["missing"].values()) for r in rows)
    pooled = lambda k, p: sum(r[k] for r in rows) / max(1e-9, sum(r[p] for r in rows))
    print(f"\nmedian ratio ours/peer, wall time: cold {med('cold_ratio'):.2f}x, warm {med('warm_ratio'):.2f}x; "
          f"CPU time: cold {med('cold_cpu_ratio'):.2f}x, warm {med('warm_cpu_ratio'):.2f}x "
          f"(goal: cold <= 0.4x); runs interleaved per tree, median of {args.runs}")
    print(f"pooled ratio (sum over trees of medians), wall / CPU: cold {pooled('cold_s', 'peer_s'):.2f} / "
          f"{pooled('cold_cpu_s', 'peer_cpu_s'):.2f}, warm {pooled('warm_s', 'peer_s'):.2f} / {pooled('warm_cpu_s', 'peer_cpu_s'):.2f}")
    if args.before:
        print(f"before ({args.before}), cold: median ratio wall {med('before_cold_ratio'):.2f}x, CPU "
              f"{med('before_cold_cpu_ratio'):.2f}x; pooled wall / CPU {pooled('before_cold_s', 'peer_s'):.2f} / "
              f"{pooled('before_cold_cpu_s', 'peer_cpu_s'):.2f}")
    print(f"digest bytes / summary bytes: {100 * tot_d / tot_s:.1f}% overall (goal <= 10%); "
          f"median per tree {statistics.median(r['bytes_pct'] for r in rows if r['bytes_pct'] is not None):.1f}%; "
          f"peer's output (compact JSON) {100 * tot_p / tot_s:.1f}%")
    print(f"peer facts covered: {facts_total - miss_total}/{facts_total} ({100 * (facts_total - miss_total) / max(1, facts_total):.2f}%); "
          f"distinct facts in our digests: {sum(r['our_facts'] for r in rows)}")
    for r in rows:
        for k, vals in r["missing"].items():
            for v in vals:
                print(f"  missing [{r['tree']}] {k}: {v[:140]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
