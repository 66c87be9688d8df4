"""Rule `flow-placeholders`: a flow prompt names only variables known by the time it is shown.

`next-step` fills a prompt's `<name>` from the run's variables. A name no variable holds yet is
shown as the literal `<name>`; a name only the step itself reports holds, on its next visit, the
value of the visit before (`--wave <wave>` would say `--wave 1` again for wave 2). So each
`<name>` in a step's prompt must be one of:

- an input of the flow (`[inputs]`, passed with `--var`), or a variable the runtime derives
  (`[derived]`, msd_core.flows.derive: computed again for every prompt);
- a field reported by a step that runs before this one on every path from `start` (the step
  itself does not count: it reports after its prompt was shown).

The flow's own validity is rule `flows` (msd_core.flows.schema); a flow that does not parse is
left to it.
"""

from __future__ import annotations

from msd_core.checks.model import FLOW_RE, CheckContext, Violation

RULE = "flow-placeholders"
FIX = ("report the variable from a step that always runs before this one, make it one the runtime derives "
       "([derived], msd_core/flows/derive.py), or drop it from the prompt")


def known_before(flow) -> dict[str, set[str]]:
    """{step id: the variables every path from start holds when the step is entered}."""
    reports = {s.id: {f.name for f in s.fields} for s in flow.steps}
    preds: dict[str, set[str]] = {s.id: set() for s in flow.steps}
    for s in flow.steps:
        for t in s.targets():
            if t in preds:
                preds[t].add(s.id)
    everything = set().union(*reports.values()) if reports else set()
    known = {s.id: (set() if s.id == flow.start else set(everything)) for s in flow.steps}
    changed = True
    while changed:
        changed = False
        for s in flow.steps:
            if s.id == flow.start:
                continue
            ins = [known[p] | reports[p] for p in preds[s.id]]
            new = set.intersection(*ins) if ins else set()
            if new != known[s.id]:
                known[s.id] = new
                changed = True
    return known


def problems(flow) -> list[tuple[str, str]]:
    """(step id, message) for each prompt placeholder no variable supplies when the prompt is shown."""
    from msd_core.flows.schema import PLACEHOLDER_RE, VAR_NAME_RE

    given = set(flow.inputs) | set(flow.derived)
    known = known_before(flow)
    out: list[tuple[str, str]] = []
    for s in flow.steps:
        seen: set[str] = set()
        for m in PLACEHOLDER_RE.finditer(s.prompt):
            name = m.group(1)
            if not VAR_NAME_RE.match(name) or name in given or name in known[s.id] or name in seen:
                continue
            seen.add(name)
            own = name in {f.name for f in s.fields}
            out.append((s.id, f"step {s.id!r} prompt names <{name}>, which no variable holds when it is shown: "
                              + ("only this step reports it, so its first visit shows the literal placeholder and "
                                 "every later one the value of the visit before" if own else
                                 "no step that always runs before it reports it")))
    return out


def check(ctx: CheckContext) -> list[Violation]:
    import importlib

    try:  # import_module consults sys.modules (a `from` import would take a loaded package's attribute)
        schema = importlib.import_module("msd_core.flows.schema")
    except ImportError:  # an older checkout without the flow schema: rule `flows` parses the TOML alone
        return []

    out: list[Violation] = []
    for rel in ctx.tree.files:
        m = FLOW_RE.match(rel)
        if not m:
            continue
        text = ctx.tree.text(rel)
        if text is None:
            continue
        try:
            flow, errors = schema.parse_flow(text, m.group(1))
        except Exception:  # noqa: BLE001 - rule `flows` reports a flow that does not parse
            continue
        if flow is None or errors:
            continue
        lines = text.splitlines()
        for step_id, message in problems(flow):
            line = _prompt_line(lines, step_id)
            out.append(Violation(rel, line, RULE, message, FIX))
    return out


def _prompt_line(lines: list[str], step_id: str) -> int:
    """The line of the step's `prompt =` (0 when it cannot be found)."""
    at = None
    for n, line in enumerate(lines, 1):
        stripped = line.strip().replace(" ", "")
        if stripped in (f'id="{step_id}"', f"id='{step_id}'"):
            at = n
        elif at is not None and stripped.startswith("prompt="):
            return n
    return 0
