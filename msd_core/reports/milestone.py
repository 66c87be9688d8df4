"""`msd_run milestone-summary [--milestone <v>] [--write]`: a milestone told to a person.

    {"project", "milestone": "current" | <archive label>, "state": lifecycle's milestone state
     ("archived" for an archived one), "finished": bool, "phases": [{"number", "name", "folder",
     "state", "goal"?, "plans", "summaries", "commits", "built", "decisions", "deviations",
     "verification"?, "uat"?}], "totals": {"phases", "done", "plans", "summaries", "commits",
     "deviations", "decisions"}, "written"?}

What was built and the decisions are the SUMMARY facts (`provides`, `key-decisions`: the
history-digest's reading); deviations are the items under each SUMMARY's Deviations heading and
the commits `msd_run commit` recorded as deviations; verification results are the newest
VERIFICATION/UAT status the lifecycle model read. The current milestone's phases and states are
lifecycle.where's; an archived milestone's are its folders under milestones/ or archive/.
`--write` writes the text atomically to `.planning/MILESTONE-SUMMARY.md` (current) or
`.planning/milestones/<v>-MILESTONE-SUMMARY.md` (archived).
"""

from __future__ import annotations

import re
from pathlib import Path

from msd_core.reports import facts

MAX_ITEMS = 12
_GOAL = re.compile(r"^#{2,4}\s+Phase\s+(\d+(?:\.\d+)?)\b.*$", re.I)
_GOAL_LINE = re.compile(r"^\s*(?:[-*]\s+)?\*\*Goal\*\*:?\s*:?\s*(.+)$|^\s*(?:[-*]\s+)?Goal:\s*(.+)$", re.I)


def goals(roadmap_text: str) -> dict[str, str]:
    """{phase number: its Goal line} from a roadmap's `### Phase N: ...` sections."""
    from msd_core.planning.discovery import normalize_phase

    out: dict[str, str] = {}
    current = None
    for line in roadmap_text.splitlines():
        m = _GOAL.match(line)
        if m:
            current = normalize_phase(m.group(1))
            continue
        g = _GOAL_LINE.match(line)
        if g and current and current not in out:
            out[current] = " ".join((g.group(1) or g.group(2)).split())[:300]
    return out


def _archived(root: Path, label: str):
    """[(PhaseInfo, "archived")] of an archived milestone's folders; None when no folder has that label."""
    from msd_core.planning.discovery import phase_dirs
    from msd_core.progress.lifecycle import PhaseInfo, _scan_phase

    dirs = [d for d in phase_dirs(Path(root) / ".planning") if d.milestone == label and d.number is not None]
    if not dirs:
        return None
    out = []
    for d in dirs:
        info = PhaseInfo(d.number, d.slug, folder=d.path)
        _scan_phase(info, [], Path(root))
        out.append((info, "archived"))
    return out


def labels(root: Path) -> list[str]:
    from msd_core.planning.discovery import phase_dirs

    return sorted({d.milestone for d in phase_dirs(Path(root) / ".planning") if d.milestone})


