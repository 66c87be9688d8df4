"""A phase's waves: which plans run next, how many at once, and in which working tree.

`phase_waves(phase_dir, cfg)` reads every `*-PLAN.md` of one phase folder and answers:

- `plans`: id, path, wave, depends_on, files, complete (its SUMMARY exists and, once msd executes
  the project, its recorded commits prove it: msd_core.progress.evidence; else `unproven` says
  what is missing and the plan runs again), autonomous
  (false when the frontmatter says so or when any task is a `checkpoint:*`: a plan that
  stops for a person never runs in a parallel, isolated batch, whatever its frontmatter says);
- `contradictions`: plans whose frontmatter says `autonomous: true` (or nothing) while a task
  is a checkpoint. `wave check` exits 1 on them as on overlaps: the plan is wrong, the planner
  fixes it; `wave plan` runs such a plan alone in the main checkout.
- `overlaps`: two plans of one wave, neither executed yet, declaring one file (a folder
  `src/x/` covers what is under it; an executed plan never runs again, so a gap plan may share
  its files). That is a planning error: `wave check` and `wave plan` exit 1 naming both
  plans and the files; the plan checker refuses the phase.
- `next_wave`: the lowest wave holding an incomplete plan that is not skipped; `runnable`:
  its plans whose `depends_on` plans of this phase are complete; `blocked`: the rest,
  with what they wait on; `stuck`: plans remain but none can run (a skipped plan, a
  dependency that never completed, a cycle). A stuck phase leaves the wave loop.
- `mode`: `parallel` when parallelization is on, `parallelization.isolation` is
  `worktree` and the wave holds at least 2 runnable plans without checkpoints; else
  `sequential`.
- `batches`, in order: `{"plans": [...], "isolation": "worktree"|"none"}`. Parallel: the
  autonomous plans in batches of at most `parallelization.max_concurrent_agents`, each
  executor in its own worktree, then each plan with checkpoints alone in the main checkout
  (it pauses and resumes in a fresh executor, which must find its work). Sequential: one
  plan per batch, plan order, all in the main checkout.

A missing or unreadable `wave` counts as 1 and is named in `problems`. Standard library only.
"""

from __future__ import annotations

import re
from pathlib import Path

_PLAN_NUM = re.compile(r"-(\d+)$")


def _as_list(value) -> list:
    from msd_core.planning.must_haves import as_list

    return as_list(value)


def _dep_id(raw, prefix: str, width: int) -> str | None:
    text = str(raw).strip().strip("'\"")
    for suffix in ("-PLAN.md", ".md"):
        if text.endswith(suffix):
            text = text[: -len(suffix)]
    text = text.rsplit("/", 1)[-1]
    if not text:
        return None
    if text.isdigit():
        return f"{prefix}-{int(text):0{width}d}" if prefix else text
    return text


def _covers(a: str, b: str) -> bool:
    if a == b:
        return True
    return (a.endswith("/") and b.startswith(a)) or (b.endswith("/") and a.startswith(b))


def _overlap(files_a: list[str], files_b: list[str]) -> list[str]:
    return sorted({x if not x.endswith("/") else y for x in files_a for y in files_b if _covers(x, y)})


