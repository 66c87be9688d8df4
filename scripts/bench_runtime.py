#!/usr/bin/env python3
"""Benchmark every agent-facing `msd_run` command against its peer equivalent, side by side.

Set-up (all in one temporary folder, nothing faked):
  - msd: this checkout installed into a new venv the way `pipx install .` does (a wheel, no
    pip or setuptools .pth files at start-up); `--install dev` times the editable install
    beside this interpreter instead;
  - a project: a copy of one corpus tree (../shared/corpus/planning/<tree>, default the
    first with phases, plans and summaries) or --project DIR (copied, never written);
  - `msd install --local` into that project (a real install, manifest and all);
  - peer: get-shit-done-cc@1.42.3 from npm in its own prefix (--peer-prefix, outside the
    repository), then its installer `install.js --claude --global` into a scratch HOME,
    as scripts/bench_install.py does; the peer's commands run the INSTALLED gsd-tools.cjs.

Every command runs as a fresh process, round-robin (one warm-up round, then --runs
rounds; each round runs every command once), so a change of machine load hits all
commands alike. The table gives medians and the ratios median/median to
`python -I -S -c pass` and to the peer's equivalent command (like with like; `-` where
the peer has none), for wall time and for CPU time (user + system, which a busy shared
machine disturbs far less). Commands that write (state patch/sync, step-done, todo add,
commit, step-report) restore or prepare their input before each run, untimed (`commit` of a
tracked file appends a line to it; `commit (a new file)` untracks its file and rewrites it). The project is
a git repository (one commit of the copied tree, then a branch of its own) so `commit`,
`recorded`, `undo --dry-run` and `ship` run for real.

    python scripts/bench_runtime.py [--runs 11] [--json] [--tree NAME | --project DIR]
                                    [--peer-prefix DIR] [--no-peer] [--only SUBSTR]...
                                    [--before DIR] [--install fresh|dev]

`--before DIR` also runs every msd_run command with PYTHONPATH=DIR (an older checkout of
this repository, e.g. `git archive <commit> | tar -x -C DIR`), interleaved in the same
rounds, and prints its ratios beside: before and after measured side by side. The older
code runs through a copy of the installed console script that imports the entry point the
older checkout declares (its pyproject.toml; `msd_core.run:main` when DIR has none).

Goals (issue 17): every command <= 5x `python -I -S -c pass` and <= 0.4x its peer.
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
PEER_PACKAGE = "get-shit-done-cc@1.42.3"
GOAL_VS_PYTHON = 5.0
GOAL_VS_PEER = 0.4
BASE = "python -I -S -c pass"
NEW_FILE = "bench-new-file.txt"  # the `commit (a new file)` row's file, new to git before each run


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


def step_ticket(proj: Path, phase_dir: str) -> str:
    """A step ticket as next-step writes one (msd_core.chain.step_report), for `step-report`."""
    from msd_core.chain.step_report import paths_for, write_ticket

    folder = proj / ".planning" / ".msd" / "chain"
    folder.mkdir(parents=True, exist_ok=True)
    ticket, _result = paths_for(folder, "bench-plan-phase-plan-1")
    name = Path(phase_dir).name
    step = {"workflow": "plan-phase", "step": "plan", "action": "spawn_agent", "visit": 1,
            "expects": {"fields": {"phase": "string", "plans": "int", "approved": "bool"}, "files": []}}
    write_ticket(ticket, step, {"phase": name.split("-")[0], "phase_dir": name}, proj, [])
    return str(ticket)


def plan_file(proj: Path, plan: str) -> str:
    """A file the plan declares (files_modified), which `commit --plan` may commit."""
    from msd_core.planning.frontmatter import split_frontmatter

    fm, _body, _err = split_frontmatter((proj / plan).read_text(encoding="utf-8"))
    files = (fm or {}).get("files_modified") or []
    if not files:
        raise SystemExit(f"bench: {plan} declares no files_modified (needed by `commit --plan`)")
    return str(files[0])


def command_table(proj: Path, root: str, peer: list[str] | None) -> list[dict]:
    """label, msd argv (after msd_run), peer argv or None, optional untimed `prep`: an msd_run
    argv list, or the name of a file action (restore-state, restore-todos, touch-note, commit-all,
    untrack-new)."""
    plan = first("phases/*/*-PLAN.md", proj)
    note = plan_file(proj, plan)
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
        ("memory what-uses", ["memory", "what-uses", "test"], None, None),
        ("memory pattern-for", ["memory", "pattern-for", "test"], None, None),
        ("memory decisions-affecting", ["memory", "decisions-affecting", "ui"], None, None),
        ("state sync", ["state", "sync"], peer_cmd("state", "sync"), "restore-state"),
        ("model planner --raw", ["model", "planner", "--raw"], peer_cmd("resolve-model", "gsd-planner", "--raw"), None),
        ("branch --phase N", ["branch", "--phase", phase], None, None),
        ("commit -m M --plan P -- F", ["commit", "-m", "chore(bench): note", "--plan", plan, "--", note],
         peer_cmd("commit", "chore(bench): note", "--files", note), "touch-note"),
        ("commit (a new file) --plan P --deviation", ["commit", "-m", "chore(bench): new file", "--plan", plan,
                                                     "--deviation", "bench: a new file", "--", NEW_FILE],
         peer_cmd("commit", "chore(bench): new file", "--files", NEW_FILE), "untrack-new"),
        ("undo --plan P --dry-run", ["undo", "--plan", plan, "--dry-run"], None, "commit-all"),
        ("ship --phase N", ["ship", "--phase", phase], None, None),
        ("wave plan --phase-dir D", ["wave", "plan", "--phase-dir", phase_dir],
         peer_cmd("phase-plan-index", phase), None),
        ("wave check --phase-dir D", ["wave", "check", "--phase-dir", phase_dir], None, None),
        ("gate status", ["gate", "status"], None, None),
        ("todo add", ["todo", "add", "an idea from the bench"], None, "restore-todos"),
        ("todo list", ["todo", "list"], peer_cmd("list-todos"), None),
        ("debug list", ["debug", "list"], None, None),
        ("recorded --phase N", ["recorded", "--phase", phase], None, None),
        ("autonomous", ["autonomous"], None, None),
        ("step-report --ticket T", ["step-report", "--ticket", step_ticket(proj, phase_dir), f"phase={phase}",
                                    "plans=1", "approved=true"], None, None),
        ("phase insert N X --dry-run", ["phase", "insert", phase, "Hotfix", "--dry-run"], None, None),
    ]
    return [{"label": a, "msd": b, "peer": c, "prep": d} for a, b, c, d in rows]


def run(cmd: list[str], cwd: Path, env: dict, *, check: bool = True) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the process and its children). CPU time
    is what the command costs the machine, and much less sensitive to a busy machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=str(cwd), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    dt = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if check and r.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd)} failed ({r.returncode}): {r.stderr.decode(errors='replace')[:300]}")
    return dt, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


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
    ap.add_argument("--before", help="an older checkout to time beside this one (PYTHONPATH)")
    add_install_option(ap)
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
        bindir = msd_bindir(args.install, tmp / "venv")
        msd_run = shutil.which("msd_run", path=str(bindir))
        msd = shutil.which("msd", path=str(bindir))
        if not (msd_run and msd):
            raise SystemExit(f"bench: msd and msd_run must be installed in {bindir} (pip install -e .)")
        env.update({"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
                    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"})
        run([msd, "install", "--local"], proj, env)
        # on a branch of its own, as `ship` needs (a pull request is never made from the base branch)
        for git in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "bench: the copied tree"],
                    ["checkout", "-q", "-b", "msd-bench"]):
            run(["git", *git], proj, env)
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
        before_env = None
        before_run = msd_run
        if args.before:
            before_run = before_launcher(Path(args.before), msd_run, tmp / "before-bin")
            before_env = {**env, "PYTHONPATH": str(Path(args.before).resolve())}
            subprocess.run([py, "-m", "compileall", "-q", str(Path(args.before) / "msd_core")], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        for t in table:
            cmds["msd_run " + t["label"]] = ([msd_run, *t["msd"]], t["prep"])
            if before_env:
                cmds["before msd_run " + t["label"]] = ([before_run, *t["msd"]], t["prep"])
            if t["peer"] and "peer " + " ".join(t["peer"][2:]) not in cmds:
                cmds["peer " + " ".join(t["peer"][2:])] = (t["peer"], t["prep"])
        samples: dict[str, list[float]] = {k: [] for k in cmds}
        cpu: dict[str, list[float]] = {k: [] for k in cmds}
        for i in range(runs + 1):
            for label, (cmd, prep) in cmds.items():
                if prep == "restore-state":
                    state.write_bytes(state_text)
                elif prep == "restore-todos":
                    (proj / ".planning" / "TODOS.md").unlink(missing_ok=True)
                elif prep == "commit-all":  # undo refuses a dirty tree: commit what earlier rows wrote
                    subprocess.run(["git", "add", "-A"], cwd=proj, env=env, check=True, capture_output=True)
                    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "bench: rows' writes"], cwd=proj,
                                   env=env, check=True, capture_output=True)
                elif prep == "untrack-new":  # the file is new to git again: committed untracked, then rewritten
                    for git_args in (["rm", "-q", "--cached", "--ignore-unmatch", "--", NEW_FILE],
                                     ["commit", "-q", "--allow-empty", "-m", "bench: untrack the new file"]):
                        subprocess.run(["git", *git_args], cwd=proj, env=env, check=True, capture_output=True)
                    (proj / NEW_FILE).write_text(f"bench {label} {i} {time.time_ns()}\n", encoding="utf-8")
                elif prep == "touch-note":
                    note = proj / cmd[-1]
                    note.parent.mkdir(parents=True, exist_ok=True)
                    with open(note, "a", encoding="utf-8") as fh:
                        fh.write(f"bench {label} {i} {time.time_ns()}\n")
                elif prep:
                    run([msd_run, *prep], proj, env)
                dt, ct = run(cmd, proj, before_env if label.startswith("before ") else env,
                             check=not label.startswith("peer "))
                if i:
                    samples[label].append(dt * 1000)
                    cpu[label].append(ct * 1000)
        med = {k: statistics.median(v) for k, v in samples.items()}
        cmed = {k: statistics.median(v) for k, v in cpu.items()}
        base, cbase = med[BASE], cmed[BASE]
        rows = []
        for t in table:
            key = "msd_run " + t["label"]
            pk = "peer " + " ".join(t["peer"][2:]) if t["peer"] else None
            row = {"command": key, "peer": " ".join(t["peer"][2:]) if t["peer"] else None}
            for prefix, k in (("", key), ("before_", "before " + key)):
                if k not in med:
                    continue
                row.update({prefix + "ms": round(med[k], 1), prefix + "cpu_ms": round(cmed[k], 1),
                            prefix + "x_python": round(med[k] / base, 2), prefix + "x_python_cpu": round(cmed[k] / cbase, 2),
                            prefix + "x_peer": round(med[k] / med[pk], 2) if pk else None,
                            prefix + "x_peer_cpu": round(cmed[k] / cmed[pk], 2) if pk else None})
            row["peer_ms"] = round(med[pk], 1) if pk else None
            row["peer_cpu_ms"] = round(cmed[pk], 1) if pk else None
            wall_ok = row["x_python"] <= GOAL_VS_PYTHON and (not pk or row["x_peer"] <= GOAL_VS_PEER)
            cpu_ok = row["x_python_cpu"] <= GOAL_VS_PYTHON and (not pk or row["x_peer_cpu"] <= GOAL_VS_PEER)
            row["within_budget"] = {"wall": wall_ok, "cpu": cpu_ok}
            rows.append(row)
        out = {"python": sys.version.split()[0], "runs": runs, "project": src.name, "before": args.before,
               "install": args.install,
               "base_ms": round(base, 1), "base_cpu_ms": round(cbase, 1), "peer": PEER_PACKAGE if peer else None,
               "goals": {"x_python": GOAL_VS_PYTHON, "x_peer": GOAL_VS_PEER}, "rows": rows}
        if args.json:
            print(json.dumps(out, indent=2))
            return 0

        def pair(r, a, b):
            return "-" if r.get(a) is None else f"{r[a]:.2f} / {r[b]:.2f}"

        print(f"msd_run vs peer ({out['peer'] or 'peer not measured'}): medians of {runs} interleaved rounds, "
              f"project {src.name}, python {out['python']}, msd_run from a {args.install} install; "
              f"`{BASE}`: {base:.1f} ms wall, {cbase:.1f} ms CPU")
        print("ratios: wall / CPU (user+system); budget: both within <= "
              f"{GOAL_VS_PYTHON}x `{BASE}` and <= {GOAL_VS_PEER}x the peer's equivalent")
        head = "| command | wall ms | CPU ms | x python | peer's equivalent | peer wall ms | x peer | budget |"
        rule = "|---|---:|---:|---:|---|---:|---:|---|"
        if before_env:
            head += " before: x python | before: x peer |"
            rule += "---:|---:|"
        print(head)
        print(rule)
        for r in rows:
            ok = r["within_budget"]
            verdict = "ok" if ok["wall"] and ok["cpu"] else ("ok (CPU), wall missed" if ok["cpu"] else
                                                              ("ok (wall), CPU missed" if ok["wall"] else "MISSED"))
            line = (f"| `{r['command']}` | {r['ms']:.1f} | {r['cpu_ms']:.1f} | {pair(r, 'x_python', 'x_python_cpu')} | "
                    f"{('`' + r['peer'][:40] + '`') if r['peer'] else '-'} | {r['peer_ms'] or '-'} | "
                    f"{pair(r, 'x_peer', 'x_peer_cpu')} | {verdict} |")
            if before_env:
                line += f" {pair(r, 'before_x_python', 'before_x_python_cpu')} | {pair(r, 'before_x_peer', 'before_x_peer_cpu')} |"
            print(line)
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