def summary(root: Path, milestone: str | None = None) -> dict:
    from msd_core.errors import UsageError
    from msd_core.progress.lifecycle import where

    root = Path(root)
    if milestone:
        states = _archived(root, milestone)
        if states is None:
            known = ", ".join(labels(root)) or "none"
            raise UsageError(f"no archived milestone {milestone!r} (archived: {known})")
        state, finished = "archived", True
        roadmap = facts.read_text(_archived_roadmap(root, milestone)) if _archived_roadmap(root, milestone) else ""
    else:
        w = where(root, read_state=False)
        states, state, finished = w.states, w.milestone, w.milestone in ("audit", "complete", "between")
        roadmap = facts.read_text(root / ".planning" / "ROADMAP.md")
    goal_of = goals(roadmap)
    commits, _bad = facts.commits_by_phase(root)
    by_folder = facts.summary_facts(root)
    phases = []
    for info, s in states:
        folder = info.folder.relative_to(root).as_posix() if info.folder is not None else None
        summaries = [f for f in by_folder.get(folder, []) if not f.get("skip")] if folder else []
        rec = commits.get(info.folder.name, {}) if info.folder is not None else {}
        devs = []
        for f in summaries:
            devs += facts.deviations(facts.read_text(root / f["file"]))
        row = {"number": info.number, "name": info.name, "folder": folder, "state": s,
               "plans": len(info.plans), "summaries": info.summaries, "commits": rec.get("commits", 0),
               "built": _unique(x for f in summaries for x in f.get("provides", [])),
               "decisions": _unique(x for f in summaries for x in f.get("decisions", [])),
               "deviations": _unique(devs), "recorded_deviations": rec.get("deviations", 0)}
        if info.number in goal_of:
            row["goal"] = goal_of[info.number]
        for check in (info.verification, info.uat):
            if check is not None:
                row[check.kind] = check.status or "unknown"
        phases.append(row)
    totals = {"phases": len(phases), "done": sum(1 for p in phases if p["state"] in ("done", "archived")),
              "plans": sum(p["plans"] for p in phases), "summaries": sum(p["summaries"] for p in phases),
              "commits": sum(p["commits"] for p in phases),
              "deviations": sum(len(p["deviations"]) + p["recorded_deviations"] for p in phases),
              "decisions": sum(len(p["decisions"]) for p in phases)}
    return {"project": str(root), "milestone": milestone or "current", "state": state, "finished": finished,
            "phases": phases, "totals": totals}


def _archived_roadmap(root: Path, label: str) -> Path | None:
    planning = Path(root) / ".planning"
    for p in (planning / "milestones" / f"{label}-ROADMAP.md", planning / "milestones" / label / "ROADMAP.md",
              planning / "archive" / label / "ROADMAP.md"):
        if p.is_file() and not p.is_symlink():
            return p
    return None


def _unique(items) -> list[str]:
    out: list[str] = []
    for x in items:
        if isinstance(x, str) and x and x not in out:
            out.append(x)
    return out[:MAX_ITEMS]


def text(out: dict) -> str:
    t = out["totals"]
    title = "the current milestone" if out["milestone"] == "current" else f"milestone {out['milestone']}"
    lines = [f"# Summary of {title}", ""]
    if not out["finished"]:
        lines += ["> Not finished: phases are left. This is the summary so far.", ""]
    lines += [f"{t['done']} of {t['phases']} phases done · {t['plans']} plans · {t['summaries']} summaries · "
              f"{t['commits']} recorded commits · {t['decisions']} decisions · {t['deviations']} deviations", ""]
    for p in out["phases"]:
        lines.append(f"## Phase {p['number']}: {p['name'] or '(unnamed)'} ({p['state']})")
        if p.get("goal"):
            lines.append(f"Goal: {p['goal']}")
        checks = [f"{k} {p[k]}" for k in ("verification", "uat") if k in p]
        lines.append(f"Plans {p['summaries']}/{p['plans']} summarised · commits {p['commits']}"
                     + (f" · {', '.join(checks)}" if checks else " · not verified"))
        for head, key in (("Built", "built"), ("Decisions", "decisions"), ("Deviations", "deviations")):
            if p[key]:
                lines.append(f"{head}:")
                lines += [f"- {x}" for x in p[key]]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def write(root: Path, out: dict) -> str:
    """Write the text atomically; the path written, relative to the project."""
    from msd_core.files.atomic import atomic_write_text

    planning = Path(root) / ".planning"
    rel = ("MILESTONE-SUMMARY.md" if out["milestone"] == "current" else f"milestones/{out['milestone']}-MILESTONE-SUMMARY.md")
    atomic_write_text(planning / rel, text(out), anchor=Path(root))
    return f".planning/{rel}"
