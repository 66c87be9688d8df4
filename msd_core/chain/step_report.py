"""How an agent started by `msd chain` reports its step: `msd_run step-report`.

The chain writes a ticket for each agent step (`.planning/.msd/chain/<run>.ticket.json`:
workflow, step, what the step expects, the run's variables) and names it in the brief as
one literal command line:

    msd_run step-report --ticket /abs/.planning/.msd/chain/plan-phase-plan-1.ticket.json --result '{"plans": 3}'
    msd_run step-report --ticket /abs/...ticket.json plans=3          (name=value, typed by the expects)

The command checks the result against the step's expects on the spot (the same check as
`step-done`: every field with its type, every expected file present) and, when it holds,
writes it to the ticket's result file (`<run>.result.json`, atomically) for the chain to
pick up. When it does not hold it writes nothing and exits 2 with every problem on one
line, so the agent can fix its work and report again. No shell variables, no redirects,
no file writes by the agent: `Bash(msd_run *)` is the only permission it needs.

Standard library only (msd_run's hot path).
"""

from __future__ import annotations

import json
import os
import shlex
import stat
from pathlib import Path

from msd_core.errors import UsageError
from msd_core.paths import CHAIN_RESULT_SUFFIX as RESULT_SUFFIX
from msd_core.paths import CHAIN_TICKET_SUFFIX as TICKET_SUFFIX

MAX_TICKET_BYTES = 256 * 1024
EXAMPLE_VALUES = {"string": "...", "int": 0, "number": 0, "bool": True, "list": [], "object": {}}


def paths_for(folder: Path, stem: str) -> tuple[Path, Path]:
    """(ticket path, result path) of one step run."""
    return folder / f"{stem}{TICKET_SUFFIX}", folder / f"{stem}{RESULT_SUFFIX}"


def result_path_of(ticket: Path) -> Path:
    return ticket.with_name(ticket.name[: -len(TICKET_SUFFIX)] + RESULT_SUFFIX)


def write_ticket(ticket: Path, step: dict, run_vars: dict, project_root: Path, step_files: list[str]) -> None:
    """The ticket for `step` (a next-step payload); `step_files` are the expects' paths as written in the flow."""
    from msd_core.files.atomic import atomic_write_text

    body = {
        "workflow": step["workflow"],
        "step": step["step"],
        "action": step["action"],
        "visit": step.get("visit", 1),
        "project_root": str(project_root),
        "fields": step.get("expects", {}).get("fields", {}),
        "files": list(step_files),
        "vars": run_vars,
    }
    atomic_write_text(ticket, json.dumps(body, ensure_ascii=False, indent=1) + "\n")


def command_line(ticket: Path, fields: dict) -> str:
    """The literal command the brief shows (example values the agent replaces)."""
    example = {name: EXAMPLE_VALUES.get(typ.rstrip("?"), "...") for name, typ in fields.items() if not typ.endswith("?")}
    line = f"msd_run step-report --ticket {shlex.quote(str(ticket))}"
    if fields:
        line += " --result " + shlex.quote(json.dumps(example, ensure_ascii=False))
    return line


def _regular_or_absent(path: Path, what: str) -> bool:
    """True when `path` is a regular file, False when absent; UsageError for anything else."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        from msd_core.files.safe_read import kind

        raise UsageError(f"{what} {path} is {kind(st.st_mode)}, not a regular file")
    return True


def read_ticket(ticket: Path) -> dict:
    from msd_core.files.jsonfile import read_json_object

    if not ticket.name.endswith(TICKET_SUFFIX):
        raise UsageError(f"{ticket} is not a step ticket (its name ends in {TICKET_SUFFIX})",
                         hint="copy the command from your brief exactly", about="ticket")
    if not _regular_or_absent(ticket, "step ticket"):
        raise UsageError(f"step ticket {ticket} does not exist (the chain has moved on, or the path is mistyped)",
                         hint="copy the command from your brief exactly")
    data, _raw = read_json_object(ticket, "step ticket", MAX_TICKET_BYTES, hint="run the chain again")
    data = data or {}
    if not isinstance(data.get("step"), str) or not isinstance(data.get("fields"), dict) \
            or not isinstance(data.get("files"), list) or not isinstance(data.get("vars"), dict) \
            or not isinstance(data.get("project_root"), str):
        raise UsageError(f"step ticket {ticket} is not one msd chain wrote", hint="run the chain again")
    return data


def _typed(name: str, typ: str | None, text: str):
    base = (typ or "").rstrip("?")
    if base == "string" or "|" in base:  # a choice of words is a string
        return text
    if base == "bool":
        word = text.strip().lower()
        if word in ("true", "yes", "y", "1"):
            return True
        if word in ("false", "no", "n", "0"):
            return False
        raise UsageError(f"{name}={text[:40]}: {name} is a bool; write {name}=true or {name}=false")
    if base == "int":
        try:
            return int(text.strip())
        except ValueError:
            raise UsageError(f"{name}={text[:40]}: {name} is an int; write a whole number") from None
    if base == "number":
        try:
            return float(text.strip())
        except ValueError:
            raise UsageError(f"{name}={text[:40]}: {name} is a number") from None
    from msd_core.files.bounded import loads_json

    try:
        value = loads_json(text, name)
    except json.JSONDecodeError:
        if base in ("list", "object"):
            raise UsageError(f"{name}: {name} is a {base}; write it as JSON, e.g. {name}='[\"a\", \"b\"]'") from None
        return text  # a field the step does not declare: kept as text
    return value


def parse_pairs(pairs: list[str], fields: dict) -> dict:
    out: dict = {}
    for pair in pairs:
        if "=" not in pair:
            raise UsageError(f"{pair[:60]!r} must look like name=value", hint="or give the result as one JSON object",
                             remedy="result")
        name, text = pair.split("=", 1)
        if not name:
            raise UsageError(f"{pair[:60]!r} has no field name before '='")
        out[name] = _typed(name, fields.get(name), text)
    return out


def report(ticket_arg: str, result_text: str | None, pairs: list[str]) -> dict:
    """Check a reported result against the ticket's step and write it for the chain; UsageError when it fails."""
    from msd_core.flows import engine
    from msd_core.flows.model import FieldSpec, Step, field_spec

    ticket = Path(ticket_arg).absolute()
    data = read_ticket(ticket)
    fields = data["fields"]
    result = engine.parse_result(result_text) if result_text else {}
    result.update(parse_pairs(pairs, fields))
    specs = tuple(field_spec(str(n), str(t)) or FieldSpec(str(n), str(t).rstrip("?"), str(t).endswith("?"))
                  for n, t in fields.items())
    step = Step(id=data["step"], action=str(data.get("action", "run")), prompt="", fields=specs,
                files=tuple(str(f) for f in data["files"]))
    env = engine.Env(project_root=Path(data["project_root"]), config_get=lambda _key: None,
                     resolve_installed=lambda _rel: (None, "not used"))
    _vars, problems = engine.validate_result(step, data["vars"], result, env)
    if problems:
        raise UsageError(f"step {data['step']} not reported: " + "; ".join(problems),
                         hint="fix it and run the same command again with the corrected result")
    target = result_path_of(ticket)
    _regular_or_absent(target, "result file")  # a symlink or FIFO planted there is refused, never written through
    from msd_core.files.atomic import atomic_write_text

    atomic_write_text(target, json.dumps(result, ensure_ascii=False) + "\n")
    return {"reported": data["step"], "workflow": data.get("workflow"), "result": result,
            "next": "done: stop here; msd chain records the step when you exit"}
