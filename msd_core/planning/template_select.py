"""Which SUMMARY template a plan gets: summary-minimal, summary-standard or summary-complex.

Counts (from plan.py): tasks = `<task>` elements; files = distinct paths in the frontmatter
`files_modified` and every task's `<files>`; decisions = `checkpoint:decision` tasks plus
`<decision>` elements; deviations = the frontmatter `deviations` (a list or a number).

Rule, first match wins:
  decisions > 0, deviations > 0 or files > 6      → summary-complex
  tasks <= 2 and files <= 3 (and no decisions)    → summary-minimal
  otherwise                                        → summary-standard

Standard library only.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.planning.plan import Plan

TEMPLATES_DIR = "templates"


def choose(plan: Plan) -> tuple[str, dict, str]:
    counts = {
        "tasks": len(plan.tasks),
        "files": len(plan.files),
        "decisions": plan.decision_count,
        "deviations": plan.deviation_count,
    }
    why = []
    if counts["decisions"]:
        why.append(f"{counts['decisions']} decision(s)")
    if counts["deviations"]:
        why.append(f"{counts['deviations']} deviation(s)")
    if counts["files"] > 6:
        why.append(f"{counts['files']} files > 6")
    if why:
        return "summary-complex", counts, "complex: " + ", ".join(why)
    if counts["tasks"] <= 2 and counts["files"] <= 3:
        return "summary-minimal", counts, f"minimal: {counts['tasks']} task(s) <= 2, {counts['files']} file(s) <= 3, no decisions"
    over = []
    if counts["tasks"] > 2:
        over.append(f"{counts['tasks']} tasks > 2")
    if counts["files"] > 3:
        over.append(f"{counts['files']} files > 3")
    return "summary-standard", counts, "standard: " + ", ".join(over) + "; no decisions, no deviations, <= 6 files"


def select(plan: Plan, root: Path) -> dict:
    """Result of `msd_run template select`: the template, its installed path under `root`, the counts."""
    name, counts, rule = choose(plan)
    path = Path(root) / TEMPLATES_DIR / f"{name}.md"
    out = {"template": name, "path": str(path), "exists": path.is_file(), "counts": counts, "rule": rule}
    if not plan.tasks:
        out["note"] = "no <task> elements found in the plan"
    if plan.frontmatter_error:
        out["frontmatter_error"] = plan.frontmatter_error
    return out
