"""`next-step` and `step-done` as functions: flow source + state file + engine.

Used by msd_core.run.cmd_next_step and cmd_step_done (agents) and msd_core.chain.loop (the outer loop).

Project root: the first folder at or above `cwd` that holds `.planning/`, else `cwd`
itself (a new project). Config values come from msd_core.config.store (project config,
user defaults, schema defaults); a key the store does not know reads as null.

Standard library only on this path (filelock is loaded when a write takes the lock).
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core import paths
from msd_core.errors import UsageError
from msd_core.flows import engine, source
from msd_core.flows.model import Flow
from msd_core.flows.schema import VAR_NAME_RE
from msd_core.lean.record import record
from msd_core.planning import flow_state as state_file

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs import time on msd_run's hot path
    from typing import Any

MAX_VARS = 20


@record
class FlowContext:
    workflow: str
    cwd: Path
    project_root: Path
    state_path: Path
    src: source.FlowSource
    env: engine.Env
    root: str | None = None  # --root as given: repeated in the payload's `report` hint

    @property
    def flow(self) -> Flow:
        return self.src.flow


def _config_getter(cwd: Path):
    cache: dict = {}

    def get(key: str) -> Any:
        if "layers" not in cache:
            from msd_core.config import store

            cache["store"] = store
            cache["layers"] = store.load_layers(cwd)
        store = cache["store"]
        try:
            return store.get_value(key, cwd, cache["layers"])
        except UsageError:
            return None

    return get


def open_flow(workflow: str, cwd: str | os.PathLike | None = None, state_file_arg: str | None = None,
              root: str | None = None, flows_dir: str | None = None) -> FlowContext:
    here = Path(paths.named_folder(cwd)).absolute() if cwd else Path.cwd()
    src = source.load(workflow, root=root, flows_dir=flows_dir)
    project_root = paths.find_project_root(here) or here
    env = engine.Env(project_root=project_root, config_get=_config_getter(here), resolve_installed=src.resolve_installed,
                     normalise_vars=lambda vars: _phase_vars(project_root, vars),
                     derive=lambda vars, names: _derived(project_root, vars, names))
    spath = state_file.state_path(project_root, state_file_arg, here)
    return FlowContext(workflow, here, project_root, spath, src, env, root=root)


def _derived(project_root: Path, vars: dict, names: tuple) -> tuple[dict, dict]:
    from msd_core.flows.derive import compute

    return compute(project_root, vars, names)


def _phase_vars(project_root: Path, vars: dict) -> dict:
    if "phase" not in vars:
        return vars
    from msd_core.planning.phase_ref import flow_phase_vars

    return flow_phase_vars(project_root, vars)


def _sync_state(project_root: Path) -> dict | None:
    """After a recorded step, STATE.md's derived lines follow the files (state_sync).

    Best effort: no STATE.md, or one that cannot be read or locked, leaves the step
    recorded and says why in `state_sync.error`."""
    if not (project_root / ".planning" / "STATE.md").is_file():
        return None
    from msd_core.errors import MsdError
    from msd_core.progress.state_sync import sync

    try:
        report = sync(project_root, warnings=False)  # the step's report carries changed and missing only
    except MsdError as exc:
        return {"error": exc.message}
    except (OSError, ValueError) as exc:  # an odd file must not undo a recorded step
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {"changed": [c["field"] for c in report["changed"]], "missing": report["missing"]}


def _with_root(ctx: FlowContext, payload: dict) -> dict:
    """The `report` hint names the same install the caller read (a local one needs --root)."""
    if ctx.root and "report" in payload:
        payload["report"] += " --root " + _shell_word(ctx.root)
    return payload


_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


def _shell_word(text: str) -> str:
    """shlex.quote(text); a word shlex leaves as it is (the usual install path) is answered
    without importing shlex."""
    if text and all(c in _SAFE for c in text):
        return text
    import shlex

    return shlex.quote(text)


def flow_vars(flow: Flow, pairs: list[tuple[str, str]] | None) -> dict:
    """The flow's inputs from (name, value) pairs (the command line splits `NAME=VALUE`:
    msd_core.run.argtypes.name_value); each name must be one of the flow's inputs."""
    out: dict = {}
    for name, value in pairs or []:
        if not VAR_NAME_RE.match(name):
            raise UsageError(f"variable name {name[:60]!r} must be lower case (letters, digits, _ and -)", about="var")
        if name not in flow.inputs:
            accepted = ", ".join(sorted(flow.inputs)) or "none"
            raise UsageError(f"{flow.workflow} takes no variable {name!r}", hint=f"it accepts: {accepted}", about="var")
        if len(value) > engine.MAX_VAR_CHARS or any(c in value for c in "\n\r\x00"):
            raise UsageError(f"variable {name}: value must be one line of at most {engine.MAX_VAR_CHARS} characters",
                             about="var")
        out[name] = value
    if len(out) > MAX_VARS:
        raise UsageError(f"at most {MAX_VARS} variables", about="var")
    return out


