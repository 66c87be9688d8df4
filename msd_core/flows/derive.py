"""Flow variables the runtime computes, never an agent's word.

A flow names them in its `[derived]` table (`wave = "..."`); each name must be one of `NAMES`.
`next-step` fills them into every prompt it shows, so each visit names the current value, and
`step-done` sets them after the agent's result, over any value the agent reported, before the
transitions are chosen. They are asked of the same functions `next` and `wave plan` use
(msd_core.progress.plans, over progress.evidence):

- `plans_remaining`: the phase's plans not done (no SUMMARY, or a SUMMARY msd holds no proof for);
- `wave`: the lowest wave holding such a plan (the wave `msd_run wave plan` lays out next).

Both need the phase folder (`phase_dir`, a folder of `.planning/phases/`). `compute(root, vars,
names)` answers (values, problems): a name it cannot compute is in `problems` with the reason
and the command that produces what is missing. Standard library only.
"""

from __future__ import annotations

from pathlib import Path

NAMES = {
    "plans_remaining": "the phase's plans without a SUMMARY or without the proof of their recorded commits",
    "wave": "the lowest wave holding a plan not done",
}


def _folder(root: Path, vars: dict) -> tuple[Path | None, str | None]:
    name = vars.get("phase_dir")
    if not isinstance(name, str) or not name.strip():
        return None, "no phase folder is known yet (variable phase_dir): run `msd_run wave plan --phase-dir <phase folder>` and report phase_dir"
    name = name.strip().rstrip("/")
    folder = Path(root) / ".planning" / "phases" / name
    if "/" in name or name in (".", "..") or folder.is_symlink() or not folder.is_dir():
        return None, (f"no phase folder .planning/phases/{name[:80]}: run `msd_run wave plan --phase-dir <phase folder>` "
                      "and report the folder it names")
    return folder, None


def compute(root: Path, vars: dict, names) -> tuple[dict, dict]:
    """({name: value} for each of `names` computed from the files, {name: why not})."""
    wanted = [n for n in names if n in NAMES]
    if not wanted:
        return {}, {}
    folder, why = _folder(Path(root), vars)
    if folder is None:
        return {}, {n: why for n in wanted}
    from msd_core.progress.plans import next_wave, open_plans

    left = open_plans(Path(root), folder)
    values: dict = {}
    problems: dict = {}
    for n in wanted:
        if n == "plans_remaining":
            values[n] = len(left)
        elif n == "wave":
            w = next_wave(left)
            if w is None:
                problems[n] = f"every plan of {folder.name} is done: no wave is left (`msd_run wave plan --phase-dir {folder.name}`)"
            else:
                values[n] = w
    return values, problems
