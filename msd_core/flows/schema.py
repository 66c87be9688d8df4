"""What a valid flow file is: `validate_flow_text` (for the content guard) and `parse_flow`.

A flow (`msd-core/flows/<workflow>.toml`) is a small state machine:

    workflow = "plan-phase"          # must match the file name
    version = 1
    start = "load-context"
    description = "..."              # optional
    [inputs]                         # optional: variables the caller may pass with --var
    phase = "phase number, e.g. 02"

    [[steps]]
    id = "check"                     # lower-case words joined by '-', unique
    action = "spawn_agent"           # ask_user | spawn_agent | write_artifact | run | done
    agent = "msd-plan-checker"       # spawn_agent only (msd-<name>)
    prompt = "Check the plans of phase <phase>."
    context_files = ["msd-core/templates/plan.md", ".planning/phases/<phase_dir>/"]
    expects = { fields = { issues_found = "int", notes = "string?" }, files = [".planning/x.md"] }
    max_visits = 3                   # optional bound on how often this step is entered
    next = "commit"                  # default transition (required unless action = "done")
    [[steps.when]]                   # conditional transitions, first match wins
    if = "result.issues_found > 0"
    goto = "revise"

- `context_files`: installed content as `msd-core/...` (no placeholders: nothing from run
  time becomes part of an installed path) and project artifacts as `.planning/...`
  (placeholders `<name>` allowed; a trailing `/` names a folder).
- `expects.fields`: name -> one of string, int, number, bool, list, object, or a choice of
  lower-case words (`"proceed|guide|stop"`: the value must be one of them); a trailing `?`
  makes it optional. `expects.files`: `.planning/...` paths that must exist afterwards.
- `when.if`: see msd_core.flows.conditions. `result.X` must be a field the step expects.
- `[derived]`: variables the runtime computes (msd_core.flows.derive: `wave`, `plans_remaining`),
  name = "description". No step's `expects.fields` may ask the agent for one.
- Every `<name>` placeholder and `var.name` must be a declared input, a derived variable or a
  field that some step's `expects.fields` reports (a typo is an error, not an unfilled path at
  run time). Whether it is known by the time each prompt shows it is the content guard's rule
  (msd_core.checks.flows).
- A `when` whose target already reached its `max_visits` is passed over.

Every error is reported as (line, message). Standard library only (tomllib/tomli).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from msd_core.flows.conditions import ConditionError, parse_condition
from msd_core.flows.model import ACTIONS, FIELD_TYPES, FieldSpec, Flow, Step, When, field_spec
from msd_core.lean import simple_toml
from msd_core.shipped.layout import is_static_name

MAX_FLOW_BYTES = 256 * 1024
MAX_STEPS = 200
MAX_PROMPT_CHARS = 4000
PLACEHOLDER_RE = re.compile(r"<([^<>]*)>")
VAR_NAME_RE = re.compile(r"^[a-z][a-z0-9_-]*$")
FIELD_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")

TOP_KEYS = {"workflow", "version", "start", "description", "inputs", "derived", "steps"}
STEP_KEYS = {"id", "action", "prompt", "context_files", "expects", "agent", "next", "when", "max_visits", "title"}
WHEN_KEYS = {"if", "goto"}
EXPECTS_KEYS = {"fields", "files"}

Errors = list[tuple[int, str]]


def _toml_loads(text: str) -> dict:
    from msd_core.files.tomlread import loads  # lazy: tomllib, or tomli on Python 3.10

    return loads(text)


def _flow_toml(text: str) -> dict:
    data = simple_toml.parse_simple(text)  # the flow form, without importing tomllib
    return _toml_loads(text) if data is simple_toml.NOT_SIMPLE else data


def _toml_error_line(message: str) -> int:
    m = re.search(r"line (\d+)", message)
    return int(m.group(1)) if m else 1


class _Lines:
    """Where things are in the text: step headers, when headers, and `key =` lines."""

    _HEADER = re.compile(r"^\s*\[\[\s*([A-Za-z0-9_.\s]+?)\s*\]\]\s*(?:#.*)?$")
    _TABLE = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\s]+?)\s*\]\s*(?:#.*)?$")
    _KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")

    def __init__(self, text: str):
        self.top: dict[str, int] = {}
        self.steps: list[dict] = []  # {"line", "keys": {k: line}, "when": [{"line", "keys"}]}
        section = "top"
        for n, line in enumerate(text.splitlines(), start=1):
            h = self._HEADER.match(line)
            if h:
                name = h.group(1).replace(" ", "")
                if name == "steps":
                    self.steps.append({"line": n, "keys": {}, "when": []})
                    section = "step"
                elif name == "steps.when" and self.steps:
                    self.steps[-1]["when"].append({"line": n, "keys": {}})
                    section = "when"
                else:
                    section = "other"
                continue
            t = self._TABLE.match(line)
            if t:
                name = t.group(1).replace(" ", "")
                if name == "steps.expects" and self.steps:
                    self.steps[-1]["keys"].setdefault("expects", n)
                    section = "expects"
                else:
                    self.top.setdefault(name, n)
                    section = "other"
                continue
            k = self._KEY.match(line)
            if not k:
                continue
            key = k.group(1)
            if section == "top":
                self.top.setdefault(key, n)
            elif section == "step":
                self.steps[-1]["keys"].setdefault(key, n)
            elif section == "when":
                self.steps[-1]["when"][-1]["keys"].setdefault(key, n)

    def top_key(self, key: str) -> int:
        return self.top.get(key, 1)

    def step(self, i: int, key: str | None = None) -> int:
        if i >= len(self.steps):
            return self.top.get("steps", 1)
        info = self.steps[i]
        if key is None:
            return info["line"]
        return info["keys"].get(key, info["line"])

    def when(self, i: int, j: int, key: str | None = None) -> int:
        if i < len(self.steps) and j < len(self.steps[i]["when"]):
            info = self.steps[i]["when"][j]
            return info["keys"].get(key, info["line"]) if key else info["line"]
        return self.step(i, "when")


def _check_placeholders(text: str, where: str, line: int, errors: Errors) -> None:
    for m in PLACEHOLDER_RE.finditer(text):
        if not VAR_NAME_RE.match(m.group(1)):
            errors.append((line, f"{where}: bad placeholder <{m.group(1)}> (lower-case name, e.g. <phase>)"))


def _check_relpath(path: str, where: str, line: int, errors: Errors, *, allow_core: bool) -> bool:
    if not isinstance(path, str) or not path:
        errors.append((line, f"{where}: each path must be a non-empty string"))
        return False
    if "\\" in path or "\x00" in path or path.startswith("/") or path.startswith("~"):
        errors.append((line, f"{where}: {path!r} must be a relative path with '/' separators"))
        return False
    parts = PurePosixPath(path.rstrip("/")).parts
    if any(p in ("", ".", "..") for p in parts) or "//" in path:
        errors.append((line, f"{where}: {path!r} may not contain '.', '..' or empty segments"))
        return False
    if path.startswith("msd-core/"):
        if not allow_core:
            errors.append((line, f"{where}: {path!r}: only .planning/... paths are allowed here"))
            return False
        if "<" in path or ">" in path:
            errors.append((line, f"{where}: {path!r}: installed content paths may not contain placeholders"))
            return False
        return True
    if path.startswith(".planning/") or path == ".planning":
        _check_placeholders(path, where, line, errors)
        return True
    allowed = "msd-core/... or .planning/..." if allow_core else ".planning/..."
    errors.append((line, f"{where}: {path!r} must start with {allowed}"))
    return False


def _parse_fields(raw, i: int, lines: _Lines, errors: Errors) -> list[FieldSpec]:
    line = lines.step(i, "expects")
    out: list[FieldSpec] = []
    if not isinstance(raw, dict):
        errors.append((line, "expects.fields must be a table of name = \"type\""))
        return out
    for name, typ in raw.items():
        if not FIELD_NAME_RE.match(name):
            errors.append((line, f"expects.fields: bad field name {name!r} (lower case, digits, _)"))
            continue
        if not isinstance(typ, str):
            errors.append((line, f"expects.fields.{name}: type must be a string, one of {', '.join(FIELD_TYPES)}"))
            continue
        spec = field_spec(name, typ)
        if spec is None:
            errors.append((line, f"expects.fields.{name}: unknown type {typ!r} (one of {', '.join(FIELD_TYPES)}, or a choice "
                                 "of lower-case words such as \"proceed|stop\"; optional with '?')"))
            continue
        out.append(spec)
    return out


def _parse_step(raw, i: int, lines: _Lines, errors: Errors) -> Step | None:
    line = lines.step(i)
    if not isinstance(raw, dict):
        errors.append((line, "each [[steps]] entry must be a table"))
        return None
    before = len(errors)
    for key in raw:
        if key not in STEP_KEYS:
            errors.append((lines.step(i, key), f"step: unknown key {key!r} (known: {', '.join(sorted(STEP_KEYS))})"))
    sid = raw.get("id")
    if not isinstance(sid, str) or not is_static_name(sid):
        errors.append((lines.step(i, "id"), f"step id {sid!r} must be lower-case words joined by '-'"))
        sid = None
    label = f"step {sid!r}" if sid else f"step #{i + 1}"
    action = raw.get("action")
    if action not in ACTIONS:
        errors.append((lines.step(i, "action"), f"{label}: unknown action {action!r} (one of {', '.join(ACTIONS)})"))
    prompt = raw.get("prompt", "")
    if not isinstance(prompt, str) or (action != "done" and not prompt.strip()):
        errors.append((lines.step(i, "prompt"), f"{label}: prompt must be a non-empty string"))
        prompt = ""
    elif len(prompt) > MAX_PROMPT_CHARS:
        errors.append((lines.step(i, "prompt"), f"{label}: prompt longer than {MAX_PROMPT_CHARS} characters (keep it short; detail belongs in the spine)"))
    else:
        _check_placeholders(prompt, f"{label} prompt", lines.step(i, "prompt"), errors)
    title = raw.get("title")
    if title is not None and not isinstance(title, str):
        errors.append((lines.step(i, "title"), f"{label}: title must be a string"))
    ctx = raw.get("context_files", [])
    if not isinstance(ctx, list):
        errors.append((lines.step(i, "context_files"), f"{label}: context_files must be a list of paths"))
        ctx = []
    for p in ctx:
        _check_relpath(p, f"{label} context_files", lines.step(i, "context_files"), errors, allow_core=True)
    if len(set(ctx)) != len(ctx):
        errors.append((lines.step(i, "context_files"), f"{label}: context_files lists a path twice"))
    fields: list[FieldSpec] = []
    files: list[str] = []
    expects = raw.get("expects", {})
    if not isinstance(expects, dict):
        errors.append((lines.step(i, "expects"), f"{label}: expects must be a table with 'fields' and/or 'files'"))
        expects = {}
    for key in expects:
        if key not in EXPECTS_KEYS:
            errors.append((lines.step(i, "expects"), f"{label}: expects: unknown key {key!r} (fields, files)"))
    if "fields" in expects:
        fields = _parse_fields(expects["fields"], i, lines, errors)
    if "files" in expects:
        if not isinstance(expects["files"], list):
            errors.append((lines.step(i, "expects"), f"{label}: expects.files must be a list of .planning/... paths"))
        else:
            for p in expects["files"]:
                if _check_relpath(p, f"{label} expects.files", lines.step(i, "expects"), errors, allow_core=False):
                    files.append(p)
    agent = raw.get("agent")
    if action == "spawn_agent":
        if not (isinstance(agent, str) and agent.startswith("msd-") and is_static_name(agent)):
            errors.append((lines.step(i, "agent") if agent is not None else line, f"{label}: spawn_agent needs agent = \"msd-<name>\""))
    elif agent is not None:
        errors.append((lines.step(i, "agent"), f"{label}: 'agent' is only for spawn_agent steps"))
    nxt = raw.get("next")
    if nxt is not None and not isinstance(nxt, str):
        errors.append((lines.step(i, "next"), f"{label}: next must be a step id string"))
        nxt = None
    max_visits = raw.get("max_visits")
    if max_visits is not None and (not isinstance(max_visits, int) or isinstance(max_visits, bool) or not 1 <= max_visits <= 1000):
        errors.append((lines.step(i, "max_visits"), f"{label}: max_visits must be an integer from 1 to 1000"))
        max_visits = None
    whens: list[When] = []
    raw_when = raw.get("when", [])
    if not isinstance(raw_when, list):
        errors.append((lines.step(i, "when"), f"{label}: when must be an array of tables ([[steps.when]])"))
        raw_when = []
    field_names = {f.name for f in fields}
    for j, w in enumerate(raw_when):
        wline = lines.when(i, j)
        if not isinstance(w, dict):
            errors.append((wline, f"{label}: each when entry must be a table with 'if' and 'goto'"))
            continue
        for key in w:
            if key not in WHEN_KEYS:
                errors.append((lines.when(i, j, key), f"{label}: when: unknown key {key!r} (if, goto)"))
        goto = w.get("goto")
        if not isinstance(goto, str) or not goto:
            errors.append((lines.when(i, j, "goto"), f"{label}: when needs goto = \"<step id>\""))
            continue
        cond_text = w.get("if")
        if not isinstance(cond_text, str):
            errors.append((lines.when(i, j, "if"), f"{label}: when needs if = \"<condition>\""))
            continue
        try:
            cond = parse_condition(cond_text)
        except ConditionError as exc:
            errors.append((lines.when(i, j, "if"), f"{label}: bad condition {cond_text!r}: {exc}"))
            continue
        for name in cond.names():
            if name[0] == "result" and name[1] not in field_names:
                errors.append((lines.when(i, j, "if"), f"{label}: condition reads result.{name[1]}, which is not in the step's expects.fields"))
        for node_path in _exists_paths(cond.tree):
            _check_relpath(node_path, f"{label} exists()", lines.when(i, j, "if"), errors, allow_core=False)
        whens.append(When(cond, goto))
    if action == "done":
        if nxt is not None or whens:
            errors.append((lines.step(i, "next") if nxt is not None else lines.step(i, "when"), f"{label}: a done step has no transitions"))
    elif action in ACTIONS and nxt is None:
        errors.append((line, f"{label}: needs next = \"<step id>\" (the default transition)"))
    if len(errors) != before or sid is None:
        return None
    return Step(
        id=sid, action=action, prompt=prompt, context_files=tuple(ctx), fields=tuple(fields),
        files=tuple(files), agent=agent, next=nxt, when=tuple(whens), max_visits=max_visits, title=title,
    )


def _exists_paths(node: tuple) -> list[str]:
    kind = node[0]
    if kind == "exists":
        return [node[1]]
    if kind in ("and", "or"):
        return [p for c in node[1] for p in _exists_paths(c)]
    if kind == "not":
        return _exists_paths(node[1])
    return []


def parse_flow(text: str, name: str | None = None) -> tuple[Flow | None, Errors]:
    """Parse and validate a flow; (Flow, []) when valid, (None, [(line, message), ...]) otherwise."""
    errors: Errors = []
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FLOW_BYTES:
        return None, [(1, f"flow file larger than {MAX_FLOW_BYTES} bytes")]
    from msd_core.files.bounded import BoundedInputError, parse

    try:
        data = parse(_flow_toml, text, "toml", "the flow file")
    except BoundedInputError as exc:
        return None, [(1, exc.message)]
    except Exception as exc:  # tomllib.TOMLDecodeError (and tomli's)
        msg = str(exc)
        return None, [(_toml_error_line(msg), f"not valid TOML: {msg}")]
    lines = _Lines(text)
    for key in data:
        if key not in TOP_KEYS:
            errors.append((lines.top_key(key), f"unknown top-level key {key!r} (known: {', '.join(sorted(TOP_KEYS))})"))
    workflow = data.get("workflow")
    if not isinstance(workflow, str) or not is_static_name(workflow):
        errors.append((lines.top_key("workflow"), f"workflow must be a lower-case name, got {workflow!r}"))
    elif name is not None:
        stem = PurePosixPath(name).name
        stem = stem[:-5] if stem.endswith(".toml") else stem
        if stem != workflow:
            errors.append((lines.top_key("workflow"), f"workflow {workflow!r} does not match the file name {stem!r}"))
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        errors.append((lines.top_key("version"), f"version must be a positive integer, got {version!r}"))
    description = data.get("description", "")
    if not isinstance(description, str):
        errors.append((lines.top_key("description"), "description must be a string"))
        description = ""
    inputs = data.get("inputs", {})
    if not isinstance(inputs, dict) or not all(VAR_NAME_RE.match(k) and isinstance(v, str) for k, v in inputs.items()):
        errors.append((lines.top_key("inputs"), "inputs must be a table of name = \"description\" (lower-case names)"))
        inputs = {}
    derived = data.get("derived", {})
    from msd_core.flows.derive import NAMES as DERIVABLE

    if not isinstance(derived, dict) or not all(isinstance(v, str) for v in derived.values()):
        errors.append((lines.top_key("derived"), "derived must be a table of name = \"description\""))
        derived = {}
    for k in derived:
        if k not in DERIVABLE:
            errors.append((lines.top_key("derived"), f"derived: the runtime computes no variable {k!r} (it computes "
                                                     f"{', '.join(sorted(DERIVABLE))}: msd_core/flows/derive.py)"))
        elif k in inputs:
            errors.append((lines.top_key("derived"), f"derived: {k!r} is also an input; the runtime computes it"))
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list) or not raw_steps:
        errors.append((lines.top_key("steps"), "a flow needs at least one [[steps]] entry"))
        return None, sorted(errors)
    if len(raw_steps) > MAX_STEPS:
        errors.append((lines.step(MAX_STEPS), f"more than {MAX_STEPS} steps"))
        return None, sorted(errors)
    steps: list[Step] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(raw_steps):
        step = _parse_step(raw, i, lines, errors)
        sid = raw.get("id") if isinstance(raw, dict) else None
        if isinstance(sid, str):
            if sid in seen:
                errors.append((lines.step(i, "id"), f"duplicate step id {sid!r} (first at line {seen[sid]})"))
            else:
                seen[sid] = lines.step(i, "id")
        if step is not None:
            steps.append(step)
    index = {sid: i for i, sid in enumerate(s.get("id") for s in raw_steps if isinstance(s, dict))}
    start = data.get("start")
    if not isinstance(start, str) or start not in seen:
        errors.append((lines.top_key("start"), f"start {start!r} is not a step id"))
    for i, raw in enumerate(raw_steps):
        if not isinstance(raw, dict):
            continue
        label = f"step {raw.get('id')!r}"
        nxt = raw.get("next")
        if isinstance(nxt, str) and nxt not in seen:
            errors.append((lines.step(i, "next"), f"{label}: next goes to missing step {nxt!r}"))
        for j, w in enumerate(raw.get("when", []) if isinstance(raw.get("when"), list) else []):
            goto = w.get("goto") if isinstance(w, dict) else None
            if isinstance(goto, str) and goto and goto not in seen:
                errors.append((lines.when(i, j, "goto"), f"{label}: when goes to missing step {goto!r}"))
            if isinstance(w, dict) and isinstance(w.get("if"), str):
                try:
                    cond = parse_condition(w["if"])
                except ConditionError:
                    continue
                for path in cond.names():
                    if path[0] == "visits" and path[1] not in seen:
                        errors.append((lines.when(i, j, "if"), f"{label}: condition counts visits of missing step {path[1]!r}"))
    if not any(isinstance(r, dict) and r.get("action") == "done" for r in raw_steps):
        errors.append((lines.top_key("steps") if not lines.steps else lines.step(0), "the flow has no step with action = \"done\""))
    if errors:
        return None, sorted(set(errors))
    flow = Flow(workflow=workflow, version=version, start=start, steps=tuple(steps), description=description, inputs=dict(inputs),
                derived={k: v for k, v in derived.items() if k in DERIVABLE})
    _check_graph(flow, lines, index, errors)
    _check_variables(flow, lines, index, errors)
    if errors:
        return None, sorted(set(errors))
    return flow, []


def _check_graph(flow: Flow, lines: _Lines, index: dict, errors: Errors) -> None:
    by_id = {s.id: s for s in flow.steps}
    reached = {flow.start}
    todo = [flow.start]
    while todo:
        for t in by_id[todo.pop()].targets():
            if t not in reached:
                reached.add(t)
                todo.append(t)
    for s in flow.steps:
        if s.id not in reached:
            errors.append((lines.step(index[s.id]), f"step {s.id!r} is unreachable from start {flow.start!r}"))
    # every reachable step must be able to reach a done step
    finishing = {s.id for s in flow.steps if s.action == "done"}
    changed = True
    while changed:
        changed = False
        for s in flow.steps:
            if s.id not in finishing and any(t in finishing for t in s.targets()):
                finishing.add(s.id)
                changed = True
    for s in flow.steps:
        if s.id in reached and s.id not in finishing:
            errors.append((lines.step(index[s.id]), f"step {s.id!r} can never reach a done step"))


def _check_variables(flow: Flow, lines: _Lines, index: dict, errors: Errors) -> None:
    """Every `<name>` and `var.name` must be a declared input or a field some step reports."""
    known = set(flow.inputs) | set(flow.derived) | {f.name for s in flow.steps for f in s.fields}
    for s in flow.steps:
        for f in s.fields:
            if f.name in flow.derived:
                errors.append((lines.step(index[s.id], "expects"), f"step {s.id!r}: field {f.name} is derived by the runtime "
                                                                   "(the flow's [derived] table); drop it from expects.fields"))

    def check(text: str, where: str, line: int) -> None:
        for m in PLACEHOLDER_RE.finditer(text):
            if VAR_NAME_RE.match(m.group(1)) and m.group(1) not in known:
                errors.append((line, f"{where}: <{m.group(1)}> is neither an input nor a field any step reports"))

    for s in flow.steps:
        i = index[s.id]
        check(s.prompt, f"step {s.id!r} prompt", lines.step(i, "prompt"))
        for p in s.context_files:
            check(p, f"step {s.id!r} context_files", lines.step(i, "context_files"))
        for p in s.files:
            check(p, f"step {s.id!r} expects.files", lines.step(i, "expects"))
        for j, w in enumerate(s.when):
            for p in _exists_paths(w.condition.tree):
                check(p, f"step {s.id!r} exists()", lines.when(i, j, "if"))
            for name in w.condition.names():
                if name[0] == "var" and name[1] not in known:
                    errors.append((lines.when(i, j, "if"), f"step {s.id!r}: var.{name[1]} is neither an input nor a field any step reports"))


def validate_flow_text(text: str, name: str) -> list[tuple[int, str]]:
    """(line, message) for every problem in a flow file's text; empty when the flow is valid."""
    if not isinstance(text, str):
        return [(1, "flow text must be a string")]
    _, errors = parse_flow(text, name)
    return errors


def content_paths(flow: Flow) -> list[str]:
    """Installed content paths (`msd-core/...`) a flow names, for the content guard to check they ship."""
    seen: list[str] = []
    for s in flow.steps:
        for p in s.context_files:
            if p.startswith("msd-core/") and p not in seen:
                seen.append(p)
    return seen
