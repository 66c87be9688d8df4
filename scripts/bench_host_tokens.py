#!/usr/bin/env python3
"""Context the real host (Claude Code, pinned in tests/host/hostkit.py) sends the model, in proxy tokens.

Measured from the request bodies a scripted local model server records (tests/host/):

  fixed per-turn overhead   turn 2 of the same two-turn run (a prompt, one Bash call, a reply)
                            with the package installed globally, minus the same run with nothing
                            installed: the skill and agent listings every request carries.
                            Per install profile: msd `--profile core` and `full` (issue 34), the
                            leading peer (npm @opengsd/gsd-core@1.14.0) `--profile=core` and full,
                            and the earlier peer (get-shit-done-cc@1.42.3, full). With msd's full
                            profile also per listed item (msd_core/bench/listing.py rebuilds the
                            lines the host lists; the sum is checked against the measure).
  hooks                     the same run in a project with no msd workflow in progress, with msd's
                            hooks (SessionStart, PreCompact, PostToolUse) minus without them: what
                            the hooks add to the first request and to turn 2 (goal: under 100).
  first-request cost        the first request of `/<prefix><command> 1` minus the first request
                            of the plain prompt `1`, same install and project: the skill body,
                            its attached files and any text its shell lines insert.
                            msd: compact content off and on (project config). Peer: as shipped.

msd and the peer (npm get-shit-done-cc@1.42.3, its own installer `--claude --global`) are
installed into the same scratch path one after the other, so every path in the requests has
the same length. Tokenizer: the project's proxy (msd_core.bench.tokenizer, o200k_base).

    .venv/bin/python scripts/bench_host_tokens.py [--json] [--no-peer] [--write-docs docs/PERFORMANCE.md]

Needs npm (both packages install once into ~/.cache/msd-host or $MSD_HOST_CACHE) and the
`bench` extra. About a minute.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "host"))

import hostkit  # noqa: E402

from msd_core.bench.tokenizer import load as load_tokenizer  # noqa: E402
from msd_core.bench.tokens import write_docs_section  # noqa: E402

HEADING = "## Context in the real host"
TURN2_SCRIPT = [{"tool_use": [{"name": "Bash", "input": {"command": "echo bench-turn-two"}}]},
                {"when": "bench-turn-two", "text": "ok"}]
PEER_COMMANDS = ["new-project", "plan-phase", "execute-phase", "progress", "verify-work", "quick"]
GOAL_OVERHEAD_RATIO = 0.25
GOAL_FULL_VS_LEAD = 0.17   # issue 34: msd full <= 0.17x the leading peer's full install
GOAL_CORE = 130            # issue 34: msd core <= 130 proxy tokens per turn
GOAL_OFF = 8000
GOAL_ON = 4500
GOAL_HOOKS = 100


def msd_commands() -> list[str]:
    return sorted(p.stem for p in (REPO / "msd_core" / "content" / "commands" / "msd").glob("*.md"))


def fresh_host(claude: Path, root: Path) -> hostkit.Host:
    for _ in range(20):  # a process the last run started (a host or peer hook) may still be writing there
        shutil.rmtree(root, ignore_errors=True)
        if not root.exists():
            break
        time.sleep(0.5)
    else:
        raise SystemExit(f"bench: cannot empty {root}")
    return hostkit.Host(claude, root)


NUMBERING: dict[str, int] = {}  # prompt -> tokens the host's line numbers add to attached files


def first_tokens(host: hostkit.Host, prompt: str, count) -> int:
    run = host.run(prompt, [{"text": "ok"}])
    if run.refusals:
        raise SystemExit(f"bench: the host refused {prompt!r}: {run.refusals[0]}")
    numbered = hostkit.READ_RESULT.findall(run.first_user_text)
    NUMBERING[prompt] = sum(count(t) - count(hostkit.NUMBERED.sub("", t)) for t in numbered)
    return count(hostkit.request_text(run.first_request))


def turn2_tokens(host: hostkit.Host, count) -> int:
    run = host.run("say ok", TURN2_SCRIPT)
    reqs = run.model_requests
    if len(reqs) < 2:
        raise SystemExit(f"bench: no second request (got {len(reqs)}); stderr: {run.stderr[-500:]}")
    return count(hostkit.request_text(reqs[1]))


def install_peer(host: hostkit.Host, prefix: Path, package: str = hostkit.PEER_PACKAGE, extra: tuple[str, ...] = ()) -> None:
    script = prefix / "node_modules" / package / "bin" / "install.js"
    env = host.env()
    proc = subprocess.run([shutil.which("node") or "node", str(script), "--claude", "--global", *extra], cwd=str(host.project),
                          env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise SystemExit(f"bench: the peer installer failed: {proc.stderr.strip()[-300:]}")


def attach_peer_files(host: hostkit.Host) -> int:
    """Rewrite the peer's `@$HOME/...` skill lines (which the host leaves as inert text) to
    `@~/...`, which it attaches: the cost with its workflow files in context. Returns lines changed."""
    changed = 0
    for skill in (host.config_dir / "skills").glob("gsd-*/SKILL.md"):
        text = skill.read_text()
        new = text.replace("\n@$HOME/", "\n@~/")
        changed += text.count("\n@$HOME/")
        skill.write_text(new)
    return changed


def command_costs(host: hostkit.Host, prefix: str, commands: list[str], count) -> dict[str, int]:
    base = first_tokens(host, "1", count)
    return {c: first_tokens(host, f"/{prefix}{c} 1", count) - base for c in commands}


def profile_overheads(claude: Path, root: Path, count, bare: int, use_peer: bool) -> dict:
    """Fixed per-turn overhead per install profile (msd's, the leading peer's), and msd's listing per item."""
    from msd_core.bench.listing import listing

    out: dict = {"msd": {}, "lead_peer": {}, "items": {}}
    for profile in ("core", "full"):
        host = fresh_host(claude, root)
        host.msd("install", "--global", "--profile", profile)
        out["msd"][profile] = turn2_tokens(host, count) - bare
        out["items"][profile] = listing(host.config_dir, count)
    if use_peer:
        prefix = hostkit.npm_install(hostkit.LEAD_PEER_PACKAGE, hostkit.LEAD_PEER_VERSION)
        for profile, extra in (("core", ("--profile=core",)), ("full", ())):
            host = fresh_host(claude, root)
            install_peer(host, prefix, hostkit.LEAD_PEER_PACKAGE, extra)
            out["lead_peer"][profile] = turn2_tokens(host, count) - bare
    return out


