"""Every health check in order, and the report `msd_run health` prints.

    {"project", "status": "healthy" | "degraded" | "broken", "counts": {"error", "warning", "info"},
     "codes": {code: n}, "repairable": n, "findings": [{"code", "severity", "file", "message"[, "repair"]}]}

status: broken when an error is found, degraded when a warning is (and no error), else healthy.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.health import private, roots, tree
from msd_core.health.codes import ERROR, INFO, SEVERITIES, WARNING, Finding, repair_of, severity

ORDER = {s: i for i, s in enumerate(SEVERITIES)}


def findings(root: Path) -> list[Finding]:
    """Every finding of the project at `root`, most severe first (then in check order)."""
    t = tree.Tree(root)
    found: list[Finding] = []
    for check in (*tree.CHECKS, *roots.CHECKS, *private.CHECKS):
        found += check(t)
    return sorted(found, key=lambda f: ORDER[severity(f.code)])


def status_of(found: list[Finding]) -> str:
    levels = {severity(f.code) for f in found}
    return "broken" if ERROR in levels else "degraded" if WARNING in levels else "healthy"


def report(root: Path, found: list[Finding]) -> dict:
    counts = {s: 0 for s in (ERROR, WARNING, INFO)}
    codes: dict[str, int] = {}
    for f in found:
        counts[severity(f.code)] += 1
        codes[f.code] = codes.get(f.code, 0) + 1
    return {"project": str(root), "status": status_of(found), "counts": counts, "codes": dict(sorted(codes.items())),
            "repairable": sum(1 for f in found if repair_of(f.code)), "findings": [f.to_json() for f in found]}
