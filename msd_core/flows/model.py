"""The in-memory shape of a validated flow (built by msd_core.flows.schema).

Standard library only.
"""

from __future__ import annotations

from msd_core.flows.conditions import Condition
from msd_core.lean.record import field, record

ACTIONS = ("ask_user", "spawn_agent", "write_artifact", "run", "done")
FIELD_TYPES = ("string", "int", "number", "bool", "list", "object")


@record(frozen=True)
class FieldSpec:
    name: str
    type: str
    optional: bool = False


@record(frozen=True)
class When:
    condition: Condition
    goto: str


@record(frozen=True)
class Step:
    id: str
    action: str
    prompt: str
    context_files: tuple[str, ...] = ()
    fields: tuple[FieldSpec, ...] = ()
    files: tuple[str, ...] = ()
    agent: str | None = None
    next: str | None = None
    when: tuple[When, ...] = ()
    max_visits: int | None = None
    title: str | None = None

    def targets(self) -> list[str]:
        out = [w.goto for w in self.when]
        if self.next:
            out.append(self.next)
        return out

    def expects_json(self) -> dict:
        out: dict = {}
        if self.fields:
            out["fields"] = {f.name: f.type + ("?" if f.optional else "") for f in self.fields}
        if self.files:
            out["files"] = list(self.files)
        return out


@record(frozen=True)
class Flow:
    workflow: str
    version: int
    start: str
    steps: tuple[Step, ...]
    description: str = ""
    inputs: dict = field(default_factory=dict)

    def step(self, step_id: str) -> Step | None:
        for s in self.steps:
            if s.id == step_id:
                return s
        return None

    @property
    def ids(self) -> list[str]:
        return [s.id for s in self.steps]