def measure(use_peer: bool, overhead_only: bool = False) -> dict:
    label, count = load_tokenizer()
    claude = hostkit.ensure_claude()
    version = hostkit.check_version(claude)
    work = Path(tempfile.mkdtemp(prefix="msd-bench-host-"))
    root = work / "h"
    try:
        bare = turn2_tokens(fresh_host(claude, root), count)
        profiles = profile_overheads(claude, root, count, bare, use_peer)
        if overhead_only:
            return {"tokenizer": label, "host": f"Claude Code {version}", "turn2_bare": bare, "profiles": profiles}

        host = fresh_host(claude, root)
        host.install("global")
        msd_turn2 = turn2_tokens(host, count)
        (host.project / ".planning").mkdir()
        hooked = (first_tokens(host, "say ok", count), turn2_tokens(host, count))
        settings = host.config_dir / "settings.json"
        kept = settings.read_bytes()
        host.drop_hooks()
        unhooked = (first_tokens(host, "say ok", count), turn2_tokens(host, count))
        settings.write_bytes(kept)
        hooks = {"first_request": hooked[0] - unhooked[0], "turn2": hooked[1] - unhooked[1]}
        costs = {}
        for mode in ("off", "on"):
            host.msd_run("config", "set", "workflow.compact_content", "true" if mode == "on" else "false")
            costs[mode] = command_costs(host, "msd-", msd_commands(), count)
            if mode == "off":
                numbering = {c: NUMBERING[f"/msd-{c} 1"] for c in msd_commands()}

        peer = None
        if use_peer:
            host = fresh_host(claude, root)
            install_peer(host, hostkit.npm_install(hostkit.PEER_PACKAGE, hostkit.PEER_VERSION))
            peer = {"turn2": turn2_tokens(host, count), "shipped": command_costs(host, "gsd-", PEER_COMMANDS, count)}
            if not attach_peer_files(host):
                raise SystemExit("bench: no `@$HOME/` line found in the peer's skills (format changed?)")
            peer["commands"] = command_costs(host, "gsd-", PEER_COMMANDS, count)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report = {
        "tokenizer": label,
        "host": f"Claude Code {version}",
        "turn2_bare": bare,
        "msd": {"overhead": msd_turn2 - bare, "commands": costs, "line_numbers_off": numbering, "hooks": hooks},
        "peer": None,
        "profiles": profiles,
    }
    if peer is not None:
        report["peer"] = {"package": f"{hostkit.PEER_PACKAGE}@{hostkit.PEER_VERSION}",
                          "overhead": peer["turn2"] - bare, "commands": peer["commands"], "shipped": peer["shipped"]}
    return report


