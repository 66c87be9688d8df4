"""Every project in one repository: the `.planning/` roots under the git work tree, with where each stands.

`roots(top)` (msd_core.progress.root_walk) lists the folders under the work tree's top holding a
`.planning/` folder.

`workspace(start)` lists them, each with the answer of `msd_run next` run in that root (route,
command, phase, state, phases done and total: the one position model, msd_core.progress.route);
the root the project rule picks for `start` is marked `current`; `start_is_root` says whether `start`
is that root's own folder (false inside a root's subfolder: what `/msd-new-project` asks about). Outside a git work tree the
list is the one project the rule finds, if any. Nothing is written.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core.progress.root_walk import MAX_DEPTH, roots


def _entry(root: Path, top: Path, install_root: str | None) -> dict:
    from msd_core.progress.route import decide

    rel = root.relative_to(top).as_posix() or "."
    answer = decide(root, install_root)
    out = {"root": rel, "path": str(root), "route": answer["route"], "command": answer["command"],
           "reason": answer["reason"]}
    phase = answer.get("phase")
    if isinstance(phase, dict):
        out["phase"] = phase.get("number")
        if phase.get("name"):
            out["phase_name"] = phase["name"]
    if answer.get("state"):
        out["state"] = answer["state"]
    for key in ("phases_done", "phases_total", "run_in"):
        if key in answer:
            out[key] = answer[key]
    waiting = answer.get("waiting_on") or [d for d in answer.get("depends_on_roots") or () if not d["done"]]
    if waiting:
        out["waiting_on"] = [{k: d[k] for k in ("root", "phase", "state", "next") if k in d} for d in waiting]
    return out


def workspace(start: str | os.PathLike | None = None, install_root: str | None = None) -> dict:
    from msd_core import paths
    from msd_core.lean.project_rule import work_tree_top

    base = Path(start).expanduser().absolute() if start else Path.cwd()
    current = paths.find_project_root(base)
    top_s = work_tree_top(str(base))
    if top_s is None:
        top = current.parent if current is not None else base
        found, walked = ([current] if current is not None else []), {"folders_walked": 0, "too_deep": 0, "truncated": False}
    else:
        top = Path(top_s)
        found, walked = roots(top)
    listed = [_entry(r, top, install_root) for r in found]
    for entry, r in zip(listed, found, strict=True):
        entry["current"] = current is not None and r == current
    out = {"top": str(top), "work_tree": top_s is not None, "start": str(base), "current": None,
           "start_is_root": current is not None and current == base, "roots": listed, "count": len(listed), **walked}
    if current is not None:
        try:
            out["current"] = current.relative_to(top).as_posix() or "."
        except ValueError:
            out["current"] = str(current)
    return out


def _state(e: dict) -> str:
    return "waits" if e["route"] == "wait-for-root" else e.get("state") or e["route"]


def table(result: dict) -> str:
    """The human view: one line per root (position and next command), then where the walk stopped."""
    rows = [("  root", "phase", "state", "done", "next")]
    for e in result["roots"]:
        phase = e.get("phase") or "-"
        if e.get("phase_name"):
            phase += f" {e['phase_name']}"
        done = f"{e['phases_done']}/{e['phases_total']}" if "phases_total" in e else "-"
        nxt = e["command"]
        if e["route"] == "wait-for-root":
            d = e["waiting_on"][0]
            nxt = f"waits on phase {d['phase']} of {d['root']} (there: {d.get('next', '/msd-health')})"
        rows.append((("* " if e.get("current") else "  ") + e["root"], phase[:40], _state(e), done, nxt))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4] for r in rows]
    if not result["roots"]:
        lines = [f"no .planning/ root under {result['top']}: /msd-new-project starts one"]
    tail = f"{result['count']} root(s) under {result['top']}"
    if result.get("truncated") or result.get("too_deep"):
        tail += f" (the walk stopped early: {result.get('too_deep', 0)} folder(s) deeper than {MAX_DEPTH} levels not searched"
        tail += ", folder limit reached)" if result.get("truncated") else ")"
    return "\n".join(lines + [tail]) + "\n"
