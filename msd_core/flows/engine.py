"""How a flow run advances: the current step's payload, result checks, and transitions.

Pure logic over plain dicts (the run as stored in the state file) and an `Env` that
answers the outside questions (config values, which project files exist, where
context files live). msd_core.flows.service wires it to files and locks.

Rules:
- A run starts at `start`; entering a step counts a visit.
- `step-done` for the current step: the result must be a JSON object holding every
  expected field with its type, and every expected file must exist. Its scalar fields
  become flow variables (`<phase_dir>` in later prompts and paths).
- A flow's `[derived]` variables are the runtime's (msd_core.flows.derive): every payload
  fills them from the files, and `step-done` sets them over whatever the agent reported before
  it chooses a transition; one a condition of the step needs and the runtime cannot compute
  refuses the step (exit 2) naming what is missing and the command that produces it.
- Transitions: the first `when` whose condition holds and whose target has visits left
  wins; else `next`. If `next`'s target has no visits left, the flow fails (exit 1) and
  nothing changes.
- Repeating the last step-done with the same result is harmless: nothing changes (a step
  that loops to itself and reports the very same result twice in a row counts as a repeat).
- A different step id, or a different result for an already recorded step: exit 2.

Standard library only.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError
from msd_core.flows.model import FieldSpec, Flow, Step
from msd_core.flows.schema import PLACEHOLDER_RE
from msd_core.lean.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs import time on msd_run's hot path
    from typing import Any, Callable

MAX_HISTORY = 500
MAX_RESULT_BYTES = 64 * 1024
MAX_VAR_CHARS = 200
PATH_VALUE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


@record
class Env:
    """What the engine asks the outside world."""

    project_root: Path
    config_get: Callable[[str], Any]  # dotted key -> value (None when unknown)
    resolve_installed: Callable[[str], tuple[str | None, str | None]]  # relpath -> (abs path, problem)
    now: Callable[[], str] = lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    # canonical phase variables (msd_core.planning.phase_ref.flow_phase_vars); identity by default
    normalise_vars: Callable[[dict], dict] = lambda vars: vars
    # the runtime's own variables (msd_core.flows.derive): (vars, names) -> ({name: value}, {name: why not})
    derive: Callable[[dict, tuple], tuple[dict, dict]] = lambda vars, names: ({}, {})


# ------------------------------------------------------------------ variables and paths


def _var_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def fill_text(text: str, vars: dict) -> str:
    """Replace `<name>` with a known variable; unknown placeholders stay as written."""

    def sub(m: re.Match) -> str:
        name = m.group(1)
        return _var_text(vars[name]) if name in vars else m.group(0)

    return PLACEHOLDER_RE.sub(sub, text)


def fill_path(path: str, vars: dict) -> tuple[str | None, str | None]:
    """(filled path, None) or (None, why not): every placeholder known and safe in a path."""
    missing: list[str] = []
    unsafe: list[str] = []

    def sub(m: re.Match) -> str:
        name = m.group(1)
        if name not in vars:
            missing.append(name)
            return m.group(0)
        text = _var_text(vars[name])
        if not PATH_VALUE_RE.match(text) or ".." in text:
            unsafe.append(name)
        return text

    filled = PLACEHOLDER_RE.sub(sub, path)
    if missing:
        return None, "unknown variable " + ", ".join(f"<{n}>" for n in missing)
    if unsafe:
        return None, "variable " + ", ".join(f"<{n}>" for n in unsafe) + " is not safe in a path"
    return filled, None


def project_file(root: Path, relpath: str) -> Path | None:
    """Absolute path of a `.planning/...` path, None if it would leave `.planning/`."""
    planning = (root / ".planning").resolve()
    target = (root / relpath).resolve()
    if target != planning and planning not in target.parents:
        return None
    return target


def _exists(env: Env, vars: dict, relpath: str) -> bool:
    filled, _ = fill_path(relpath, vars)
    if filled is None:
        return False
    target = project_file(env.project_root, filled)
    return target is not None and target.exists()


# ------------------------------------------------------------------ runs


def new_run(flow: Flow, vars: dict, env: Env) -> dict:
    now = env.now()
    return {
        "current": flow.start,
        "status": "done" if flow.step(flow.start).action == "done" else "running",
        "visits": {flow.start: 1},
        "vars": dict(vars),
        "results": {},
        "history": [],
        "flow_version": flow.version,
        "started": now,
        "updated": now,
    }


def current_step(flow: Flow, run: dict) -> Step:
    step = flow.step(run["current"])
    if step is None:
        raise UsageError(
            f"flow state points at step {run['current']!r}, which {flow.workflow} no longer has",
            hint=f"restart it with `msd_run next-step --workflow {flow.workflow} --restart`",
        )
    return step


def with_derived(flow: Flow, vars: dict, env: Env) -> tuple[dict, dict]:
    """(`vars` with the flow's derived variables as the files say now, {name: why not computed}).
    A derived variable the runtime cannot compute is dropped, never left at an older value."""
    if not flow.derived:
        return vars, {}
    values, problems = env.derive(vars, tuple(flow.derived))
    out = {k: v for k, v in vars.items() if k not in flow.derived}
    out.update(values)
    return out, problems


def step_payload(flow: Flow, run: dict, env: Env) -> dict:
    """What `next-step` prints for the run's current step."""
    step = current_step(flow, run)
    vars, underived = with_derived(flow, run.get("vars", {}), env)
    context: list[str] = []
    unavailable: list[dict] = []
    for rel in step.context_files:
        if rel.startswith("msd-core/"):
            path, problem = env.resolve_installed(rel)
        else:
            filled, problem = fill_path(rel, vars)
            path = None
            if filled is not None:
                target = project_file(env.project_root, filled)
                if target is None:
                    problem = "leaves .planning/"
                elif not target.exists():
                    problem = "absent"
                else:
                    path = str(target) + ("/" if rel.endswith("/") and target.is_dir() else "")
        if path:
            context.append(path)
        else:
            shown = fill_text(rel, vars) if not rel.startswith("msd-core/") else rel
            unavailable.append({"path": shown, "reason": problem or "unavailable"})
    expects = step.expects_json()
    if "files" in expects:
        expects["files"] = [fill_text(p, vars) for p in expects["files"]]
    out: dict = {
        "workflow": flow.workflow,
        "step": step.id,
        "action": step.action,
        "prompt": fill_text(step.prompt, vars),
        "context_files": context,
        "expects": expects,
        "status": run.get("status", "running"),
        "visit": run.get("visits", {}).get(step.id, 1),
    }
    if step.agent:
        out["agent"] = step.agent
    if step.title:
        out["title"] = step.title
    if step.max_visits:
        out["max_visits"] = step.max_visits
    if unavailable:
        out["unavailable_context"] = unavailable
    missing = sorted({m.group(1) for m in PLACEHOLDER_RE.finditer(step.prompt) if m.group(1) not in vars})
    if missing:
        out["missing_vars"] = missing
        why = {n: underived[n] for n in missing if n in underived}
        if why:
            out["underived"] = why
    if step.action != "done":
        out["report"] = f"msd_run step-done --workflow {flow.workflow} --step {step.id}" + (
            " --result '<json>'" if step.fields else ""
        )
    return out


def _type_ok(spec: FieldSpec, value: Any) -> bool:
    t = spec.type
    if t == "string":
        return isinstance(value, str)
    if t == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if t == "bool":
        return isinstance(value, bool)
    if t == "list":
        return isinstance(value, list)
    if t == "object":
        return isinstance(value, dict)
    return False  # pragma: no cover - schema allows only the types above


def parse_result(text: str | None) -> dict:
    """The --result JSON as a dict; UsageError (exit 2) when it is not a JSON object."""
    if text is None or text == "":
        return {}
    if len(text.encode("utf-8", "surrogatepass")) > MAX_RESULT_BYTES:
        raise UsageError(f"the result is larger than {MAX_RESULT_BYTES} bytes", about="result")
    import json

    from msd_core.files.bounded import BoundedInputError, loads_json

    try:
        value = loads_json(text, "the result")
    except BoundedInputError as exc:
        exc.about = "result"
        raise
    except json.JSONDecodeError as exc:
        raise UsageError(f"the result is not valid JSON: {exc.msg} at column {exc.colno}", about="result") from None
    if not isinstance(value, dict):
        raise UsageError("the result must be a JSON object, e.g. '{\"issues_found\": 0}'", about="result")
    return value


def check_result(step: Step, result: dict, vars: dict, env: Env) -> list[str]:
    """Every way `result` (and the project files) fail the step's `expects`."""
    problems: list[str] = []
    for spec in step.fields:
        if spec.name not in result or result[spec.name] is None:
            if not spec.optional:
                problems.append(f"missing field {spec.name} ({spec.type})")
            continue
        if not _type_ok(spec, result[spec.name]):
            problems.append(f"field {spec.name} must be {spec.type}, got {type(result[spec.name]).__name__}")
        elif spec.choices and result[spec.name] not in spec.choices:
            problems.append(f"field {spec.name} must be one of {', '.join(spec.choices)}, got {str(result[spec.name])[:40]!r}")
    for rel in step.files:
        filled, why = fill_path(rel, vars)
        if filled is None:
            problems.append(f"expected file {rel}: {why}")
            continue
        target = project_file(env.project_root, filled)
        if target is None:
            problems.append(f"expected file {filled} leaves .planning/")
        elif not target.exists():
            problems.append(f"expected file {filled} does not exist")
    return problems


def validate_result(step: Step, run_vars: dict, result: dict, env: Env) -> tuple[dict, list[str]]:
    """(the run's variables with the result's scalars added, every way the result fails the step).

    The one check behind `step-done` and `step-report`."""
    vars = dict(run_vars)
    vars.update(_result_vars(result))
    vars = env.normalise_vars(vars)
    return vars, check_result(step, result, vars, env)


def _result_vars(result: dict) -> dict:
    out = {}
    for k, v in result.items():
        if isinstance(k, str) and isinstance(v, (str, int, float, bool)) and len(_var_text(v)) <= MAX_VAR_CHARS:
            out[k] = v
    return out


def _lookup(path: tuple[str, ...], env: Env, result: dict, vars: dict, visits: dict) -> Any:
    root, rest = path[0], path[1:]
    if root == "config":
        return env.config_get(".".join(rest))
    if root == "visits":
        return visits.get(rest[0], 0) if len(rest) == 1 else None
    node: Any = result if root == "result" else vars
    for part in rest:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def choose_next(flow: Flow, step: Step, result: dict, vars: dict, visits: dict, env: Env) -> tuple[str, str]:
    """(target step id, why) for leaving `step` with `result`."""
    def has_room(target: str) -> bool:
        bound = flow.step(target).max_visits
        return bound is None or visits.get(target, 0) < bound

    for w in step.when:
        if not has_room(w.goto):
            continue
        if w.condition.evaluate(
            lambda p: _lookup(p, env, result, vars, visits),
            lambda rel: _exists(env, vars, rel),
        ):
            return w.goto, f"when {w.condition.source}"
    target = step.next
    if target is None:  # pragma: no cover - schema requires next on non-done steps
        raise OperationFailed(f"step {step.id} has no transition")
    if not has_room(target):
        raise OperationFailed(
            f"step {target} already ran {flow.step(target).max_visits} times (its max_visits); the flow stops here",
            hint="resolve it by hand, then restart the flow",
        )
    return target, "next"


def complete_step(flow: Flow, run: dict, step_id: str, result: dict, env: Env) -> tuple[dict, dict]:
    """(updated run, report) for `step-done`. Raises UsageError / OperationFailed and changes nothing."""
    current = current_step(flow, run)
    history = run.get("history", [])
    if step_id != current.id:
        last = history[-1] if history else None
        if last and last.get("step") == step_id and last.get("result") == result:
            return run, {"recorded": step_id, "repeated": True, "next_step": run["current"], "status": run.get("status", "running")}
        if flow.step(step_id) is None:
            raise UsageError(f"{flow.workflow} has no step {step_id!r} (current step: {current.id})")
        if last and last.get("step") == step_id:
            raise UsageError(f"step {step_id} was already recorded with a different result; the current step is {current.id}")
        raise UsageError(f"step {step_id} is not the current step of {flow.workflow} (current: {current.id})")
    last = history[-1] if history else None
    if last and last.get("step") == step_id and last.get("next") == step_id and last.get("result") == result:
        # a self-looping step reporting the very same result twice in a row: a repeat, not a new round
        return run, {"recorded": step_id, "repeated": True, "next_step": run["current"], "status": run.get("status", "running")}
    if current.action == "done":
        return run, {"recorded": step_id, "repeated": True, "next_step": current.id, "status": "done"}
    vars, problems = validate_result(current, run.get("vars", {}), result, env)
    if problems:
        raise UsageError(f"result of step {step_id} does not meet its expects: " + "; ".join(problems))
    vars, underived = with_derived(flow, vars, env)
    needed = sorted({name[1] for w in current.when for name in w.condition.names()
                     if name[0] == "var" and name[1] in underived})
    if needed:
        raise UsageError(f"step {step_id}: the runtime cannot count {', '.join(needed)}: " + "; ".join(underived[n] for n in needed))
    overridden = {n: {"reported": result[n], "derived": vars[n]} for n in flow.derived
                  if n in result and n in vars and result[n] != vars[n]}
    visits = dict(run.get("visits", {}))
    target, why = choose_next(flow, current, result, vars, visits, env)
    visits[target] = visits.get(target, 0) + 1
    new = dict(run)
    new["vars"] = vars
    new["visits"] = visits
    new["results"] = dict(run.get("results", {}))
    new["results"][step_id] = result
    entry = {"step": step_id, "result": result, "next": target, "why": why, "at": env.now()}
    new["history"] = (list(history) + [entry])[-MAX_HISTORY:]
    new["current"] = target
    new["status"] = "done" if flow.step(target).action == "done" else "running"
    new["updated"] = entry["at"]
    report = {"recorded": step_id, "repeated": False, "next_step": target, "why": why, "status": new["status"]}
    if overridden:
        report["derived"] = overridden  # the agent's number was not taken: the files say otherwise
    return new, report
