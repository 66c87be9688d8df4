#!/usr/bin/env python3
"""Project-memory benchmark over the corpus (reporting only).

For every tree in ../shared/corpus/planning (copied to a temp dir):
  - index time per 1,000 indexed files and per 1,000 SUMMARY files (cold index),
  - median latency of each query kind (warm, in-process, index already fresh),
  - bytes a query returns vs the bytes `grep -r -i TERM` prints over the same files.
Terms per tree come from the tree itself: its most common subsystem and first key file.

Usage: python scripts/bench_memory.py [--corpus DIR] [--runs N] [--json]
"""

from __future__ import annotations

import argparse
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
from msd_core.memory.store import refresh  # noqa: E402


def terms_for(conn) -> dict:
    subs = Counter(s for (s,) in conn.execute("SELECT subsystem FROM files WHERE subsystem IS NOT NULL"))
    key = conn.execute("SELECT value FROM facts WHERE field = 'key_files' LIMIT 1").fetchone()
    return {"subsystem": subs.most_common(1)[0][0] if subs else "api", "key_file": key[0] if key else "README.md"}


def grep_bytes(project: Path, term: str) -> int:
    r = subprocess.run(["grep", "-r", "-i", "-F", "--include=*SUMMARY*.md", "--include=*CONTEXT*.md",
                        "--include=*RESEARCH*.md", "--include=*VERIFICATION*.md", term, str(project / ".planning")],
                       capture_output=True)
    return len(r.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus" / "planning")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    rows = []
    total_files = total_summaries = 0
    total_index = 0.0
    latencies: dict[str, list[float]] = {"search": [], "what-uses": [], "pattern-for": [], "decisions-affecting": []}
    byte_pairs = []
    with tempfile.TemporaryDirectory() as tmp:
        for tree in sorted(p for p in args.corpus.iterdir() if (p / ".planning").is_dir()):
            proj = Path(tmp) / tree.name
            shutil.copytree(tree, proj)
            t0 = time.perf_counter()
            conn, report = refresh(proj)
            elapsed = time.perf_counter() - t0
            n_files = len(report.indexed)
            n_sum = conn.execute("SELECT count(*) FROM files WHERE kind = 'summary'").fetchone()[0]
            total_files += n_files
            total_summaries += n_sum
            total_index += elapsed
            t = terms_for(conn)
            runs = {
                "search": lambda: query.search(conn, t["subsystem"]),
                "what-uses": lambda: query.what_uses(conn, t["key_file"], "file"),
                "pattern-for": lambda: query.pattern_for(conn, t["subsystem"]),
                "decisions-affecting": lambda: query.decisions_affecting(conn, t["subsystem"]),
            }
            for kind, fn in runs.items():
                for _ in range(args.runs):
                    s = time.perf_counter()
                    fn()
                    latencies[kind].append(time.perf_counter() - s)
            ours = len(json.dumps(query.decisions_affecting(conn, t["subsystem"]), ensure_ascii=False).encode())
            theirs = grep_bytes(proj, t["subsystem"])
            byte_pairs.append((ours, theirs))
            rows.append({"tree": tree.name, "files": n_files, "summaries": n_sum, "index_s": round(elapsed, 3),
                         "term": t["subsystem"], "query_bytes": ours, "grep_bytes": theirs})
            conn.close()
    result = {
        "trees": len(rows),
        "indexed_files": total_files,
        "summaries": total_summaries,
        "index_s_per_1000_files": round(total_index / total_files * 1000, 3) if total_files else None,
        "index_s_per_1000_summaries": round(total_index / total_summaries * 1000, 3) if total_summaries else None,
        "median_query_ms": {k: round(statistics.median(v) * 1000, 3) for k, v in latencies.items() if v},
        "query_bytes_total": sum(a for a, _ in byte_pairs),
        "grep_bytes_total": sum(b for _, b in byte_pairs),
        "rows": rows,
    }
    if result["grep_bytes_total"]:
        result["query_vs_grep_bytes"] = round(result["query_bytes_total"] / result["grep_bytes_total"], 4)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{'tree':40} {'files':>6} {'index s':>8} {'query B':>8} {'grep B':>9}  term")
        for r in rows:
            print(f"{r['tree']:40} {r['files']:6d} {r['index_s']:8.3f} {r['query_bytes']:8d} {r['grep_bytes']:9d}  {r['term']}")
        print(f"\nindex time: {result['index_s_per_1000_files']} s per 1,000 files, "
              f"{result['index_s_per_1000_summaries']} s per 1,000 SUMMARY files")
        print("median query latency (ms): " + ", ".join(f"{k} {v}" for k, v in result["median_query_ms"].items()))
        print(f"bytes returned: {result['query_bytes_total']:,} (decisions-affecting) vs grep -r {result['grep_bytes_total']:,}"
              f" = {result.get('query_vs_grep_bytes')}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
