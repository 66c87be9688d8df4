#!/usr/bin/env python3
"""What msd's guard hooks cost in the real host, measured side by side in one run (issue 35 item 4).

The real Claude Code CLI (pinned in tests/host/hostkit.py) runs scripted sessions against the
local stand-in model (it answers at once, so the host's own work and the hook processes are all
the time there is: the worst case for a hook's share). One global `msd install`; each variant is
that install's settings.json with some of msd's hook entries taken out:

  no hooks        none of msd's hooks (and no guard server)
  no guards       msd's hooks without the guard rows (`hook pre-tool-use`) and without the guard
                  server (the baseline every ratio is taken against)
  guards          everything `msd install --global` registers: the guard rows are mcp_tool hooks
                  calling msd's guard server, which the host starts once per session
  server floor    the same rows calling, under the same name, a server of a dozen lines (this script's
                  FLOOR_SERVER, Python with -I -S) that answers every call with no verdict: the least
                  a guard served over MCP can cost, next to what msd's own server adds
  command hook    the guard rows as a local install writes them: a process per guarded call
                  (msd's python -I -S -c <start> hook pre-tool-use), no server
  console script  the command rows started through pip's `msd_run` script instead (site, re)
  floor           the command rows' program replaced by /bin/true: what the host itself spends
                  starting a hook process, the least any command hook can cost
  python start    the command rows' program replaced by `<msd's python> -I -S -c pass`: the least
                  a hook written in Python can cost (the interpreter's own start, no msd code)
  shell client    the command rows' program replaced by /bin/sh running SHELL_CLIENT: it takes a free
                  slot of a folder of FIFOs (a noclobber lock file), writes the hook's input to the
                  slot's request FIFO and prints what comes back on its reply FIFO, where a daemon in
                  this script (threads, one per slot) answers every call with no verdict: the least
                  a guard that starts no Python per call, and no server the host knows of, can cost
  http floor      the guard rows replaced by `http` hooks POSTing to a server in this script that
                  answers 200 with an empty body at once: the least a guard with no process can cost
  word rules      the guard rows as the release of 2026-12-07 wrote them (guard server): the Bash row
                  one entry per secret word, each with its `if` rule `Bash(*<word>*)` (WORD_RULES), which
                  the host matches on a command's words: no hook for an ordinary command or a redirection,
                  and every entry (25 calls) for one it cannot split (a loop, `$(...)`)
  word rules command  the same rows as a local install wrote them: a process per matching entry
  before          the rows of the release before issue 35 (PostToolUse `Bash|Agent`: a hook process
                  on every Bash call), no guards: what the Bash session cost before

Sessions (each a prompt, then the calls one per turn, then a reply):

  bash5        five ordinary Bash calls (each one passes the secret guard; every Bash call reaches it)
  loop5        five Bash calls the host cannot split into simple commands (a loop, `$(...)`, a variable
               set and used), allowed by `--allowedTools Bash` (each one passes the secret guard)
  write10      ten Writes of new `.planning/` documents (each one passes the write guard)
  edit10       ten Edits of an existing `.planning/` document (each one passes the write guard)
  read10       ten Reads of project files (each one passes the secret guard)

Each round runs every variant of every session once, in an order shuffled anew each round (--seed),
so machine load and a session's leftovers hit them alike. What is timed is the `claude` process
alone, start to exit (the stand-in model's own start and stop are left out): its wall time, its
CPU time (the host and every process it started and waited for), and where the wall time went
(start: to the first model request; calls: first to last request; end: last request to exit, where
the host stops its MCP servers). Each variant's median is printed with its ratio to "no guards"
and the 95 % interval of that ratio over resampled rounds; the goal (at most 1.15x for bash5 and
write10) is met only when both intervals lie at or below it, missed when one lies above it. `--model-seconds S`
makes the stand-in model take S seconds per turn (default 0: the worst case for a hook's share;
a real model takes seconds, so this shows what a user's session feels). `--host-env NAME=VALUE`
adds an environment variable to every session's `claude`, baseline included (an experiment on
the host's own switches, such as MCP_PROTOCOL_NEGOTIATION=legacy).

    .venv/bin/python scripts/bench_guards.py [--rounds 7] [--json] [--only bash5 --only write10] [--model-seconds 1]
        [--variant guards --variant "command hook"] [--host-env NAME=VALUE] [--seed 0]

`--accuracy` measures something else, without the host: whether each guard decides right on the
labelled cases of tests/hooks/guard_corpus/*.json and the real `.planning/` corpus (per class:
cases, wrong allows, wrong denies; exit 1 on any wrong case). See scripts/guard_accuracy.py.

    .venv/bin/python scripts/bench_guards.py --accuracy [--cases DIR] [--real-corpus DIR | --no-real-corpus]
        [--transport command --transport server] [--json]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "host"))

import hostkit  # noqa: E402

GOAL = 1.15
GOAL_SESSIONS = ("bash5", "write10")  # the sessions the goal is set for
BASELINE = "no guards"  # every ratio is taken against it
SAMPLES = ("wall", "cpu", "start", "calls", "end")  # what each run records (seconds)
RESAMPLES = 2000  # bootstrap resamples of the rounds for each ratio's interval
VARIANTS = ("no hooks", "no guards", "guards", "server floor", "command hook", "console script", "floor", "python start",
            "shell client", "http floor", "word rules", "word rules command", "before")
SERVED = ("guards", "server floor", "word rules")  # the variants whose session has a server registered as msd-guard
# the words of the Bash guard rows' `if` rules up to 2026-12-07 (one entry each: the "word rules" variants)
WORD_RULES = (".env", ".ENV", ".Env", ".pem", ".key", ".p12", ".pfx", ".jks", ".ppk", "id_rsa", "id_dsa", "id_ecdsa",
              "id_ed25519", "netrc", ".pgpass", "credentials", ".npmrc", ".pypirc", ".htpasswd", "secret", "service-account",
              ".tfvars", ".tfstate", ".docker/config", ".kube/config")
FLOOR_SERVER = """import sys, json
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    method, out = m.get("method"), {"jsonrpc": "2.0", "id": m["id"]}
    if method == "initialize":
        out["result"] = {"protocolVersion": m.get("params", {}).get("protocolVersion", "2025-06-18"),
                         "capabilities": {"tools": {}}, "serverInfo": {"name": "floor", "version": "0"}}
    elif method == "tools/list":
        out["result"] = {"tools": [{"name": "check", "inputSchema": {"type": "object"}}]}
    elif method in ("tools/call", "ping"):
        out["result"] = {"content": []} if method == "tools/call" else {}
    else:
        out["error"] = {"code": -32601, "message": "method not found"}
    sys.stdout.write(json.dumps(out) + "\\n")
    sys.stdout.flush()
