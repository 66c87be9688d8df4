#!/usr/bin/env python3
"""What each real agent CLI that reads Agent Skills pays per turn for msd's skill list, in proxy tokens.

For each client (Codex, and those tests/runtimes/agent_clients.py runs: Gemini CLI, OpenCode,
Qwen Code, Copilot CLI, Kimi Code; versions pinned in tests/runtimes/clis.py): the first model
request of a plain prompt (`1`) with `msd install --runtime agents --global` (core, then full)
minus the same request with nothing installed, every string of the request body counted (system
text, messages, tool schemas: wherever the client puts the list). Codex's request is read from
`codex debug prompt-input`; the others' from a stand-in model API. A global install, so a client
that shows the workspace's file tree (Gemini CLI) does not count msd's files there.
For Qwen Code, Copilot CLI and Kimi Code also `msd install --runtime qwen|copilot|kimi --global`
(skills in the client's own folder, msd's agents as its subagents): the row `<client> (--runtime)`,
and `subagents` = that minus the agents install, the cost of the subagent list in the client's
subagent tool (Qwen `agent`, Copilot `task`, Kimi `Agent`).
Beside them, Claude Code's listing of `msd install --global` (core and full), rebuilt offline
by msd_core/bench/listing.py (tests/host/test_listing_host.py checks it against the real host).

    .venv/bin/python scripts/bench_agents_listing.py [--json] [--clients codex,qwen] [--runtimes qwen,copilot,kimi]

Needs npm (the CLIs install once into $MSD_RUNTIME_CLI_CACHE) and the `bench` extra. About seven minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from msd_core.bench.tokenizer import load as load_tokenizer  # noqa: E402
from msd_core.shipped.profiles import CORE_COMMANDS  # noqa: E402

CLIENT_ORDER = ("codex", "gemini", "opencode", "qwen", "copilot", "kimi")
OWN_RUNTIMES = ("qwen", "copilot", "kimi")  # clients msd has an install of their own for (msd_core/runtimes)


def _first_request(client: str, project: Path, scratch: Path) -> dict | list:
    """The first model request (with tools) the client sends for the prompt `1`."""
    from tests.runtimes import stand_ins
    from tests.runtimes.clis import cli_binary

    if client == "codex":
        proc = subprocess.run([str(cli_binary("codex")), "debug", "prompt-input", "1"], cwd=project, env=dict(os.environ),
                              capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise RuntimeError(f"codex debug prompt-input: {proc.stderr[-500:]}")
        return json.loads(proc.stdout)
    from tests.runtimes.agent_clients import CLIENTS
    from tests.runtimes.test_agents_spine_cli import turns_of

    c = CLIENTS[client]
    api = stand_ins.gemini_api if c.api == "gemini" else stand_ins.openai_api
    with api(scratch) as (base, record):
        proc = c.run(project, base, "1", scratch)
        if proc.returncode != 0:
            raise RuntimeError(f"{client}: {proc.stderr[-500:]}")
        turns = turns_of(record, c.api)
    if not turns:
        raise RuntimeError(f"{client}: no model request with tools was recorded")
    return turns[0]


def measure(client: str, count, runtime: str = "agents") -> dict[str, int]:
    """{"request": tokens of the request with nothing installed, "core"/"full": what a global install
    of `runtime` (the Agent Skills install, or the client's own) adds}."""
    from msd_core.install.installer import install
    from msd_core.paths import resolve_target
    from tests.runtimes.test_codex_cli import _strings

    out: dict[str, int] = {}
    for profile in ("none", "core", "full"):
        with tempfile.TemporaryDirectory(prefix=f"msd-listing-{client}-") as tmp:
            root = Path(tmp)
            os.environ["HOME"] = str(root / "home")
            (root / "home").mkdir()
            project = root / "project"
            project.mkdir()
            subprocess.run(["git", "init", "-q", str(project)], check=True)
            if profile != "none":
                install(resolve_target("global", runtime=runtime), profile=profile)
            text = "\n".join(_strings(_first_request(client, project, root)))
            out[profile] = count(text)
    return {"request": out["none"], "core": out["core"] - out["none"], "full": out["full"] - out["none"]}


def claude_listing(count) -> dict[str, int]:
    from msd_core.bench.listing import listing
    from msd_core.install.installer import install
    from msd_core.paths import resolve_target

    out = {}
    for profile in ("core", "full"):
        with tempfile.TemporaryDirectory(prefix="msd-listing-claude-") as tmp:
            os.environ["HOME"] = tmp
            t = resolve_target("global")
            install(t, profile=profile)
            out[profile] = sum(listing(t.config, count).values())
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--clients", default=",".join(CLIENT_ORDER))
    ap.add_argument("--runtimes", default=",".join(OWN_RUNTIMES), help="clients whose own install (--runtime) is measured too; '' for none")
    args = ap.parse_args()
    label, count = load_tokenizer()
    real_home = os.environ.get("HOME", "")
    os.environ.pop("MSD_TEST_COMPACT_LOG", None)
    results: dict[str, dict] = {}
    try:
        results["claude (listing)"] = claude_listing(count)
        for client in filter(None, args.clients.split(",")):
            try:
                results[client] = measure(client, count)
            except Exception as exc:  # a client that cannot run here is reported, not counted
                results[client] = {"error": str(exc)[:300]}
        for client in filter(None, args.runtimes.split(",")):
            try:
                own = measure(client, count, runtime=client)
            except Exception as exc:
                results[f"{client} (--runtime)"] = {"error": str(exc)[:300]}
                continue
            base = results.get(client)
            if base and "error" not in base:
                own["subagents core"], own["subagents full"] = own["core"] - base["core"], own["full"] - base["full"]
            results[f"{client} (--runtime)"] = own
    finally:
        os.environ["HOME"] = real_home
    n_core, n_full = len(CORE_COMMANDS), len(list((REPO / "msd_core/content/commands/msd").glob("*.md")))
    if args.json:
        print(json.dumps({"tokenizer": label, "skills": {"core": n_core, "full": n_full}, "results": results}, indent=2))
        return 0
    print(f"tokenizer: {label}; skills listed: core {n_core}, full {n_full}")
    print(f"{'client':<22} {'core':>6} {'full':>6} {'per skill':>10} {'subagents core/full':>20}")
    for name, r in results.items():
        if "error" in r:
            print(f"{name:<22} error: {r['error']}")
            continue
        per = (r["full"] - r["core"]) / (n_full - n_core) if name != "claude (listing)" else float("nan")
        sub = f"{r['subagents core']} / {r['subagents full']}" if "subagents core" in r else ""
        print(f"{name:<22} {r['core']:>6} {r['full']:>6} {per:>10.1f} {sub:>20}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
