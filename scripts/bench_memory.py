#!/usr/bin/env python3
"""Project-memory benchmark over the corpus (reporting only).

For every tree in ../shared/corpus/planning (copied to a temp dir; the corpus is read-only):
  - cold index time, repeated --repeat times (the index is deleted between runs): the
    median and the spread (min-max) per tree, and in total per 1,000 indexed files and
    per 1,000 SUMMARY files; plus the median time of a refresh that finds nothing changed;
  - median latency of each query kind (in-process, index fresh);
  - bytes an agent receives from each query (the exact stdout of `msd_run memory <query>`)
    against a fair baseline: what the agent would otherwise read to answer the same
    question, i.e. the output of `grep -r -i -w -l TERM` (whole words, as the queries
    match) over the same kinds of files (SUMMARY, CONTEXT, RESEARCH, VERIFICATION) plus
    every file it lists, opened whole. The `grep -r -i -w` line output alone is shown too
    (the cheapest read, which leaves the agent without the surrounding facts).
Terms per tree come from the tree itself: its most common subsystem (search,
pattern-for, decisions-affecting) and its first key file (what-uses).

Usage: python scripts/bench_memory.py [--corpus DIR] [--runs N] [--repeat N] [--tree NAME]... [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from msd_core.memory import query  # noqa: E402
from msd_core.memory.store import db_path, refresh  # noqa: E402
from msd_core.run.dispatch import main as msd_run  # noqa: E402

KINDS = ("--include=*SUMMARY*.md", "--include=*CONTEXT*.md", "--include=*RESEARCH*.md", "--include=*VERIFICATION*.md")


def terms_for(conn) -> dict:
    subs = Counter(s for (s,) in conn.execute("SELECT subsystem FROM files WHERE subsystem IS NOT NULL"))
    key = conn.execute("SELECT value FROM facts WHERE field = 'key_files' LIMIT 1").fetchone()
    return {"subsystem": subs.most_common(1)[0][0] if subs else "api", "key_file": key[0] if key else "README.md"}


def baseline_bytes(project: Path, term: str) -> dict:
    """What an agent reads without the index: grep's file list plus those files, and grep's lines."""
    listed = subprocess.run(["grep", "-r", "-i", "-w", "-l", "-F", *KINDS, "--", term, str(project / ".planning")],
                            capture_output=True)
    files = [Path(p) for p in listed.stdout.decode(errors="replace").splitlines() if p]
    lines = subprocess.run(["grep", "-r", "-i", "-w", "-F", *KINDS, "--", term, str(project / ".planning")], capture_output=True)
    return {"grep_and_open": len(listed.stdout) + sum(f.stat().st_size for f in files), "files_opened": len(files),
            "grep_lines": len(lines.stdout)}


def query_output(project: Path, argv: list[str]) -> bytes:
    """The exact stdout of `msd_run memory ...` (the dispatcher in this process)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = msd_run(["memory", *argv, "--cwd", str(project)])
    if code != 0:
        raise SystemExit(f"msd_run memory {' '.join(argv)} failed ({code})")
    return out.getvalue().encode("utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus" / "planning")
    ap.add_argument("--runs", type=int, default=10, help="query repetitions per tree")
    ap.add_argument("--repeat", type=int, default=3, help="cold index repetitions per tree")
    ap.add_argument("--tree", action="append", help="only this tree (repeatable)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    rows = []
    latencies: dict[str, list[float]] = {"search": [], "what-uses": [], "pattern-for": [], "decisions-affecting": []}
    sizes: dict[str, list[tuple[int, int, int]]] = {k: [] for k in latencies}
    totals = {"files": 0, "summaries": 0, "index_s": 0.0, "noop_s": []}
    trees = sorted(p for p in args.corpus.iterdir() if (p / ".planning").is_dir() and (not args.tree or p.name in args.tree))
    with tempfile.TemporaryDirectory() as tmp:
        for tree in trees:
            proj = Path(tmp) / tree.name
            shutil.copytree(tree, proj)
            cold = []
            for _ in range(max(1, args.repeat)):
                for p in db_path(proj).parent.glob(db_path(proj).name + "*"):
                    p.unlink()
                t0 = time.perf_counter()
                conn, report = refresh(proj)
                cold.append(time.perf_counter() - t0)
                conn.close()
            noop = []
            for _ in range(max(1, args.repeat)):
                t0 = time.perf_counter()
                conn, again = refresh(proj)
                noop.append(time.perf_counter() - t0)
                conn.close()
            conn, _ = refresh(proj)
            n_files = len(report.indexed)
            n_sum = conn.execute("SELECT count(*) FROM files WHERE kind = 'summary'").fetchone()[0]
            totals["files"] += n_files
            totals["summaries"] += n_sum
            totals["index_s"] += statistics.median(cold)
            totals["noop_s"].append(statistics.median(noop))
            t = terms_for(conn)
            calls = {
                "search": (lambda: query.search(conn, t["subsystem"]), ["search", t["subsystem"]], t["subsystem"]),
                "what-uses": (lambda: query.what_uses(conn, t["key_file"], "file"),
                              ["what-uses", t["key_file"], "--type", "file"], t["key_file"]),
                "pattern-for": (lambda: query.pattern_for(conn, t["subsystem"]), ["pattern-for", t["subsystem"]],
                                t["subsystem"]),
                "decisions-affecting": (lambda: query.decisions_affecting(conn, t["subsystem"]),
                                        ["decisions-affecting", t["subsystem"]], t["subsystem"]),
            }
            row = {"tree": tree.name, "files": n_files, "summaries": n_sum,
                   "index_s_median": round(statistics.median(cold), 3),
                   "index_s_spread": [round(min(cold), 3), round(max(cold), 3)],
                   "noop_refresh_s": round(statistics.median(noop), 4), "term": t["subsystem"], "queries": {}}
            for kind, (fn, argv, term) in calls.items():
                for _ in range(args.runs):
                    s = time.perf_counter()
                    fn()
                    latencies[kind].append(time.perf_counter() - s)
                ours = len(query_output(proj, argv))
                base = baseline_bytes(proj, term)
                sizes[kind].append((ours, base["grep_and_open"], base["grep_lines"]))
                row["queries"][kind] = {"bytes": ours, **base}
            conn.close()
            rows.append(row)
    result = {
        "trees": len(rows),
        "repeat": args.repeat,
        "indexed_files": totals["files"],
        "summaries": totals["summaries"],
        "index_s_per_1000_files": round(totals["index_s"] / totals["files"] * 1000, 3) if totals["files"] else None,
        "index_s_per_1000_summaries": round(totals["index_s"] / totals["summaries"] * 1000, 3) if totals["summaries"] else None,
        "noop_refresh_ms_median": round(statistics.median(totals["noop_s"]) * 1000, 2) if totals["noop_s"] else None,
        "median_query_ms": {k: round(statistics.median(v) * 1000, 3) for k, v in latencies.items() if v},
        "bytes": {k: {"query": sum(a for a, _, _ in v), "grep_and_open": sum(b for _, b, _ in v),
                      "grep_lines": sum(c for _, _, c in v)} for k, v in sizes.items() if v},
        "rows": rows,
    }
    for v in result["bytes"].values():
        v["query_vs_grep_and_open"] = round(v["query"] / v["grep_and_open"], 4) if v["grep_and_open"] else None
        v["query_vs_grep_lines"] = round(v["query"] / v["grep_lines"], 4) if v["grep_lines"] else None
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{'tree':40} {'files':>6} {'index s (min-max)':>20} {'no-op ms':>9}  term")
    for r in rows:
        lo, hi = r["index_s_spread"]
        print(f"{r['tree']:40} {r['files']:6d} {r['index_s_median']:7.3f} ({lo:.3f}-{hi:.3f}) {r['noop_refresh_s'] * 1000:9.1f}  {r['term']}")
    print(f"\ncold index (median of {args.repeat} per tree): {result['index_s_per_1000_files']} s per 1,000 files, "
          f"{result['index_s_per_1000_summaries']} s per 1,000 SUMMARY files; "
          f"no-change refresh median {result['noop_refresh_ms_median']} ms per tree")
    print("median query latency (ms): " + ", ".join(f"{k} {v}" for k, v in result["median_query_ms"].items()))
    print(f"\n{'query':22} {'msd_run bytes':>14} {'grep -lw + open':>15} {'ratio':>7} {'grep lines':>11} {'ratio':>7}")
    for k, v in result["bytes"].items():
        print(f"{k:22} {v['query']:14,} {v['grep_and_open']:15,} {v['query_vs_grep_and_open']:7.3f} "
              f"{v['grep_lines']:11,} {v['query_vs_grep_lines'] if v['query_vs_grep_lines'] is not None else '-':>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