"""
ARGS = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash(echo *)", "Bash(ls *)", "Bash(pwd)", "Bash(true)", "Bash(date *)"]
# the host asks before a command it cannot check (a loop, `$(...)`): loop5 runs with every Bash call allowed
SESSION_ARGS = {"loop5": [*ARGS, "Bash"]}


def sessions(project: Path) -> dict[str, list[dict]]:
    pl = project / ".planning"
    bash = ["echo one", "ls -la", "pwd", "echo two", "date +%s"]
    return {
        "bash5": [hostkit.bash(c) for c in bash] + [{"text": "done"}],
        "loop5": [hostkit.bash(c) for c in ("for i in 1 2; do echo $i; done", "echo $(date +%s)", "x=1; echo $x",
                                            "for f in src/m1.py; do wc -l $f; done", "echo \"$(pwd)\"")] + [{"text": "done"}],
        "write10": [{"tool_use": [{"name": "Write", "input": {"file_path": str(pl / "phases" / "01-auth" / f"01-{i:02d}-PLAN.md"),
                                                              "content": f"---\nphase: 01-auth\nplan: {i:02d}\n---\n# Plan {i}\n"}}]}
                    for i in range(1, 11)] + [{"text": "done"}],
        "edit10": [{"tool_use": [{"name": "Edit", "input": {"file_path": str(pl / "NOTES.md"), "old_string": f"item {i}\n",
                                                            "new_string": f"item {i} done\n"}}]} for i in range(10)] + [{"text": "done"}],
        "read10": [{"tool_use": [{"name": "Read", "input": {"file_path": str(project / "src" / f"m{i}.py")}}]} for i in range(10)]
                  + [{"text": "done"}],
    }


def reset_project(project: Path) -> None:
    pl = project / ".planning"
    if pl.exists():
        shutil.rmtree(pl)
    (pl / "phases" / "01-auth").mkdir(parents=True)
    (pl / "ROADMAP.md").write_text("# Roadmap\n\n- [ ] Phase 1: Auth\n")
    (pl / "NOTES.md").write_text("# Notes\n\n" + "".join(f"item {i}\n" for i in range(10)))
    (project / "src").mkdir(exist_ok=True)
    for i in range(10):
        (project / "src" / f"m{i}.py").write_text(f"X = {i}\n")


def command_rows(obj: dict, runner: str) -> None:
    """The mcp_tool guard rows of a global install turned into the command rows a local one writes."""
    from msd_core.install import host_hooks

    root = installed_root(obj)
    for group in obj["hooks"]["PreToolUse"]:
        group["hooks"] = [host_hooks.hook_entry(Path(runner), host_hooks.GUARD_EVENT, root, h.get("if"), "command")
                          if h.get("type") == "mcp_tool" else h for h in group["hooks"]]


def installed_root(obj: dict) -> str:
    args = obj["hooks"]["SessionStart"][0]["hooks"][0]["args"]
    return args[args.index("--root") + 1]


SHELL_CLIENT = """d=$1
shift
for i in "$@"; do
  if (set -C; : > "$d/lock.$i") 2>/dev/null; then
    cat > "$d/req.$i"
    cat "$d/rep.$i"
    exit 0
  fi
