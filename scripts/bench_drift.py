#!/usr/bin/env python3
"""Benchmark `msd_run drift` on a long history, against `msd_run next` in the same run.

Builds, in a temporary folder, a project whose git history holds `--commits` commits (default
3,200) written in two `git fast-import` streams: a ROADMAP with `--phases` phases of three plans
each (every plan declares three files and names them as must-haves artifacts), then commits
that are mostly msd's (an `Msd-Plan:` trailer), some made outside the workflow, some renaming
or deleting a file, and planning-docs commits. Phase 1's verification is recorded on a commit
near the start, so drift reads nearly the whole history (the worst case: its one `git log -M
--name-status` pass runs from the first msd commit).

Each round runs, interleaved: `msd_run drift` (which keeps its figure for HEAD in
`.planning/.msd/drift.json` and its history part in `drift-state.json`), `msd_run statusline`
(reads only that figure), `msd_run next` with the figure kept (warm), `msd_run next` with drift
left out (`drift_route.review` a no-op: the baseline), then one new msd commit and `msd_run next`'s
first call after it (drift extended from the saved state by that one commit), then `msd_run next`
with both files removed (cold: drift reads the whole history). Each round adds one commit. The
medians of wall time and of CPU time (msd_run and the git processes it started) are printed with
drift's commits read and findings, and each `next` as a ratio of the baseline measured in the
same rounds. `--code DIR` runs msd_run from another checkout (an
older one: the figures before a change). Usage:

  scripts/bench_drift.py [--commits 3200] [--phases 8] [--runs 5] [--json] [--keep] [--code DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
       "GIT_COMMITTER_EMAIL": "b@b", "PYTHONPATH": str(REPO)}


def _git(root: Path, *args: str, stdin: bytes | None = None) -> str:
    proc = subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True, env=ENV)
    if proc.returncode != 0:
        sys.exit(f"bench_drift: git {args[0]} failed: {proc.stderr.decode(errors='replace').strip()[:300]}")
    return proc.stdout.decode().strip()


class Stream:
    """A `git fast-import` stream for one branch, commit by commit."""

    def __init__(self, start: str | None):
        self.parts: list[bytes] = []
        self.n = 0
        self.start = start

    @staticmethod
    def _data(text: str) -> bytes:
        raw = text.encode()
        return b"data %d\n" % len(raw) + raw + b"\n"

    def commit(self, message: str, changes: list[tuple]) -> None:
        self.n += 1
        out = [b"commit refs/heads/main\n", b"committer b <b@b> %d +0000\n" % (1_700_000_000 + self.n),
               self._data(message)]
        if self.n == 1 and self.start:
            out.append(f"from {self.start}\n".encode())
        for change in changes:
            if change[0] == "M":
                out.append(f"M 100644 inline {change[1]}\n".encode() + self._data(change[2]))
            elif change[0] == "D":
                out.append(f"D {change[1]}\n".encode())
            else:
                out.append(f'R "{change[1]}" "{change[2]}"\n'.encode())
        self.parts.append(b"".join(out) + b"\n")

    def bytes(self) -> bytes:
        return b"".join(self.parts) + b"done\n"


def _roadmap(phases: int) -> str:
    lines = ["# Roadmap", "", "## Phases", ""] + [f"- [ ] Phase {p}: Part {p}" for p in range(1, phases + 1)] + [""]
    for p in range(1, phases + 1):
        reqs = ", ".join(f"P{p:02d}-{r:02d}" for r in range(1, 4))
        lines += [f"### Phase {p}: Part {p}", f"Goal: part {p} works", f"Requirements: {reqs}", "Plans: 3", ""]
    return "\n".join(lines)


def _plan(p: int, k: int, files: list[str]) -> str:
    arts = "".join(f"    - {f}\n" for f in files)
    return (f"---\nphase: {p:02d}-part\nplan: {k:02d}\ntype: execute\nwave: 1\ndepends_on: []\n"
            f"files_modified: [{', '.join(files)}]\nautonomous: true\nrequirements: [P{p:02d}-{k:02d}]\n"
            f"must_haves:\n  truths: [\"part {p} works\"]\n  artifacts:\n{arts}  key_links: []\n---\n"
            f"<objective>part {p}</objective>\n<tasks>\n</tasks>\n")


def build(root: Path, commits: int, phases: int, seed: int = 7) -> dict:
    rnd = random.Random(seed)
    _git(root, "init", "-q", "-b", "main")
    plans = {(p, k): [f"src/p{p:02d}/m{k}_{i}.py" for i in range(3)] for p in range(1, phases + 1) for k in (1, 2, 3)}
    spare = [f"lib/util_{i}.py" for i in range(40)]
    first = Stream(None)
    first.commit("chore: the project before msd", [("M", "README.md", "hello\n")] +
                 [("M", f, "x = 0\n") for f in spare])
    setup = [("M", ".planning/ROADMAP.md", _roadmap(phases))]
    for (p, k), files in plans.items():
        setup.append(("M", f".planning/phases/{p:02d}-part/{p:02d}-{k:02d}-PLAN.md", _plan(p, k, files)))
    first.commit("docs: roadmap and plans", setup)
    counter = {"n": 0}

    def body(path: str) -> str:
        counter["n"] += 1
        return f"# {path}\nVALUE = {counter['n']}\n"

    def random_commits(stream: Stream, count: int) -> None:
        for _ in range(count):
            roll = rnd.random()
            (p, k), files = rnd.choice(list(plans.items()))
            if roll < 0.82:
                stream.commit(f"feat({p:02d}-{k:02d}): step\n\nMsd-Plan: {p:02d}-part/{p:02d}-{k:02d}",
                              [("M", f, body(f)) for f in rnd.sample(files, 2)])
            elif roll < 0.92:
                stream.commit("fix: by hand", [("M", rnd.choice(files + spare), body("fix"))])
            elif roll < 0.95 and spare:
                old = spare.pop(rnd.randrange(len(spare)))
                stream.commit("refactor: move a helper", [("R", old, old.replace("lib/", "lib/moved_"))])
            else:
                stream.commit(f"docs({p:02d}): notes", [("M", f".planning/phases/{p:02d}-part/notes.md", body("n"))])

    first.commit("feat(01-01): start\n\nMsd-Plan: 01-part/01-01", [("M", f, body(f)) for f in plans[(1, 1)]])
    random_commits(first, max(commits // 20, 10))
    _git(root, "fast-import", "--quiet", stdin=first.bytes())
    _git(root, "reset", "-q", "--hard", "main")
    verified = _git(root, "rev-parse", "HEAD")
    second = Stream("refs/heads/main^0")
    block = (f"## Machine checks\n\nresult: passed\ntests_command: none\ntests_status: passed\n"
             f"tests_commit: {verified}\n")
    sys.path.insert(0, str(REPO))
    from msd_core.planning.check_status import machine_block

    docs = [("M", f".planning/phases/{p:02d}-part/{p:02d}-{k:02d}-SUMMARY.md", "# done\n") for (p, k) in plans]
    docs.append(("M", ".planning/phases/01-part/01-VERIFICATION.md",
                 f"---\nphase: 01-part\nstatus: passed\n---\n{machine_block(block)}\n"))
    second.commit("docs: summaries and phase 1's verification", docs)
    random_commits(second, commits - first.n - 1)
    _git(root, "fast-import", "--quiet", stdin=second.bytes())
    _git(root, "reset", "-q", "--hard", "main")
    return {"commits": int(_git(root, "rev-list", "--count", "HEAD")), "phases": phases, "plans": len(plans)}


NO_DRIFT = ("import sys; from msd_core.execution import drift_route; drift_route.review = lambda answer: answer; "
            "sys.argv = ['msd_run', *sys.argv[1:]]; from msd_core.run.entry import main; main()")


def _time(root: Path, args: list[str], code: Path = REPO, stdin: str | None = None,
          no_drift: bool = False) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of msd_run and the git it started, stdout); `no_drift`: next without drift."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    entry = ["-c", NO_DRIFT] if no_drift else ["-m", "msd_core.run"]
    proc = subprocess.run([sys.executable, *entry, *args], cwd=str(root), env={**ENV, "PYTHONPATH": str(code)},
                          input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                          capture_output=True, text=True)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        sys.exit(f"bench_drift: msd_run {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()[:300]}")
    return took, cpu, proc.stdout


def _med(xs: list[float]) -> float:
    return round(statistics.median(xs), 3)


def _one_commit(root: Path, n: int) -> None:
    """One msd commit on phase 2's first plan, as an agent makes after each task."""
    path = root / "src" / "p02" / "m1_0.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# round {n}\nVALUE = {n}\n")
    _git(root, "add", str(path.relative_to(root)))
    _git(root, "commit", "-q", "-m", f"feat(02-01): round {n}\n\nMsd-Plan: 02-part/02-01")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, default=3200)
    ap.add_argument("--phases", type=int, default=8)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the generated repository and print its path")
    ap.add_argument("--code", type=Path, default=REPO, help="the checkout msd_run runs from (default: this one)")
    args = ap.parse_args(argv)
    code = args.code.resolve()
    tmp = Path(tempfile.mkdtemp(prefix="msd-bench-drift-"))
    root = tmp / "project"
    root.mkdir()
    try:
        started = time.perf_counter()
        facts = build(root, max(args.commits, 50), max(args.phases, 1))
        facts["build_s"] = round(time.perf_counter() - started, 2)
        time.sleep(2.5)  # the planning files as an agent finds them: written a while ago (drift_state.QUIET_NS)
        drift_s, next_s, drift_cpu, next_cpu, out = [], [], [], [], {}
        cold_s, cold_cpu, line_s, line_cpu = [], [], [], []
        bare_s, bare_cpu, first_s, first_cpu = [], [], [], []
        payload = json.dumps({"cwd": str(root), "context_window": {"used_percentage": 12}})
        for _ in range(max(args.runs, 1)):
            (root / ".planning" / ".msd" / "drift-state.json").unlink(missing_ok=True)  # drift: the whole history
            took, cpu, text = _time(root, ["drift"], code)
            drift_s.append(took)
            drift_cpu.append(cpu)
            out = json.loads(text)
            took, cpu, _text = _time(root, ["statusline"], code, stdin=payload)
            line_s.append(took)
            line_cpu.append(cpu)
            took, cpu, _text = _time(root, ["next"], code)
            next_s.append(took)
            next_cpu.append(cpu)
            took, cpu, _text = _time(root, ["next"], code, no_drift=True)
            bare_s.append(took)
            bare_cpu.append(cpu)
            _one_commit(root, len(bare_s))
            took, cpu, text = _time(root, ["next"], code)
            first_s.append(took)
            first_cpu.append(cpu)
            for name in ("drift.json", "drift-state.json"):
                (root / ".planning" / ".msd" / name).unlink(missing_ok=True)
            took, cpu, text = _time(root, ["next"], code)
            cold_s.append(took)
            cold_cpu.append(cpu)
        result = {**facts, "runs": len(drift_s), "drift_s": round(statistics.median(drift_s), 3),
                  "next_s": round(statistics.median(next_s), 3), "next_cold_s": round(statistics.median(cold_s), 3),
                  "statusline_s": round(statistics.median(line_s), 3),
                  "ratio": round(statistics.median(drift_s) / statistics.median(next_s), 2),
                  "drift_cpu_s": round(statistics.median(drift_cpu), 3), "next_cpu_s": round(statistics.median(next_cpu), 3),
                  "next_cold_cpu_s": round(statistics.median(cold_cpu), 3),
                  "statusline_cpu_s": round(statistics.median(line_cpu), 3), "code": str(code),
                  "next_no_drift_s": _med(bare_s), "next_no_drift_cpu_s": _med(bare_cpu),
                  "next_first_s": _med(first_s), "next_first_cpu_s": _med(first_cpu),
                  "vs_no_drift": {name: round(statistics.median(xs) / statistics.median(bare_s), 2)
                                  for name, xs in (("next_kept", next_s), ("next_first_after_commit", first_s),
                                                   ("next_full_recompute", cold_s))},
                  "vs_no_drift_cpu": {name: round(statistics.median(xs) / statistics.median(bare_cpu), 2)
                                      for name, xs in (("next_kept", next_cpu), ("next_first_after_commit", first_cpu),
                                                       ("next_full_recompute", cold_cpu))},
                  "commits_read": out.get("commits_read"), "findings": out.get("count"),
                  "by_kind": {k: sum(1 for f in out.get("findings", []) if f["kind"] == k)
                              for k in sorted({f["kind"] for f in out.get("findings", [])})}}
        if args.keep:
            result["repository"] = str(root)
        if args.json:
            print(json.dumps(result))
        else:
            print(f"history: {result['commits']} commits, {result['plans']} plans in {result['phases']} phases "
                  f"(built in {result['build_s']}s)")
            print(f"msd_run drift: {result['drift_s']}s wall, {result['drift_cpu_s']}s CPU, median of {result['runs']} "
                  f"({result['commits_read']} commits read, {result['findings']} findings: {result['by_kind']})")
            print(f"msd_run next:  {result['next_s']}s wall, {result['next_cpu_s']}s CPU with drift's figure kept; "
                  f"drift/next = {result['ratio']}x (wall)")
            print(f"msd_run next:  {result['next_cold_s']}s wall, {result['next_cold_cpu_s']}s CPU with no figure "
                  f"nor state kept (drift reads the whole history)")
            print(f"msd_run next:  {result['next_first_s']}s wall, {result['next_first_cpu_s']}s CPU, first call after "
                  f"one new commit (drift extended from the saved state)")
            print(f"msd_run next:  {result['next_no_drift_s']}s wall, {result['next_no_drift_cpu_s']}s CPU without drift")
            ratios = result["vs_no_drift"]
            print(f"next / next without drift (wall): figure kept {ratios['next_kept']}x, first call after a commit "
                  f"{ratios['next_first_after_commit']}x, full recompute {ratios['next_full_recompute']}x")
            ratios = result["vs_no_drift_cpu"]
            print(f"next / next without drift (CPU):  figure kept {ratios['next_kept']}x, first call after a commit "
                  f"{ratios['next_first_after_commit']}x, full recompute {ratios['next_full_recompute']}x")
            print(f"msd_run statusline: {result['statusline_s']}s wall, {result['statusline_cpu_s']}s CPU")
            if args.keep:
                print(f"repository: {root}")
    finally:
        if not args.keep:
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