def _conflicts(run: dict, vars: dict) -> list[str]:
    have = run.get("vars", {})
    return [k for k, v in vars.items() if k in have and engine._var_text(have[k]) != v]


def next_step(ctx: FlowContext, var_pairs: list[tuple[str, str]] | None = None, restart: bool = False) -> dict:
    flow = ctx.flow
    vars = ctx.env.normalise_vars(flow_vars(flow, var_pairs))
    doc = state_file.read_state(ctx.state_path)
    run = state_file.get_run(doc, flow.workflow)
    write = False
    if restart or run is None or (run.get("status") == "done" and vars and _conflicts(run, vars)):
        run = engine.new_run(flow, vars, ctx.env)
        write = bool(vars) or restart
    elif vars:
        clash = _conflicts(run, vars)
        if clash:
            shown = ", ".join(f"{k}={engine._var_text(run['vars'][k])}" for k in clash)
            raise UsageError(
                f"a {flow.workflow} run with {shown} is at step {run['current']}",
                hint="finish it, or start the flow over", remedy="restart",
            )
        if any(k not in run.get("vars", {}) for k in vars):
            run = dict(run)
            run["vars"] = {**run.get("vars", {}), **vars}
            write = True
    payload = _with_root(ctx, engine.step_payload(flow, run, ctx.env))
    if write:
        with state_file.state_lock(ctx.project_root, ctx.state_path):
            doc = state_file.read_state(ctx.state_path)
            doc["workflows"][flow.workflow] = run
            state_file.write_state(ctx.state_path, doc, ctx.project_root)
    return payload


def step_done(ctx: FlowContext, step_id: str, result_text: str | None, var_pairs: list[tuple[str, str]] | None = None) -> dict:
    flow = ctx.flow
    result = engine.parse_result(result_text)
    vars = ctx.env.normalise_vars(flow_vars(flow, var_pairs))
    with state_file.state_lock(ctx.project_root, ctx.state_path):
        doc = state_file.read_state(ctx.state_path)
        run = state_file.get_run(doc, flow.workflow)
        if run is None:
            run = engine.new_run(flow, vars, ctx.env)
        elif vars:
            clash = _conflicts(run, vars)
            if clash:
                raise UsageError(f"variable {', '.join(clash)} differs from the run in progress", about="var",
                                 hint=f"finish the run, or start it over: `msd_run next-step --workflow {flow.workflow} --restart`")
            run = {**run, "vars": {**run.get("vars", {}), **vars}}
        new_run, report = engine.complete_step(flow, run, step_id, result, ctx.env)
        if not report["repeated"]:
            doc["workflows"][flow.workflow] = new_run
            state_file.write_state(ctx.state_path, doc, ctx.project_root)
    if not report["repeated"]:
        synced = _sync_state(ctx.project_root)
        if synced is not None:
            report["state_sync"] = synced
    report["workflow"] = flow.workflow
    report["next"] = _with_root(ctx, engine.step_payload(flow, new_run, ctx.env))
    return report


def show(ctx: FlowContext) -> dict:
    """The stored run (or None) without changing anything: for chain's report and tests."""
    doc = state_file.read_state(ctx.state_path)
    return state_file.get_run(doc, ctx.flow.workflow) or {}