def profile_lines(r: dict, goals: list[str]) -> list[str]:
    """The per-profile table (and msd's listing per item) of a report; missed goals appended to `goals`."""
    pr = r.get("profiles")
    if not pr:
        return []
    lead = pr.get("lead_peer") or {}
    peer_name = f"{hostkit.LEAD_PEER_PACKAGE}@{hostkit.LEAD_PEER_VERSION}"
    out = [f"Fixed per-turn overhead per install profile (msd `--profile`, the leading peer {peer_name} `--profile=`):", "",
           "| profile | msd | leading peer | ratio | goal |", "|---|---:|---:|---:|---|"]
    for profile in ("core", "full"):
        m, pv = pr["msd"][profile], lead.get(profile)
        ratio = f"{m / pv:.3f}×" if pv else "—"
        goal = f"≤ {GOAL_CORE}" if profile == "core" else f"≤ {GOAL_FULL_VS_LEAD}× ({int(GOAL_FULL_VS_LEAD * pv) if pv else '—'})"
        out.append(f"| {profile} | {m:,} | {pv if pv is not None else '—':,} | {ratio} | {goal} |" if pv is not None
                   else f"| {profile} | {m:,} | — | — | {goal} |")
        if profile == "core" and m > GOAL_CORE:
            goals.append(f"core overhead {m} > {GOAL_CORE}")
        if profile == "full" and pv and m > GOAL_FULL_VS_LEAD * pv:
            goals.append(f"full overhead {m} > {GOAL_FULL_VS_LEAD}× the leading peer's {pv}")
    items = pr["items"]["full"]
    listed = sum(items.values())
    out += ["", f"msd's listing per item, full profile (proxy tokens of each listed line; sum {listed:,} against "
                f"{pr['msd']['full']:,} measured; core lists {', '.join(sorted(k.split(' ', 1)[1] for k in pr['items']['core']))}):", "",
            "| item | tokens |", "|---|---:|"]
    out += [f"| {k} | {v} |" for k, v in sorted(items.items())]
    return out + [""]


