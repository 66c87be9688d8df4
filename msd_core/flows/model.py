"""The in-memory shape of a validated flow (built by msd_core.flows.schema).

Standard library only.
"""

from __future__ import annotations

import re

from msd_core.flows.conditions import Condition
from msd_core.lean.record import field, record

ACTIONS = ("ask_user", "spawn_agent", "write_artifact", "run", "done")
FIELD_TYPES = ("string", "int", "number", "bool", "list", "object")
CHOICE_RE = re.compile(r"^[a-z][a-z0-9_-]*(?:\|[a-z][a-z0-9_-]*)+$")


@record(frozen=True)
class FieldSpec:
    """One expected result field: a type of FIELD_TYPES, or a choice of words (`proceed|guide|stop`:
    a string that must be one of them); `?` after either makes it optional."""

    name: str
    type: str
    optional: bool = False
    choices: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return ("|".join(self.choices) if self.choices else self.type) + ("?" if self.optional else "")


def field_spec(name: str, text: str) -> FieldSpec | None:
    """The spec a type text names (`int`, `string?`, `proceed|guide|stop`); None when it names none."""
    optional = text.endswith("?")
    base = text[:-1] if optional else text
    if base in FIELD_TYPES:
        return FieldSpec(name, base, optional)
    if CHOICE_RE.match(base):
        return FieldSpec(name, "string", optional, tuple(base.split("|")))
    return None


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
            out["fields"] = {f.name: f.text for f in self.fields}
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
    derived: dict = field(default_factory=dict)  # name -> description: computed by the runtime (flows.derive)

    def step(self, step_id: str) -> Step | None:
        for s in self.steps:
            if s.id == step_id:
                return s
        return None

    @property
    def ids(self) -> list[str]:
        return [s.id for s in self.steps]
