"""Whether a phase's dependencies on other roots are met (the syntax: msd_core.planning.cross_root).

A dependency `Phase N of <folder>` is met when the root at `<folder>` (under the top of the git
work tree; outside a work tree, under the project's own folder) is a project and its position
model (msd_core.progress.lifecycle.where, the one model `next` uses there) says phase N is done:
verified without gaps, or ticked in its ROADMAP.md; or, when its current milestone has no phase N,
an archived milestone holds it (a completed milestone's phases are shipped: `milestone` names it).
Anything else is not met, with why:

    {"root": "services/api", "phase": "2", "state": "execute" | ... | "missing-root" | "missing-phase"
     | "invalid-folder", "done": false, "line": 12}

Nothing is written. Standard library only.
"""

from __future__ import annotations

from pathlib import Path

from msd_core import paths

MISSING_ROOT, MISSING_PHASE, INVALID = "missing-root", "missing-phase", "invalid-folder"


def top_of(root: Path) -> Path:
    """The folder references are relative to: the git work tree's top, else the project's folder."""
    from msd_core.lean.project_rule import work_tree_top

    top = work_tree_top(str(root))
    return Path(top) if top else Path(root)


def resolve(top: Path, ref, cache: dict | None = None) -> dict:
    """One reference (planning.cross_root.CrossRef) checked against the other root's model."""
    from msd_core.planning.cross_root import folder_of
    from msd_core.progress.lifecycle import where

    out = {"root": ref.folder, "phase": ref.other_phase, "state": INVALID, "done": False, "line": ref.line}
    folder = folder_of(top, ref.folder)
    if folder is None:
        return out
    out["path"] = str(folder)
    if folder.is_symlink() or not paths.planning_dir(folder).is_dir() or paths.planning_dir(folder).is_symlink():
        out["state"] = MISSING_ROOT
        return out
    cache = {} if cache is None else cache
    key = str(folder)
    if key not in cache:
        cache[key] = where(folder, read_state=False)
    for info, state in cache[key].states:
        if info.number == ref.other_phase:
            out["state"], out["done"] = state, state == "done"
            if info.name:
                out["name"] = info.name
            return out
    shipped = _archived(folder, ref.other_phase)
    if shipped is not None:  # a completed milestone's phase: shipped, so done
        out["state"], out["done"], out["milestone"] = "done", True, shipped
        return out
    out["state"] = MISSING_PHASE
    return out


def _archived(folder: Path, number: str) -> str | None:
    """The milestone whose archive holds phase `number` of the project at `folder` (the newest such), else None."""
    from msd_core.planning.discovery import normalize_phase, phase_dirs

    want = normalize_phase(number)
    found = [d.milestone for d in phase_dirs(paths.planning_dir(folder)) if d.milestone and normalize_phase(d.number) == want]
    return found[-1] if found else None


def dependencies(root: Path, number: str, roadmap_text: str | None = None, cache: dict | None = None) -> list[dict]:
    """Every cross-root dependency of phase `number` of the project at `root`, checked (met or not)."""
    from msd_core.planning.cross_root import refs_of

    if roadmap_text is None:
        from msd_core.progress.lifecycle import read_text

        roadmap_text = read_text(paths.planning_dir(Path(root)) / "ROADMAP.md", [], Path(root))
    refs = refs_of(roadmap_text, number)
    if not refs:
        return []
    top = top_of(Path(root))
    return [resolve(top, ref, cache) for ref in refs]


def unmet(root: Path, number: str, roadmap_text: str | None = None) -> list[dict]:
    """The dependencies of phase `number` on other roots that are not met."""
    return [d for d in dependencies(root, number, roadmap_text) if not d["done"]]


def ask_next(dep: dict, root: Path) -> str:
    """The command that asks the other root what it does next, from the project at `root`."""
    import os
    import shlex

    return f"msd_run next --cwd {shlex.quote(os.path.relpath(dep['path'], root))}"


def describe(dep: dict) -> str:
    what = {MISSING_ROOT: f"{dep['root']} holds no .planning/ (no project there)",
            MISSING_PHASE: f"{dep['root']}'s ROADMAP.md lists no phase {dep['phase']}",
            INVALID: f"{dep['root']!r} is not a folder under the work tree's top"}.get(dep["state"])
    return what or f"phase {dep['phase']} of {dep['root']} is not done (it is at {dep['state']})"


def not_ready(root: Path, number: str) -> str | None:
    """Why phase `number` may not run yet (its first unmet dependency on another root, and the way
    forward), or None when nothing in another root holds it back."""
    waiting = unmet(root, number)
    if not waiting:
        return None
    dep = waiting[0]
    if dep["state"] in (MISSING_ROOT, MISSING_PHASE, INVALID):
        how = "fix its `Depends on:` line in ROADMAP.md (`msd_run health` names it)"
    else:
        how = f"finish it first (`{ask_next(dep, root)}` names the command)"
    return f"phase {number} depends on phase {dep['phase']} of {dep['root']}: {describe(dep)}: {how}"
