"""Where the workflow is, from the project's own records, and the one command that continues it.

The flow run in progress (`.planning/state.json`, the run updated last: the one `msd_run next`
names in `resume`) gives the workflow, its current step and visit, the phase, phase folder,
plan and wave its results set, and the last step's result; the flow file gives the step's action
and, for an `ask_user` step, the question that is still open. Nothing here writes. None when no
msd workflow is in progress.
"""

from __future__ import annotations

import json
from pathlib import Path

MAX_RESULT_CHARS = 400


def position(project_root: Path, install_root: str | None = None) -> dict | None:
    from msd_core.errors import MsdError
    from msd_core.planning import flow_state
    from msd_core.progress.route import flows_in_progress, resume_of

    notes: list[str] = []
    resume = resume_of(flows_in_progress(project_root, notes), install_root)
    if resume is None:
        return None
    try:
        run = flow_state.get_run(flow_state.read_state(flow_state.default_state_path(project_root)), resume["workflow"]) or {}
    except MsdError:
        run = {}
    vars = run.get("vars") if isinstance(run.get("vars"), dict) else {}
    history = run.get("history") if isinstance(run.get("history"), list) else []
    out = {"workflow": resume["workflow"], "step": resume["step"], "next": resume["command"],
           "visit": (run.get("visits") or {}).get(resume["step"])}
    for key in ("phase", "phase_dir", "plan", "wave"):
        if isinstance(vars.get(key), (str, int)) and not isinstance(vars.get(key), bool):
            out[key] = vars[key]
    if history and isinstance(history[-1], dict):
        out["last"] = {"step": history[-1].get("step"), "result": history[-1].get("result")}
    step = _step(resume["workflow"], resume["step"], install_root)
    if step is not None:
        out["action"] = step.action
        if step.action == "ask_user":
            from msd_core.flows.engine import fill_text

            out["question"] = fill_text(step.prompt, vars)
    return out


def _step(workflow: str, step_id: str, install_root: str | None):
    from msd_core.errors import MsdError
    from msd_core.flows import source

    try:
        return source.load(workflow, root=install_root).flow.step(step_id)
    except (MsdError, KeyError, OSError):
        return None


def describe(pos: dict) -> str:
    """The position as the few lines the agent is given after compaction, resume or clear."""
    where = [f"phase {pos['phase']}"] if pos.get("phase") else []
    where += [f"plan {pos['plan']}"] if pos.get("plan") else []
    where += [f"wave {pos['wave']}"] if pos.get("wave") not in (None, "") else []
    detail = [pos["action"]] if pos.get("action") else []
    detail += [f"visit {pos['visit']}"] if pos.get("visit") else []
    step = f"step `{pos['step']}`" + (f" ({', '.join(detail)})" if detail else "")
    lines = [f"msd: the {pos['workflow']} workflow is in progress" + (f" ({', '.join(where)})" if where else "")
             + f", at {step}."]
    last = pos.get("last")
    if last and last.get("step"):
        text = json.dumps(last.get("result"), ensure_ascii=False, separators=(", ", ": "))
        lines.append(f"Last step done: `{last['step']}`, result {text[:MAX_RESULT_CHARS]}" + ("..." if len(text) > MAX_RESULT_CHARS else "") + ".")
    if pos.get("question"):
        lines.append(f"Open question for the user (ask it; do not answer it yourself): {pos['question'][:MAX_RESULT_CHARS]}")
    lines.append(f"Continue with exactly this command, which gives step `{pos['step']}`'s instructions again: `{pos['next']}`; "
                 f"then report the step with `msd_run step-done` as those instructions say.")
    return "\n".join(lines)