def markdown(r: dict) -> str:
    m, p = r["msd"], r["peer"]
    lines = [
        HEADING, "",
        f"Generated by `.venv/bin/python scripts/bench_host_tokens.py --write-docs docs/PERFORMANCE.md`: what "
        f"{r['host']} sends a scripted local model (tests/host/), in proxy tokens ({r['tokenizer']}).",
        "Fixed overhead: turn 2 of the same run with the package installed globally minus nothing installed "
        f"({r['turn2_bare']:,} tokens). First request: `/<command> 1` minus the plain prompt `1`, same install.",
        "",
    ]
    goals = []
    lines += profile_lines(r, goals)
    if p:
        ratio = m["overhead"] / p["overhead"] if p["overhead"] else float("nan")
        lines += [f"Against the earlier peer ({p['package']}, full install; the rest of this section compares with it):", "",
                  "| fixed per-turn overhead | msd (full) | peer | ratio | goal |", "|---|---:|---:|---:|---|",
                  f"| skill and agent listings | {m['overhead']:,} | {p['overhead']:,} | {ratio:.3f}× | ≤ {GOAL_OVERHEAD_RATIO}× |", ""]
        if ratio > GOAL_OVERHEAD_RATIO:
            goals.append(f"fixed overhead {ratio:.3f}× the peer's (goal ≤ {GOAL_OVERHEAD_RATIO}×): missed")
    else:
        lines += [f"Fixed per-turn overhead of msd: {m['overhead']:,} (peer not measured).", ""]
    h = m.get("hooks")
    if h:
        lines += [f"msd's hooks with no workflow in progress (SessionStart, PreCompact, PostToolUse; goal under "
                  f"{GOAL_HOOKS} each): {h['first_request']:+,} on the first request, {h['turn2']:+,} on turn 2 "
                  "(the same runs with the hooks removed from settings.json as the baseline).", ""]
        if max(abs(h["first_request"]), abs(h["turn2"])) >= GOAL_HOOKS:
            goals.append(f"hooks add {max(h['first_request'], h['turn2']):,} tokens (goal < {GOAL_HOOKS})")
    lines += ["First-request cost. Peer: with its workflow files attached (its skills' `@$HOME/...` lines, which the "
              "host leaves as inert text, rewritten to `@~/...` so the host attaches them; the model would read them "
              "first anyway); in brackets as shipped.", "",
              "| command | msd, compact off | msd, compact on | peer |", "|---|---:|---:|---:|"]
    for c in sorted(set(m["commands"]["off"]) | set(p["commands"] if p else [])):
        off = m["commands"]["off"].get(c)
        on = m["commands"]["on"].get(c)
        peer = p["commands"].get(c) if p else None
        cell = lambda v: f"{v:,}" if v is not None else "—"  # noqa: E731
        peer_cell = f"{peer:,} ({p['shipped'][c]:,})" if peer is not None else "—"
        lines.append(f"| {c} | {cell(off)} | {cell(on)} | {peer_cell} |")
    if p:
        shared = [c for c in PEER_COMMANDS if c in m["commands"]["off"]]
        s_off = sum(m["commands"]["off"][c] for c in shared)
        s_on = sum(m["commands"]["on"][c] for c in shared)
        s_peer = sum(p["commands"][c] for c in shared)
        lines.append(f"| **sum of {', '.join(shared)}** | {s_off:,} ({s_off / s_peer:.2f}×) | {s_on:,} ({s_on / s_peer:.2f}×) | {s_peer:,} |")
    big = max(m["line_numbers_off"], key=m["line_numbers_off"].get)
    lines += ["", f"The host prefixes every line of a file it attaches with its number: with compact off that adds "
              f"{m['line_numbers_off'][big]:,} of {big}'s {m['commands']['off'][big]:,} (measured the same way; the "
              "inserted detail parts carry no numbers)."]
    over_off = {c: v for c, v in m["commands"]["off"].items() if v > GOAL_OFF}
    over_on = {c: v for c, v in m["commands"]["on"].items() if v > GOAL_ON}
    for name, over, goal in (("off", over_off, GOAL_OFF), ("on", over_on, GOAL_ON)):
        for c, v in sorted(over.items()):
            goals.append(f"{c} compact {name}: {v:,} > {goal:,} (by {v - goal:,})")
    lines += ["", f"Goals (issue 14): fixed overhead ≤ {GOAL_OVERHEAD_RATIO}× the peer's; no first request above "
              f"{GOAL_OFF:,} (compact off) or {GOAL_ON:,} (compact on). "
              + ("Missed: " + "; ".join(goals) + "." if goals else "All met.")]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    ap.add_argument("--no-peer", action="store_true", help="measure msd only")
    ap.add_argument("--overhead-only", action="store_true", help="only the fixed per-turn overhead per profile (a few runs)")
    ap.add_argument("--write-docs", type=Path, help=f"replace the '{HEADING[3:]}' section of this markdown file")
    a = ap.parse_args(argv)
    report, failed = hostkit.bench_measure(measure, not a.no_peer, a.overhead_only)
    if failed is not None:
        return failed
    if a.overhead_only:
        goals: list[str] = []
        text = "\n".join([HEADING, "", *profile_lines(report, goals), "Missed: " + "; ".join(goals) if goals else "Goals met."]) + "\n"
        print(json.dumps(report, indent=2, sort_keys=True) if a.json else text, end="" if not a.json else "\n")
        return 0
    text = markdown(report)
    if a.write_docs:
        write_docs_section(a.write_docs, text, HEADING)
    print(json.dumps(report, indent=2, sort_keys=True) if a.json else text, end="" if not a.json else "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