def _int_or_none(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def read_plans(phase_dir: Path) -> tuple[list[dict], list[str]]:
    from msd_core.planning.discovery import plan_files, plan_id
    from msd_core.planning.plan import normalize_declared, parse_plan
    from msd_core.planning.project import read_text_file
    from msd_core.progress import evidence

    plans: list[dict] = []
    problems: list[str] = []
    reading = evidence.Reading(evidence.main_root(Path(phase_dir).parents[2]) if len(Path(phase_dir).parents) > 2 else Path(phase_dir))
    for path in plan_files(phase_dir):
        pid = plan_id(path)
        try:
            _raw, text = read_text_file(path, "plan")
        except Exception as exc:  # noqa: BLE001 - reported, the rest still plans
            problems.append(f"{path.name}: {getattr(exc, 'message', exc)}")
            continue
        plan = parse_plan(text)
        fm = plan.frontmatter
        if plan.frontmatter_error and not fm:
            problems.append(f"{path.name}: frontmatter unreadable ({plan.frontmatter_error})")
        wave = _int_or_none(fm.get("wave"))
        if wave is None:
            problems.append(f"{path.name}: no usable `wave` (counted as 1)")
            wave = 1
        m = _PLAN_NUM.search(pid)
        declared = fm.get("autonomous") not in (False, "false", "no")
        if declared and plan.has_checkpoint:
            problems.append(f"{path.name}: a task is a checkpoint but the frontmatter says autonomous: true "
                            "(it runs alone, in the project; set autonomous: false)")
        plans.append({
            "id": pid,
            "path": str(path),
            "number": int(m.group(1)) if m else 0,
            "wave": wave,
            "depends_on_raw": _as_list(fm.get("depends_on", fm.get("depends-on"))),
            "files": [normalize_declared(f) for f in plan.files if f.strip()],
            "autonomous": declared and not plan.has_checkpoint,
            "contradiction": declared and plan.has_checkpoint,
            "complete": (path.parent / f"{pid}-SUMMARY.md").is_file(),
            "tasks": len(plan.tasks),
        })
        lack = reading.unproven(path.parent, pid, text) if plans[-1]["complete"] else None
        if lack is not None:  # summarised without its recorded commits: it runs again (progress.evidence)
            plans[-1].update(complete=False, unproven=lack["reason"])
    plans.sort(key=lambda p: (p["wave"], p["number"], p["id"]))
    ids = {p["id"] for p in plans}
    for p in plans:
        m = _PLAN_NUM.search(p["id"])
        prefix = p["id"][: m.start()] if m else ""
        width = len(m.group(1)) if m else 2
        deps = []
        for raw in p.pop("depends_on_raw"):
            dep = _dep_id(raw, prefix, width)
            if dep and dep != p["id"] and dep not in deps:
                deps.append(dep)
        p["depends_on"] = [d for d in deps if d in ids]
        p["external_depends_on"] = [d for d in deps if d not in ids]
    return plans, problems


def contradictions(plans: list[dict]) -> list[dict]:
    """Plans whose frontmatter claims autonomy that a checkpoint task denies."""
    return [{"plan": p["id"], "problem": "a task is a checkpoint but autonomous is not false"}
            for p in plans if p.get("contradiction")]


def overlaps(plans: list[dict]) -> list[dict]:
    """Two plans of one wave, both still to run, declaring one file. A plan with its SUMMARY never
    runs again: a gap plan (wave 1 of its own round) may touch what an executed plan touched."""
    out = []
    for i, a in enumerate(plans):
        for b in plans[i + 1:]:
            if a["wave"] != b["wave"] or a["complete"] or b["complete"]:
                continue
            shared = _overlap(a["files"], b["files"])
            if shared:
                out.append({"wave": a["wave"], "plans": [a["id"], b["id"]], "files": shared})
    return out


def _par_settings(cfg) -> dict:
    def get(key, default):
        try:
            value = cfg(key)
        except Exception:  # noqa: BLE001 - an unreadable setting falls back to the safe default
            return default
        return default if value is None else value

    par = get("parallelization", True)
    enabled = par if isinstance(par, bool) else bool(get("parallelization.enabled", True))
    return {
        "enabled": enabled,
        "isolation": str(get("parallelization.isolation", "worktree")),
        "max": max(1, int(get("parallelization.max_concurrent_agents", 3) or 1)),
    }


def phase_waves(phase_dir: Path, cfg, skipped: list[str] | None = None) -> dict:
    """The phase's wave plan (see module docstring). `cfg(key)` answers config values."""
    plans, problems = read_plans(phase_dir)
    skipped_set = set(skipped or [])
    by_id = {p["id"]: p for p in plans}
    incomplete = [p for p in plans if not p["complete"]]
    waiting = [p for p in incomplete if p["id"] not in skipped_set]
    next_wave = min((p["wave"] for p in waiting), default=None)
    runnable: list[str] = []
    blocked: list[dict] = []
    for p in waiting:
        if p["wave"] != next_wave:
            continue
        pending = [d for d in p["depends_on"] if not by_id[d]["complete"]]
        if pending:
            blocked.append({"plan": p["id"], "waiting_on": pending})
        else:
            runnable.append(p["id"])
    settings = _par_settings(cfg)
    autonomous = [pid for pid in runnable if by_id[pid]["autonomous"]]
    parallel = settings["enabled"] and settings["isolation"] == "worktree" and len(autonomous) >= 2
    batches: list[dict] = []
    if parallel:
        size = settings["max"]
        batches = [{"plans": autonomous[i:i + size], "isolation": "worktree"} for i in range(0, len(autonomous), size)]
        # a plan with checkpoints pauses for the user and resumes in a fresh executor: it runs in the
        # main checkout, after the isolated batches are merged
        batches += [{"plans": [pid], "isolation": "none"} for pid in runnable if pid not in autonomous]
    else:
        batches = [{"plans": [pid], "isolation": "none"} for pid in runnable]
    return {
        "phase_dir": Path(phase_dir).name,
        "plans": plans,
        "overlaps": overlaps(plans),
        "contradictions": contradictions(plans),
        "plans_remaining": len(incomplete),
        "skipped": sorted(skipped_set & {p["id"] for p in incomplete}),
        "next_wave": next_wave,
        "runnable": runnable,
        "blocked": blocked,
        "stuck": bool(incomplete) and not runnable,
        "mode": "parallel" if parallel else "sequential",
        "max_concurrent_agents": settings["max"],
        "batches": batches,
        "problems": problems,
    }