done
exit 1"""


class FifoDaemon:
    """The `shell client` variant's daemon: `slots` pairs of FIFOs in a private folder, a thread per
    slot reading a request to its end, answering with nothing (no verdict) and freeing the slot."""

    def __init__(self, slots: int = 4):
        self.slots = slots
        self.folder = Path(tempfile.mkdtemp(prefix="msd-bench-fifo-"))  # 0700, as mkdtemp makes it
        self.requests: list[bytes] = []
        self.stopping = False
        for i in range(slots):
            os.mkfifo(self.folder / f"req.{i}", 0o600)
            os.mkfifo(self.folder / f"rep.{i}", 0o600)
        import threading

        self.threads = [threading.Thread(target=self._serve, args=(i,), daemon=True) for i in range(slots)]
        for t in self.threads:
            t.start()

    def _serve(self, i: int) -> None:
        while True:
            with open(self.folder / f"req.{i}", "rb") as fh:
                body = fh.read()
            if self.stopping:
                return
            self.requests.append(body)  # recorded before the answer: the client may be gone right after it
            with open(self.folder / f"rep.{i}", "wb"):
                pass
            (self.folder / f"lock.{i}").unlink(missing_ok=True)

    def argv(self) -> list[str]:
        return ["-c", SHELL_CLIENT, "shell-client", str(self.folder), *(str(i) for i in range(self.slots))]

    def close(self) -> None:
        """Each thread waiting for a request gets an empty one and leaves; then the folder goes."""
        self.stopping = True
        for i in range(self.slots):
            try:
                os.close(os.open(self.folder / f"req.{i}", os.O_WRONLY | os.O_NONBLOCK))
            except OSError:  # no reader there now (ENXIO)
                pass
        for t in self.threads:
            t.join(timeout=2)
        shutil.rmtree(self.folder, ignore_errors=True)


def variant_settings(installed: dict, variant: str, runner: str, http_url: str = "", fifo: FifoDaemon | None = None) -> dict:
    obj = copy.deepcopy(installed)
    if variant not in SERVED:
        from msd_core.install.guard_server_setup import PERMISSION

        deny = obj.get("permissions", {}).get("deny", [])
        if PERMISSION in deny:
            deny.remove(PERMISSION)
    if variant in ("command hook", "console script", "floor", "python start", "shell client", "word rules command"):
        command_rows(obj, runner)
    if variant in ("word rules", "word rules command"):
        for group in obj.get("hooks", {}).get("PreToolUse", []):
            if group.get("matcher") == "Bash":
                group["hooks"] = [{**h, "if": f"Bash(*{word}*)"} for h in group["hooks"][:1] for word in WORD_RULES]
        return obj
    if variant == "http floor":
        for group in obj["hooks"]["PreToolUse"]:
            group["hooks"] = [{k: v for k, v in {"type": "http", "url": http_url, "timeout": h.get("timeout"),
                                                 "if": h.get("if")}.items() if v is not None} for h in group["hooks"]]
        return obj
    if variant in ("console script", "floor", "python start", "shell client"):
        for group in obj["hooks"]["PreToolUse"]:
            for h in group["hooks"]:
                assert h["args"][:3] == ["-I", "-S", "-c"], h  # the install's lean start
                if variant == "python start":
                    h["args"] = ["-I", "-S", "-c", "pass"]
                elif variant == "shell client":
                    h["command"], h["args"] = "/bin/sh", (fifo.argv() if fifo else ["-c", SHELL_CLIENT])
                else:
                    h["command"], h["args"] = (runner, h["args"][4:]) if variant == "console script" else ("/bin/true", [])
        return obj
    if variant == "no hooks":
        obj.pop("hooks", None)
        return obj
    if variant == "before":
        hooks = obj.get("hooks", {})
        post = [h for g in hooks.get("PostToolUse", []) for h in g["hooks"]][:1]
        for h in post:
            h.pop("if", None)
        hooks["PostToolUse"] = [{"matcher": "Bash|Agent", "hooks": post}]
        hooks.pop("PreToolUse", None)
        return obj
    if variant == "no guards":
        obj.get("hooks", {}).pop("PreToolUse", None)
    return obj


def host_file_for(host, installed_servers: dict, variant: str) -> None:
    """~/.claude.json as the variant has it: msd's guard server registered only where its rows call it
    (the host writes the file too, so only that one entry is put in or taken out)."""
    from msd_core.install.guard_server_setup import SERVER

    path = host.home / ".claude.json"  # the host's HOME: the install's default config folder
    obj = json.loads(path.read_text()) if path.is_file() else {}
    servers = obj.setdefault("mcpServers", {})
    if variant == "server floor":
        servers[SERVER] = {**installed_servers[SERVER], "args": ["-I", "-S", "-c", FLOOR_SERVER]}
    elif variant in SERVED:
        servers[SERVER] = installed_servers[SERVER]
    else:
        servers.pop(SERVER, None)
    path.write_text(json.dumps(obj, indent=2) + "\n")


def host_env(pairs: list[str]) -> dict[str, str]:
    """`NAME=VALUE` pairs (--host-env) as the environment added to every session's `claude`;
    ValueError names the first pair that is not one."""
    env = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.isidentifier():
            raise ValueError(f"--host-env {pair!r}: expected NAME=VALUE")
        env[name] = value
    return env


def measure(rounds: int, only: list[str], model_seconds: float = 0.0, variants: list[str] = (),
            env: dict | None = None, seed: int = 0) -> dict:
    claude = hostkit.ensure_claude()
    version = hostkit.check_version(claude)
    work = Path(tempfile.mkdtemp(prefix="msd-bench-guards-"))
    server = hostkit.hook_listener()  # the `http floor` variant's endpoint: no verdict
    http_url = f"http://127.0.0.1:{server.server_address[1]}/guard"
    fifo = FifoDaemon()
    order = random.Random(seed)
    try:
        host = hostkit.Host(claude, work / "h")
        host.install("global")
        settings = host.config_dir / "settings.json"
        installed = json.loads(settings.read_text())
        runner = installed["hooks"]["SessionStart"][0]["hooks"][0]["command"]  # msd_run, as the install names it
        installed_servers = json.loads((host.home / ".claude.json").read_text())["mcpServers"]
        if {h.get("type") for g in installed["hooks"]["PreToolUse"] for h in g["hooks"]} != {"mcp_tool"}:
            raise SystemExit("bench: the global install's guard rows are not mcp_tool hooks calling the guard server")
        # compiled bytecode, as a pip install leaves it (hooks would otherwise compile on every start)
        os.system(f"{sys.executable} -m compileall -q {REPO / 'msd_core'} > /dev/null")
        scripts = {name: [{**turn, "seconds": model_seconds} if model_seconds else turn for turn in turns]
                   for name, turns in sessions(host.project).items()}
        names = [n for n in scripts if not only or n in only]
        times: dict = {}
        for _ in range(rounds):
            for name, variant in round_runs(names, variants, order):
                reset_project(host.project)
                settings.write_text(json.dumps(variant_settings(installed, variant, runner, http_url, fifo), indent=2) + "\n")
                host_file_for(host, installed_servers, variant)
                calls, answered = server.calls, len(fifo.requests)
                run = host.run("GO", scripts[name], args=SESSION_ARGS.get(name, ARGS), env=env)
                if run.returncode != 0 or any(err for _n, _i, _t, err in run.tool_results):
                    raise SystemExit(f"bench: {name}/{variant} failed: {run.stderr[-400:]} {run.tool_results[:3]}")
                if variant == "http floor" and server.calls == calls:
                    raise SystemExit(f"bench: {name}/{variant}: the host never POSTed to the http hook")
                if variant == "shell client" and len(fifo.requests) == answered:
                    raise SystemExit(f"bench: {name}/{variant}: no shell client reached the daemon")
                t = times.setdefault(name, {}).setdefault(variant, {k: [] for k in SAMPLES})
                model = run.model_times()
                t["wall"].append(run.wall_s)
                t["cpu"].append(run.cpu_s)
                t["start"].append(model[0])
                t["calls"].append(model[-1] - model[0])
                t["end"].append(run.wall_s - model[-1])
    finally:
        server.shutdown()
        fifo.close()
        shutil.rmtree(work, ignore_errors=True)
    return summarise(times, {"host": f"Claude Code {version}", "rounds": rounds, "model_seconds": model_seconds,
                             "host_env": dict(env or {}), "seed": seed})


def round_runs(names: list[str], variants, order: random.Random) -> list[tuple[str, str]]:
    """One round: every chosen variant of every session once ("no guards" always; "before" on bash5
    only), shuffled by `order` so that no variant is always first or always after the same one."""
    runs = [(name, variant) for name in names for variant in VARIANTS
            if not (variant == "before" and name != "bash5") and (not variants or variant in variants or variant == BASELINE)]
    order.shuffle(runs)
    return runs


def interval(variant: list[float], base: list[float], seed: int = 0, resamples: int = RESAMPLES) -> tuple[float, float]:
    """The 95 % interval of median(variant) / median(base), by resampling whole rounds (the i-th
    value of both lists comes from the same round) with replacement."""
    pick = random.Random(seed)
    n = len(base)
    ratios = []
    for _ in range(resamples):
        rows = [pick.randrange(n) for _ in range(n)]
        ratios.append(statistics.median(variant[i] for i in rows) / statistics.median(base[i] for i in rows))
    ratios.sort()
    return ratios[int(0.025 * resamples)], ratios[int(0.975 * resamples) - 1]


def summarise(times: dict, report: dict) -> dict:
    """Medians per variant, each ratio to the baseline with its interval, and where the time went."""
    report["sessions"] = {}
    for name, by_variant in times.items():
        base = by_variant[BASELINE]
        row = {}
        for variant, t in by_variant.items():
            entry = {f"{k}_s": round(statistics.median(t[k]), 3) for k in SAMPLES}
            for k in ("wall", "cpu"):
                entry[f"{k}_ratio"] = round(statistics.median(t[k]) / statistics.median(base[k]), 3)
                entry[f"{k}_interval"] = [round(x, 3) for x in interval(t[k], base[k])]
            row[variant] = entry
        report["sessions"][name] = row
    return report


def verdict(r: dict) -> str:
    """met: every goal session's interval lies at or below GOAL; missed: one lies above it; else not shown."""
    unmeasured = [n for n in GOAL_SESSIONS if "guards" not in r["sessions"].get(n, {})]
    if unmeasured:
        return f"not shown ({' and '.join(unmeasured)} not measured)"
    got = {n: r["sessions"][n]["guards"] for n in GOAL_SESSIONS}
    shown = ", ".join(f"{n} {g['wall_ratio']:.3f}x [{g['wall_interval'][0]:.3f}-{g['wall_interval'][1]:.3f}]" for n, g in got.items())
    if any(g["wall_interval"][0] > GOAL for g in got.values()):
        return f"missed ({shown})"
    if all(g["wall_interval"][1] <= GOAL for g in got.values()):
        return f"met ({shown})"
    return f"not shown: an interval holds {GOAL}x ({shown})"


