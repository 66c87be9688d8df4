"""A phase's plans not done yet, as the runtime counts them: what `step-done` derives
instead of taking a count from the agent (an agent's count can be wrong).

`open_plans(root, folder)` lists each PLAN of the phase folder that is not done: no SUMMARY, or a
SUMMARY msd holds no proof for (msd_core.progress.evidence, the reading `next` and `wave plan`
ask). Each entry: {"plan", "wave", "reason"}. `wave` is the PLAN frontmatter's `wave` (missing or
unusable: 1, as `msd_run wave plan` counts it). `next_wave` is the lowest wave among them.
Nothing here writes. Standard library only.
"""

from __future__ import annotations

from pathlib import Path


def _wave(value) -> int:
    if isinstance(value, bool):
        return 1
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return 1


def open_plans(root: Path, folder: Path) -> list[dict]:
    """Every plan of `folder` not done, in (wave, plan id) order."""
    from msd_core.planning.discovery import plan_files, plan_id
    from msd_core.planning.plan import parse_plan
    from msd_core.planning.project import read_text_file
    from msd_core.progress import evidence

    reading = evidence.Reading(evidence.main_root(Path(root)))
    out: list[dict] = []
    for path in plan_files(Path(folder)):
        pid = plan_id(path)
        try:
            _raw, text = read_text_file(path, "plan")
        except Exception:  # noqa: BLE001 - an unreadable PLAN still counts, as wave 1
            text = None
        wave = _wave(parse_plan(text).frontmatter.get("wave")) if text is not None else 1
        if not (path.parent / f"{pid}-SUMMARY.md").is_file():
            out.append({"plan": pid, "wave": wave, "reason": "no SUMMARY"})
            continue
        lack = reading.unproven(path.parent, pid, text)
        if lack is not None:
            out.append({"plan": pid, "wave": wave, "reason": lack["reason"]})
    return sorted(out, key=lambda p: (p["wave"], p["plan"]))


def next_wave(plans: list[dict]) -> int | None:
    """The lowest wave holding a plan not done (None: every plan is done)."""
    return min((p["wave"] for p in plans), default=None)
