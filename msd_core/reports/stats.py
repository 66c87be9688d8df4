"""`msd_run stats`: the project in numbers, per phase of the current milestone and in total.

    {"project", "milestone": {"state", "reason"}, "phases": {"total", "done", "by_state": {state: n}},
     "plans": n, "summaries": n, "commits": {"recorded": n, "deviations": n, "unreadable_records": n},
     "tests": {"runs", "last": {"status", "label", "tests"?} | None, "failed_marker"},
     "tokens": {"sessions", "totals", "by_phase"} | null,
     "per_phase": [{"number", "name", "state", "plans", "summaries", "commits", "tokens"?}]}

Phases and their states are lifecycle.where's; commits are those `msd_run commit` recorded (run
records); tests are the gate's last run (execution.gate.test_counts); tokens are the usage
meter's, only where the host's transcripts exist (`tokens` is null otherwise).
"""

from __future__ import annotations

from pathlib import Path

from msd_core.reports import facts


def stats(root: Path, *, config: Path | None = None, usage: bool = True) -> dict:
    from msd_core.progress.lifecycle import where

    root = Path(root)
    w = where(root, read_state=False)
    commits, bad = facts.commits_by_phase(root)
    tokens = facts.tokens_by_phase(root, config) if usage else None
    by_state: dict[str, int] = {}
    rows = []
    for info, state in w.states:
        by_state[state] = by_state.get(state, 0) + 1
        folder = info.folder.name if info.folder is not None else None
        rec = commits.get(folder, {}) if folder else {}
        row = {"number": info.number, "name": info.name, "state": state, "plans": len(info.plans),
               "summaries": info.summaries, "commits": rec.get("commits", 0)}
        if tokens is not None:
            row["tokens"] = tokens["by_phase"].get(facts.phase_key(info.number), {}).get("total", 0)
        rows.append(row)
    return {
        "project": str(root),
        "milestone": {"state": w.milestone, "reason": w.milestone_reason},
        "phases": {"total": len(w.phases), "done": w.done_count, "by_state": dict(sorted(by_state.items()))},
        "plans": sum(r["plans"] for r in rows),
        "summaries": sum(r["summaries"] for r in rows),
        "commits": {"recorded": sum(r["commits"] for r in commits.values()),
                    "deviations": sum(r["deviations"] for r in commits.values()), "unreadable_records": len(bad)},
        "tests": facts.tests_of(root),
        "tokens": tokens,
        "per_phase": rows,
    }


def text(out: dict) -> str:
    """The person's view: a few lines and a table."""
    p, t = out["phases"], out["tests"]
    lines = [f"Milestone: {out['milestone']['state']} ({out['milestone']['reason'] or 'phases left'})",
             f"Phases: {p['done']} of {p['total']} done · plans {out['plans']} · summaries {out['summaries']} · "
             f"recorded commits {out['commits']['recorded']} ({out['commits']['deviations']} deviations)"]
    last = t.get("last")
    if last:
        counts = last.get("tests")
        shown = ", ".join(f"{v} {k}" for k, v in counts.items() if v) if counts else "no counts in the output"
        lines.append(f"Tests: last gate run {last.get('status')} ({shown}); {t['runs']} runs recorded")
    else:
        lines.append("Tests: no gate run recorded")
    tok = out.get("tokens")
    lines.append(f"Tokens: {tok['totals']['total']:,} over {tok['sessions']} sessions" if tok else
                 "Tokens: no session transcripts for this project")
    lines.append("")
    head = "| phase | name | state | plans | summaries | commits |" + (" tokens |" if tok else "")
    lines += [head, "|" + "---|" * (7 if tok else 6)]
    for r in out["per_phase"]:
        cells = [r["number"], r["name"] or "-", r["state"], r["plans"], r["summaries"], r["commits"]]
        if tok:
            cells.append(f"{r.get('tokens', 0):,}")
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"