def markdown(r: dict) -> str:
    model = f", the model answering in {r['model_seconds']:g} s per turn" if r.get("model_seconds") else ", the model answering at once"
    model += "".join(f", {k}={v}" for k, v in r.get("host_env", {}).items())
    lines = [f"Guard hooks in {r['host']}, {r['rounds']} rounds in shuffled order{model}. Times are the CLI's own run "
             f"(median); each ratio to \"{BASELINE}\" has the 95 % interval of resampled rounds; the wall time splits "
             "into start (to the first model request), calls (first to last) and end (last request to exit):", "",
             "| session | variant | wall s | ratio | interval | CPU s | ratio | start s | calls s | end s |",
             "|---|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for name, row in r["sessions"].items():
        for variant in VARIANTS:
            if variant in row:
                v = row[variant]
                lo, hi = v["wall_interval"]
                lines.append(f"| {name} | {variant} | {v['wall_s']:.3f} | {v['wall_ratio']:.3f}x | {lo:.3f}-{hi:.3f} | "
                             f"{v['cpu_s']:.3f} | {v['cpu_ratio']:.3f}x | {v['start_s']:.3f} | {v['calls_s']:.3f} | {v['end_s']:.3f} |")
    lines += ["", f"Goal: guards at most {GOAL}x the time without for {' and '.join(GOAL_SESSIONS)}: {verdict(r)}."]
    for name, row in r["sessions"].items():
        if all(v in row for v in ("floor", "python start", "command hook", "console script")):
            lines.append(f"{name}: the host alone starting a hook per call (floor) {row['floor']['wall_ratio']:.3f}x; Python's own "
                         f"start on top of it +{row['python start']['wall_ratio'] - row['floor']['wall_ratio']:.3f}x; msd's command "
                         f"guard on top of that +{row['command hook']['wall_ratio'] - row['python start']['wall_ratio']:.3f}x (console "
                         f"script +{row['console script']['wall_ratio'] - row['python start']['wall_ratio']:.3f}x)"
                         + (f"; a guard with no process (http floor) {row['http floor']['wall_ratio']:.3f}x" if "http floor" in row else "")
                         + (f"; msd's guard server (guards) {row['guards']['wall_ratio']:.3f}x." if "guards" in row else "."))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    ap.add_argument("--only", action="append", default=[], help="a session to run (repeatable)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--model-seconds", type=float, default=0.0, help="the stand-in model's time per turn (default 0)")
    ap.add_argument("--variant", action="append", default=[], choices=VARIANTS, metavar="NAME",
                    help="a variant to run (repeatable; \"no guards\", the baseline, always runs; default: all)")
    ap.add_argument("--host-env", action="append", default=[], metavar="NAME=VALUE",
                    help="an environment variable for every session's claude (repeatable), e.g. "
                         "MCP_PROTOCOL_NEGOTIATION=legacy")
    ap.add_argument("--seed", type=int, default=0, help="the order of the runs in each round (default 0)")
    ap.add_argument("--accuracy", action="store_true", help="the guards' decisions on the labelled cases, no host")
    ap.add_argument("--cases", action="append", default=[], metavar="DIR",
                    help="with --accuracy: a folder of case files (repeatable; default tests/hooks/guard_corpus)")
    ap.add_argument("--real-corpus", metavar="DIR", help="with --accuracy: the real .planning/ corpus (default ../shared/corpus/planning)")
    ap.add_argument("--no-real-corpus", action="store_true", help="with --accuracy: the labelled cases alone")
    ap.add_argument("--transport", action="append", default=[], choices=("command", "server"),
                    help="with --accuracy: the transport to decide through (repeatable; default both)")
    a = ap.parse_args(argv)
    if a.accuracy:
        sys.path.insert(0, str(REPO / "scripts"))
        import guard_accuracy

        return guard_accuracy.main(a.cases, "" if a.no_real_corpus else a.real_corpus, a.transport, a.json)
    try:
        env = host_env(a.host_env)
    except ValueError as exc:
        ap.error(str(exc))
    if not 1 <= a.rounds <= 100:
        ap.error("--rounds must be from 1 to 100")
    if not 0 <= a.model_seconds <= 30:
        ap.error("--model-seconds must be from 0 to 30")
    report, failed = hostkit.bench_measure(measure, a.rounds, a.only, a.model_seconds, a.variant, env, a.seed)
    if failed is not None:
        return failed
    print(json.dumps(report, indent=2) if a.json else markdown(report), end="\n" if a.json else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
