"""Flow variables the runtime computes, never an agent's word.

A flow names them in its `[derived]` table (`wave = "..."`); each name must be one of `NAMES`.
`next-step` fills them into every prompt it shows, so each visit names the current value, and
`step-done` sets them after the agent's result, over any value the agent reported, before the
transitions are chosen. They are asked of the same functions `next` and `wave plan` use
(msd_core.progress.plans, over progress.evidence):

- `plans_remaining`: the phase's plans not done (no SUMMARY, or a SUMMARY msd holds no proof for);
- `wave`: the lowest wave holding such a plan (the wave `msd_run wave plan` lays out next);
- `plans`: the PLAN.md files the phase folder holds (what the planner wrote);
- `new_ids`: the requirement IDs REQUIREMENTS.md defines that ROADMAP.md names nowhere yet (what a
  new milestone added before its roadmap maps them).

All but `new_ids` need the phase folder (`phase_dir`, a folder of `.planning/phases/`). `compute(root, vars,
names)` answers (values, problems): a name it cannot compute is in `problems` with the reason
and the command that produces what is missing. Standard library only.
"""

from __future__ import annotations

from pathlib import Path

NAMES = {
    "plans_remaining": "the phase's plans without a SUMMARY or without the proof of their recorded commits",
    "wave": "the lowest wave holding a plan not done",
    "plans": "the PLAN.md files in the phase folder",
    "new_ids": "the requirement IDs REQUIREMENTS.md defines that ROADMAP.md does not name yet",
}
NEEDS_FOLDER = ("plans_remaining", "wave", "plans")
MAX_DOC = 2 * 1024 * 1024


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
    values: dict = {}
    problems: dict = {}
    if "new_ids" in wanted:
        count, why = _new_ids(Path(root))
        if why:
            problems["new_ids"] = why
        else:
            values["new_ids"] = count
    by_folder = [n for n in wanted if n in NEEDS_FOLDER]
    if not by_folder:
        return values, problems
    folder, why = _folder(Path(root), vars)
    if folder is None:
        problems.update({n: why for n in by_folder})
        return values, problems
    from msd_core.planning.discovery import plan_files
    from msd_core.progress.plans import next_wave, open_plans

    left = open_plans(Path(root), folder) if {"plans_remaining", "wave"} & set(by_folder) else []
    for n in by_folder:
        if n == "plans_remaining":
            values[n] = len(left)
        elif n == "plans":
            values[n] = len(plan_files(folder))
        elif n == "wave":
            w = next_wave(left)
            if w is None:
                problems[n] = f"every plan of {folder.name} is done: no wave is left (`msd_run wave plan --phase-dir {folder.name}`)"
            else:
                values[n] = w
    return values, problems


def _new_ids(root: Path) -> tuple[int, str | None]:
    from msd_core.errors import MsdError
    from msd_core.planning.project import read_text_file
    from msd_core.planning.requirements import definition_ids

    planning = root / ".planning"
    texts = {}
    for name in ("REQUIREMENTS.md", "ROADMAP.md"):
        path = planning / name
        if name == "ROADMAP.md" and not path.exists():
            texts[name] = ""  # no roadmap yet: every defined ID is new
            continue
        try:
            texts[name] = read_text_file(path, f".planning/{name}", MAX_DOC)[1]
        except MsdError as exc:
            return 0, f"{exc.message}: write .planning/{name} first"
    roadmap = texts["ROADMAP.md"]
    import re

    return sum(1 for rid in definition_ids(texts["REQUIREMENTS.md"])
               if not re.search(rf"(?<![\w-]){re.escape(rid)}(?![\w-])", roadmap)), None
