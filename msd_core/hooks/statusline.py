"""`msd_run statusline`: the one short line Claude Code shows under its prompt box.

Input (stdin): the JSON the host passes a status line command (seen in Claude Code 2.1.332:
`model.id`, `cwd`, `workspace.current_dir`, `workspace.project_dir`, `context_window.used_percentage`,
`context_window.context_window_size`, ...). The project is the one the rule finds from
`workspace.current_dir` (a `.planning/` root in a subfolder), else `project_dir`, else `cwd`. Output: one line, e.g.

    msd v1.2 · phase 02 · plan 02-01 · execute-phase: gate · ctx 12% · drift 3 · phase 45.2k tok

milestone (STATE.md's `milestone:`), the phase and plan in progress, the flow step, the share of
the context window used (the host's own figure, shown only when it is from 0 to 100) and this phase's tokens so far (the host's
transcripts, read incrementally: msd_core.usage.cache). The window the host reports for the
model is kept for `msd usage`. `drift N`: the findings `msd_run drift` (or `next`) counted for this HEAD
(msd_core.planning.drift_count), shown only while HEAD is the one they were counted on and never
computed here. Outside an msd project: `msd` and the context share only.
"""

from __future__ import annotations

import re
from pathlib import Path

MAX_CHARS = 120


def _short(n: int) -> str:
    for size, unit in ((1_000_000, "M"), (1_000, "k")):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return str(n)


def _milestone(root: Path) -> str | None:
    from msd_core.files.safe_read import read_head

    try:  # a FIFO or device there is refused at once (OSError), never waited on
        head = read_head(root / ".planning" / "STATE.md", 4096).decode("utf-8", "replace")
    except OSError:
        return None
    m = re.search(r"^milestone:\s*['\"]?([^'\"\n]+)", head, re.M)
    return m.group(1).strip()[:20] if m else None


def line(payload: dict, install_root: str | None = None) -> str:
    from msd_core import paths
    from msd_core.files.numbers import count, percent

    parts = ["msd"]
    cw = payload.get("context_window") if isinstance(payload.get("context_window"), dict) else {}
    model = (payload.get("model") or {}).get("id") if isinstance(payload.get("model"), dict) else None
    space = payload.get("workspace")
    space = space if isinstance(space, dict) else {}
    # the folder the session is in now (a root in a subfolder of the repository), else where it started
    where = next((w for w in (space.get("current_dir"), space.get("project_dir"), payload.get("cwd"))
                  if isinstance(w, str) and w), None)
    root = paths.find_project_root(where) if isinstance(where, str) and Path(where).is_dir() else None
    pos = None
    if root is not None:
        from msd_core.hooks.position import position

        milestone = _milestone(root)
        if milestone:
            parts[0] = f"msd {milestone}"
        pos = position(root, install_root)
        window = count(cw.get("context_window_size"))
        if isinstance(model, str) and window:
            from msd_core.usage.cache import learn_window

            learn_window(root, model, window)
    if pos:
        parts += [f"phase {pos['phase']}"] if pos.get("phase") else []
        parts += [f"plan {pos['plan']}"] if pos.get("plan") else []
        parts.append(f"{pos['workflow']}: {pos['step']}")
    used = percent(cw.get("used_percentage"))  # NaN, an infinity or a share outside 0..100: not shown
    if used is not None:
        parts.append(f"ctx {used:.0f}%")
    if root is not None:
        from msd_core.planning.drift_count import count as drift_count

        found = drift_count(root)  # the figure kept for HEAD (git's files read, no git process), never computed here
        parts += [f"drift {found}"] if found else []
    if pos and pos.get("phase"):
        from msd_core.hooks.budget import phase_tokens

        parts.append(f"phase {_short(phase_tokens(root, str(pos['phase'])))} tok")
    text = " · ".join(parts)
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"
