"""An autonomous run: which command comes next, or why the run stops (`msd_run autonomous`).

Each call asks `msd_run next` (msd_core.progress.route) and decides:

  discuss / plan / execute a phase                     -> run it
  verify (no VERIFICATION yet) or re-verify after fixes -> run /msd-execute-phase <n> (its
                                                          verify step runs the verifier)
  gaps found                                          -> run /msd-plan-phase <n> --gaps, at most
                                                          `max_gap_rounds` times per phase, then stop
                                                          (a gate that keeps failing)
  a person must check (human_needed, open UAT)        -> stop (human checkpoint)
  a paused session, no project                        -> stop
  a phase waiting on a phase of another root          -> stop (that root's work comes first)
  every phase done (complete/audit/new milestone)     -> done
  the same command a third time in a row              -> stop (no progress: a failed gate)
  `until` phase passed                                -> done

The run's memory is `.planning/.msd/autonomous.json` ({"last", "repeats", "gap_rounds",
"steps"}), so a run resumes after a context reset; `reset` starts it afresh. Everything
else is derived from the project's files. Standard library only.
"""

from __future__ import annotations

import json
from pathlib import Path

from msd_core.errors import OperationFailed

RUN_ROUTES = {"discuss-phase", "plan-phase", "execute-phase"}
DONE_ROUTES = {"complete-milestone", "audit-milestone", "new-milestone"}
MAX_REPEATS = 2
MAX_STEPS = 200


def _memory_path(root: Path) -> Path:
    from msd_core.files.private_dir import ensure_private_dir

    return ensure_private_dir(root) / "autonomous.json"


def _load(path: Path) -> dict:
    from msd_core.files.bounded import loads_json
    from msd_core.files.safe_read import read_regular

    try:
        data = loads_json(read_regular(path, 256 * 1024, follow_symlinks=False), str(path))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        raise OperationFailed(f"{path} is damaged; not changed", hint="run `msd_run autonomous --reset`") from None
    ints = lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 10**6  # noqa: E731
    ok = (isinstance(data, dict) and all(ints(data.get(k, 0)) for k in ("repeats", "steps"))
          and isinstance(data.get("last", ""), (str, type(None))) and isinstance(data.get("gap_rounds", {}), dict)
          and all(ints(v) for v in data.get("gap_rounds", {}).values()))
    if not ok:
        raise OperationFailed(f"{path} is damaged; not changed", hint="run `msd_run autonomous --reset`")
    return data


def _num(value: str) -> tuple:
    return tuple(int(x) for x in value.split(".") if x.isdigit())


def decide(answer: dict, memory: dict, max_gap_rounds: int, until: str | None) -> dict:
    route, state = answer.get("route"), answer.get("state")
    phase = (answer.get("phase") or {}).get("number")
    out = {"route": route, "reason": answer.get("reason", "")}
    if phase:
        out["phase"] = phase
    if until and phase and _num(phase) > _num(until):
        return dict(out, action="done", why=f"phase {until} and every phase before it are done")
    if route in DONE_ROUTES:
        return dict(out, action="done", why="no phase is left in this milestone", command=answer.get("command"))
    if route == "verify-work" and state in ("verify", "reverify"):
        command = f"/msd-execute-phase {phase}"
    elif route == "plan-gaps":
        rounds = int(memory.get("gap_rounds", {}).get(phase, 0))
        if rounds >= max_gap_rounds:
            return dict(out, action="stop", why=f"phase {phase} still has gaps after {rounds} rounds of fixes: a person must decide")
        command = answer["command"]
    elif route in RUN_ROUTES:
        command = answer["command"]
    elif route == "wait-for-root":
        return dict(out, action="stop", why=answer.get("reason", "a phase of another root comes first"),
                    command=answer.get("command"))
    elif route == "verify-work":
        return dict(out, action="stop", why="a person must check this phase (human checkpoint)", command=answer.get("command"))
    else:
        return dict(out, action="stop", why=f"`{answer.get('command')}` needs a person", command=answer.get("command"))
    if command == memory.get("last") and int(memory.get("repeats", 0)) >= MAX_REPEATS - 1:
        return dict(out, action="stop", why=f"`{command}` made no progress twice: a gate failed or a step is stuck",
                    command=command)
    return dict(out, action="run", command=command)


def step(root_hint: str | None, *, max_gap_rounds: int = 2, until: str | None = None, reset: bool = False) -> dict:
    from msd_core.files.atomic import atomic_write_text, lock_timeout_from_env, locked
    from msd_core.files.private_dir import ensure_private_dir
    from msd_core.planning.project import project_root
    from msd_core.progress import route as router

    root = project_root(root_hint)
    path = _memory_path(root)
    with locked(ensure_private_dir(root) / "autonomous.lock", lock_timeout_from_env(), what="autonomous run"):
        memory = {} if reset else _load(path)
        if int(memory.get("steps", 0)) >= MAX_STEPS:
            return {"action": "stop", "why": f"{MAX_STEPS} steps in one run; start again with --reset"}
        out = decide(router.decide(str(root)), memory, max_gap_rounds, until)
        if out["action"] == "run":
            cmd = out["command"]
            memory["repeats"] = int(memory.get("repeats", 0)) + 1 if cmd == memory.get("last") else 0
            memory["last"] = cmd
            memory["steps"] = int(memory.get("steps", 0)) + 1
            if out["route"] == "plan-gaps":
                rounds = memory.setdefault("gap_rounds", {})
                rounds[out["phase"]] = int(rounds.get(out["phase"], 0)) + 1
        atomic_write_text(path, json.dumps(memory, indent=1) + "\n", anchor=root)
        out["steps"] = int(memory.get("steps", 0))
        return out
