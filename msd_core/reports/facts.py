"""What the reports share, read only: recorded commits, summary facts, deviations, tests, tokens.

Each reader asks the module that owns the record (run records: msd_core.execution.run_record; the
gate: msd_core.execution.gate; SUMMARY facts: msd_core.planning.digest; usage: msd_core.usage) and
never writes: no cache is created or refreshed here.
"""

from __future__ import annotations

import re
from pathlib import Path

MAX_DEVIATIONS = 8
MAX_READ = 1024 * 1024
_HEADING = re.compile(r"^#{2,4}\s+(.*?)\s*#*\s*$")


def commits_by_phase(root: Path) -> tuple[dict[str, dict], list[dict]]:
    """({phase folder name: {"plans": [plan ids], "commits": n, "by_plan": {plan: n}, "deviations": n, "hashes": [...]}},
    [{"file", "error"}] for run records that do not parse)."""
    from msd_core.execution.run_record import read_all

    out: dict[str, dict] = {}
    bad: list[dict] = []
    for path, record, error in read_all(root):
        if error:
            bad.append({"file": path.name, "error": error})
            continue
        folder = record.get("phase_dir")
        if not isinstance(folder, str):
            continue
        row = out.setdefault(folder, {"plans": [], "commits": 0, "by_plan": {}, "deviations": 0, "hashes": []})
        plan = record.get("plan")
        if isinstance(plan, str) and plan not in row["plans"]:
            row["plans"].append(plan)
        for c in record.get("commits") or []:
            if isinstance(c, dict) and isinstance(c.get("hash"), str):
                row["commits"] += 1
                if isinstance(plan, str):
                    row["by_plan"][plan] = row["by_plan"].get(plan, 0) + 1
                row["hashes"].append(c["hash"])
                row["deviations"] += 1 if c.get("deviation") else 0
    return out, bad


def summary_facts(root: Path) -> dict[str, list[dict]]:
    """{phase folder path (relative to root): [facts of each SUMMARY]} (msd_core.planning.digest, no cache)."""
    from msd_core.planning.digest import collect_facts

    out: dict[str, list[dict]] = {}
    for phase, facts in collect_facts(Path(root), cache=False):
        try:
            key = phase.path.relative_to(root).as_posix()
        except ValueError:
            continue
        out.setdefault(key, []).append(facts)
    return out


def deviations(text: str) -> list[str]:
    """The items under a SUMMARY's `Deviations` heading (`## Deviations from Plan`, ...): bullet lines,
    at most MAX_DEVIATIONS; "None" and its like are no deviation."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        m = _HEADING.match(line)
        if m:
            inside = m.group(1).lower().startswith("deviation")
            continue
        if inside and re.match(r"^\s*[-*]\s+|^\s*\d+\.\s+", line):
            item = " ".join(re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", line).split())
            if item and not re.match(r"^(none|n/a|no deviations?)\b", item, re.I):
                out.append(item[:300])
                if len(out) >= MAX_DEVIATIONS:
                    break
    return out


def read_text(path: Path) -> str:
    from msd_core.files.safe_read import read_regular

    try:
        return read_regular(path, MAX_READ, follow_symlinks=False).decode("utf-8", errors="replace")
    except OSError:
        return ""


def tests_of(root: Path) -> dict:
    """The gate's view: {"runs", "last": {"status", "label", "at"?, "tests"?} | None, "error"?}."""
    from msd_core.execution.gate import recorded, test_counts

    g = recorded(root, limit=200)
    out: dict = {"runs": len(g["runs"]), "last": None, "failed_marker": g["failed_marker"]}
    if g["last_error"]:
        out["error"] = g["last_error"]
    last = g["last"]
    if last is not None:
        row = {k: last.get(k) for k in ("status", "label", "at", "command") if last.get(k) is not None}
        counts = test_counts(last)
        if counts:
            row["tests"] = counts
        out["last"] = row
    return out


def tokens_by_phase(root: Path, config: Path | None) -> dict | None:
    """{"totals": {...}, "by_phase": {"02": {...}}} from the session transcripts the host wrote, or None
    when there are none (the usage meter has nothing for this project)."""
    from msd_core.usage import project

    try:
        rep = project.project_report(Path(root), config)
    except OSError:
        return None
    if not rep.get("transcripts"):
        return None
    by = {row["phase"]: {k: row[k] for k in ("requests", "total", "output")} for row in rep["by_phase"] if row.get("phase")}
    return {"sessions": rep["sessions"], "totals": {k: rep["totals"][k] for k in ("requests", "total", "output")},
            "by_phase": by}


def phase_key(number: str) -> str:
    """The usage meter's key of a phase number (`2` -> `02`, `2.1` -> `02.1`)."""
    from msd_core.usage.attribute import canonical_phase

    return canonical_phase(number) or number
