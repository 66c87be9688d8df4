"""A project's usage from the host's transcripts: totals per phase, plan, agent and command.

`scan(root, config)` reads every transcript of the project (msd_core.usage.locate), main
sessions first and each one's subagents after it (a subagent's launch, read from its parent,
gives its command, phase and plan), one line at a time (msd_core.usage.jsonl); `build(files)`
turns the per-file summaries into the report. Per phase and per plan: requests, tokens by kind
(input, cache read, cache write, output), and the executor's context when it started its first
task and at its peak, as a share of the model's context window.

What the transcripts hold no request line for (the host's compaction summaries) is reported
apart: `unattributed` is, per session, what the host counted (its last `cost-state` line)
less the requests attributed here, never below zero; sessions without such a line add nothing.

The window of a model: what the host reported for it (its status line input carries
`context_window.context_window_size`, kept by `msd_run statusline` in the usage cache), else
the config key `usage.context_window`, else 200,000.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.usage import jsonl, locate
from msd_core.usage.attribute import MAIN, Scanner

DEFAULT_WINDOW = 200_000
KINDS = ("requests", "input", "cache_read", "cache_write", "output")


def scan_file(path: Path, agent: str = MAIN, launch: dict | None = None, scanner: Scanner | None = None,
              start: int = 0) -> tuple[Scanner, int]:
    """(the scanner after every complete line from `start`, the offset it stopped at)."""
    scanner = scanner or Scanner(agent, launch)
    offset = start
    try:
        for offset, raw in jsonl.lines(path, start):
            scanner.feed_raw(raw)
    except OSError:
        pass  # removed or unreadable meanwhile: what was read counts
    return scanner, offset


def subagent_launch(sub: Path, parent: Scanner) -> tuple[str, dict | None]:
    """(agent name, the parent's launch record) of a subagent transcript."""
    meta = locate.subagent_meta(sub)
    launch = parent.state["launches"].get(meta.get("toolUseId")) if isinstance(meta.get("toolUseId"), str) else None
    agent = meta.get("agentType") if isinstance(meta.get("agentType"), str) else None
    return agent or (launch or {}).get("agent") or "subagent", launch


def scan(root: Path, config: Path) -> list[dict]:
    """One summary per transcript: {"path", "session", "agent", "state"} (main before its subagents)."""
    out = []
    for main, subs in locate.sessions(root, config):
        parent, _ = scan_file(main)
        out.append({"path": str(main), "session": main.stem, "agent": MAIN, "state": parent.state})
        for sub in subs:
            agent, launch = subagent_launch(sub, parent)
            scanner, _ = scan_file(sub, agent, launch)
            out.append({"path": str(sub), "session": main.stem, "agent": agent, "state": scanner.state})
    return out


def _zero() -> dict:
    return {k: 0 for k in KINDS}


def _add(into: dict, g: list) -> None:
    for i, k in enumerate(KINDS):
        into[k] += g[i]


def _total(d: dict) -> dict:
    return {**d, "total": d["input"] + d["cache_read"] + d["cache_write"] + d["output"]}


def window_of(model, windows: dict, configured: int | None) -> tuple[int, str]:
    if isinstance(model, str) and isinstance(windows.get(model), int) and windows[model] > 0:
        return windows[model], "host"
    if configured:
        return int(configured), "config"
    return DEFAULT_WINDOW, "default"


def _share(tokens: int, model, windows: dict, configured) -> dict:
    size, source = window_of(model, windows, configured)
    return {"tokens": tokens, "share": round(tokens / size, 4), "window": size, "window_source": source}


def _unattributed(files: list[dict]) -> dict:
    """Per session, the host's own totals less the attributed requests (see the module docstring)."""
    counted: dict[str, list] = {}
    host: dict[str, list] = {}
    for f in files:
        st = f["state"]
        if f["agent"] == MAIN and st.get("host_total"):
            host[f["session"]] = st["host_total"]
        sums = counted.setdefault(f["session"], [0, 0, 0, 0])
        for g in st["groups"].values():
            for i in range(4):
                sums[i] += g[1 + i]
    out = {k: 0 for k in KINDS[1:]}
    for session, total in host.items():
        for i, k in enumerate(KINDS[1:]):
            out[k] += max(0, total[i] - counted.get(session, [0, 0, 0, 0])[i])
    out["total"] = sum(out[k] for k in KINDS[1:])
    out["sessions_counted_by_host"] = len(host)
    return out


def is_executor(agent: str) -> bool:
    return agent.rsplit(":", 1)[-1].endswith("executor")


def build(files: list[dict], windows: dict | None = None, configured_window: int | None = None) -> dict:
    """The report for the summaries `scan` returned."""
    windows = windows or {}
    lines = {"read": 0, "malformed": 0, "unknown": 0, "oversized": 0}
    rows: dict[tuple, dict] = {}
    starts: dict[tuple, tuple] = {}   # (phase, plan) -> (context, model) of the first executor request
    peaks: dict[tuple, tuple] = {}    # (phase, plan) -> the executor's highest context and its model
    sessions = set()
    for f in files:
        st = f["state"]
        for k in lines:
            lines[k] += st["lines"].get(k, 0)
        if st["groups"]:
            sessions.add(f["session"])
        for group, g in st["groups"].items():
            command, phase, plan, agent = group.split("|", 3)
            key = (command or None, phase or None, plan or None, agent)
            row = rows.setdefault(key, {**_zero(), "peak_context": 0, "model": None})
            _add(row, g)
            if g[5] >= row["peak_context"]:
                row["peak_context"], row["model"] = g[5], g[6] or row["model"]
            if is_executor(agent):
                for where in ((phase or None, plan or None), (phase or None, None)):
                    if g[5] >= peaks.get(where, (-1, None))[0]:
                        peaks[where] = (g[5], g[6])
        first = st.get("first")
        if first and is_executor(f["agent"]):
            _c, phase, plan, _a = first["group"].split("|", 3)
            for where in ((phase or None, plan or None), (phase or None, None)):
                starts.setdefault(where, (first["context"], first["model"]))

    def grouped(fields) -> list[dict]:
        out: dict[tuple, dict] = {}
        for key, row in rows.items():
            named = dict(zip(("command", "phase", "plan", "agent"), key))
            k = tuple(named[f] for f in fields)
            if "plan" in fields and named["plan"] is None:
                continue
            agg = out.setdefault(k, {**dict(zip(fields, k)), **_zero(), "peak_context": 0})
            _add(agg, [row[x] for x in KINDS])
            agg["peak_context"] = max(agg["peak_context"], row["peak_context"])
        result = []
        for k, agg in sorted(out.items(), key=lambda kv: tuple(str(x or "") for x in kv[0])):
            entry = _total(agg)
            if "phase" in fields and fields[-1] in ("phase", "plan"):
                where = (entry.get("phase"), entry.get("plan"))
                if where in starts:
                    entry["executor_start"] = _share(starts[where][0], starts[where][1], windows, configured_window)
                if where in peaks:
                    entry["executor_peak"] = _share(peaks[where][0], peaks[where][1], windows, configured_window)
            result.append(entry)
        return result

    totals = _zero()
    for row in rows.values():
        _add(totals, [row[x] for x in KINDS])
    return {
        "unattributed": _unattributed(files),
        "sessions": len(sessions),
        "transcripts": len(files),
        "lines": lines,
        "totals": _total(totals),
        "by_phase": grouped(("phase",)),
        "by_plan": grouped(("phase", "plan")),
        "by_agent": grouped(("agent",)),
        "by_command": grouped(("command",)),
        "rows": [_total({"command": k[0], "phase": k[1], "plan": k[2], "agent": k[3], **{x: r[x] for x in KINDS},
                         "peak_context": r["peak_context"]}) for k, r in sorted(rows.items(), key=lambda kv: tuple(str(x or "") for x in kv[0]))],
    }

