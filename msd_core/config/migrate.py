"""Config migration: keys the schema dropped, and the one that moved.

Removed from the schema (every setting is read by something, or it is gone), because nothing read
them; a file that still holds them stays valid (keys the schema does not know are kept
and readable) and `migrate` reports them:

  depth                              → moved to `granularity` (quick→coarse,
                                       standard→standard, comprehensive→fine) when the
                                       file has no `granularity`; the old key is kept
  workflow.auto_advance              mode `yolo` and `msd_run next` decide what runs next
  parallelization.plan_level / task_level / skip_checkpoints / min_plans_for_parallel
                                     `parallelization.enabled` and max_concurrent_agents decide
  gates.*                            `mode` decides whether a workflow asks
  safety.*                           the content always asks before destructive or external actions

`migrate(cwd, check=...)` (`msd_run config migrate [--check]`) writes the move under the
config lock (atomically, other keys and formatting kept) and lists what it left.
Standard library only.
"""

from __future__ import annotations

import os

DEPTH_TO_GRANULARITY = {"quick": "coarse", "standard": "standard", "comprehensive": "fine"}
REMOVED = {
    "depth": "moved to granularity",
    "workflow.auto_advance": "mode yolo and `msd_run next` decide what runs next",
    "parallelization.plan_level": "parallelization.enabled decides",
    "parallelization.task_level": "tasks of a plan run in order",
    "parallelization.skip_checkpoints": "mode decides how checkpoints are answered",
    "parallelization.min_plans_for_parallel": "a wave of two or more plans runs in parallel",
    "gates": "mode decides whether a workflow asks",
    "safety": "the content always asks before destructive or external actions",
}


def _leftovers(data: dict) -> list[dict]:
    out = []
    for key, why in REMOVED.items():
        node = data
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
            if node is None:
                break
        if node is not None:
            out.append({"key": key, "kept": True, "why": why})
    return out


def migrate(cwd: str | os.PathLike | None = None, check: bool = False) -> dict:
    from msd_core.config import store

    root, cfg = store._target_for_write(cwd, False)
    data, _raw = store.read_config_file(cfg, "project config")
    if data is None:
        return {"path": str(cfg), "changed": False, "moved": [], "removed_keys_present": []}
    moved = []
    depth = data.get("depth")
    if "granularity" not in data and isinstance(depth, str) and depth.lower() in DEPTH_TO_GRANULARITY:
        moved.append({"from": "depth", "to": "granularity", "value": DEPTH_TO_GRANULARITY[depth.lower()]})
    result = {"path": str(cfg), "moved": moved, "removed_keys_present": _leftovers(data)}
    if check or not moved:
        result["changed"] = False
        return result

    def change(work: dict) -> dict:
        d = work.get("depth")
        if "granularity" not in work and isinstance(d, str) and d.lower() in DEPTH_TO_GRANULARITY:
            work["granularity"] = DEPTH_TO_GRANULARITY[d.lower()]
        return {}

    out = store._mutate_at(root, cfg, False, change)
    result["changed"] = out["changed"]
    return result
