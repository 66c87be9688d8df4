"""The outer loop of chained micro-agents: `msd chain WORKFLOW --agent claude` (or `--agent-cmd CMD`).

For each step of a flow, from where its run stands (`.planning/state.json`):

- `spawn_agent`, `write_artifact`, `run`: start the agent command once (a fresh agent per
  step, see msd_core.chain.agent_command) with the step's brief on stdin, or with
  `--prompt-file` in a file the command is told to read. The brief names the step, its
  prompt, the context files (absolute paths), the agent definition for spawn_agent
  steps, what must exist afterwards, and the one literal command that reports the result:
  `msd_run step-report --ticket <path> --result '<json>'` (msd_core.chain.step_report; checked
  on the spot). Writing the JSON object to the result file (also in $MSD_STEP_RESULT)
  still works. Then: exit code 0, a result reported, expected files present, every
  checkable claim true (msd_core.chain.verify_claims), result valid -> recorded with step-done.
- `ask_user`: asked in the terminal (each expected field; files the user creates), or a
  clear failure when there is no terminal.
- `done`: the chain ends.

Bounds: each agent runs in its own process group and is ended with everything it
spawned when it outlives `--timeout` (default DEFAULT_TIMEOUT, 30 minutes per step) or
exits leaving children behind (msd_core.chain.agent_process). A result file that is not a
regular file (FIFO, folder, symlink) fails the step; it is never opened.

The chain stops at the first failure with a report: step, exit code, what was missing.
Nothing is recorded for a failed step, so running the chain again retries it.
`dry_run` lists the plan from the current step (with each agent step's command line)
and runs nothing.

Agent output (its stdout and its stderr) goes to stderr so stdout carries only the chain's report,
each within MAX_AGENT_OUTPUT bytes (the first and last halves, a line saying how much was cut).
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from msd_core.errors import MsdError, OperationFailed, UsageError
from msd_core.files.safe_read import kind

DEFAULT_TIMEOUT = 1800.0  # seconds per agent step: a planning or commit step takes minutes; long waves: --timeout
DEFAULT_MAX_STEPS = 200
MAX_AGENT_OUTPUT = 256 * 1024  # bytes of each of an agent's streams passed on to our stderr
AGENT_ACTIONS = ("spawn_agent", "write_artifact", "run")


@dataclass
class ChainReport:
    workflow: str
    ok: bool = True
    status: str = "running"
    steps: list[dict] = field(default_factory=list)
    failure: dict | None = None
    plan: list[dict] | None = None

    def to_json(self) -> dict:
        out = {"workflow": self.workflow, "ok": self.ok, "status": self.status, "steps": self.steps}
        if self.failure:
            out["failure"] = self.failure
        if self.plan is not None:
            out["plan"] = self.plan
        return out


def parse_agent_cmd(cmd: str) -> list[str]:
    try:
        argv = shlex.split(cmd or "")
    except ValueError as exc:
        raise UsageError(f"the agent command does not parse: {exc}", about="agent_cmd") from None
    if not argv:
        raise UsageError("the agent command is empty", hint='e.g. "my-agent --headless"', about="agent_cmd")
    return argv


def _agent_definition(ctx, agent: str | None) -> str | None:
    """The installed agent file (hash-checked against the manifest in an install), or None."""
    if not agent:
        return None
    path, _problem = ctx.src.resolve_installed(f"agents/{agent}.md")
    return path


def brief(ctx, step: dict, result_path: Path, ticket: Path | None = None) -> str:
    """The text an agent gets for one step."""
    from msd_core.chain.step_report import command_line

    lines = [f"You are running step `{step['step']}` of the msd workflow `{step['workflow']}` (action: {step['action']})."]
    agent_def = _agent_definition(ctx, step.get("agent"))
    if step.get("agent"):
        lines.append(f"Act as the {step['agent']} agent" + (f"; its definition: {agent_def}" if agent_def else "") + ".")
    lines += ["", step["prompt"], ""]
    if step["context_files"]:
        lines.append("Read these files first:")
        lines += [f"- {p}" for p in step["context_files"]]
        lines.append("")
    expects = step.get("expects", {})
    if expects.get("files"):
        lines.append("These files must exist when you finish (paths relative to the project):")
        lines += [f"- {p}" for p in expects["files"]]
        lines.append("")
    fields = expects.get("fields", {})
    if ticket is not None:
        if fields:
            shown = ", ".join(f"{k} ({v.rstrip('?')}{', optional' if v.endswith('?') else ''})" for k, v in fields.items())
            lines.append(f"When you finish, report the fields {shown} by running exactly this command, "
                         "with your values in place of the examples:")
        else:
            lines.append("When you finish, report that the step is done by running exactly this command:")
        lines += ["", f"    {command_line(ticket, fields)}", ""]
        lines.append("It checks your result on the spot: when it exits with an error, fix what it names and run it again. "
                     "Fields can also be given as name=value words after the ticket (e.g. plans=3). "
                     "Do not use shell variables or redirects in it.")
        if fields:
            lines.append(f"(Alternative: write the same JSON object to the file {result_path}.)")
        lines.append("msd checks what you claim: committed: true needs a real new commit holding the step's files; "
                     "a `files` list must name files that exist.")
        lines.append("")
    elif fields:
        shown = ", ".join(f"{k} ({v})" for k, v in fields.items())
        lines.append(f"When you finish, write one JSON object with the fields {shown} to the file {result_path}"
                     " (also named in $MSD_STEP_RESULT).")
        lines.append("")
    lines.append(f"Project folder: {ctx.project_root}")
    return "\n".join(lines) + "\n"


def _chain_dir(ctx) -> Path:
    from msd_core.files.private_dir import ensure_private_dir
    from msd_core.paths import CHAIN_DIRNAME

    folder = ensure_private_dir(ctx.project_root) / CHAIN_DIRNAME
    if os.path.islink(folder) or (os.path.lexists(folder) and not folder.is_dir()):
        raise OperationFailed(f"{folder} is a symlink or a file; refusing to write the chain's files through it",
                              hint="remove it; msd recreates the folder")
    folder.mkdir(exist_ok=True)
    return folder


def _clear(path: Path) -> str | None:
    """Remove a leftover file at `path`; an error line when something else than a regular file sits there."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
        path.unlink()
        return None
    return f"{path} is {kind(st.st_mode)}, not a regular file; remove it and run the chain again"


def _read_result(path: Path) -> tuple[dict | None, str | None]:
    """(fields the agent reported, or None when it reported nothing; error line or None).

    Anything but a regular file at the result path (FIFO, folder, device, a symlink to
    anywhere) fails without being opened, so a planted FIFO cannot block the chain."""
    from msd_core.files.jsonfile import read_json_object

    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot read result file {path}: {exc.strerror}"
    if not stat.S_ISREG(st.st_mode):
        return None, f"result file {path} is {kind(st.st_mode)}, not a regular file; refusing to read it"
    try:
        data, _raw = read_json_object(path, "result file", 64 * 1024, hint="the agent must write one JSON object")
    except UsageError as exc:
        return None, exc.message
    return data, None


def plan(ctx, vars: list[tuple[str, str]] | None = None, agent=None, prompt_file: bool = False) -> list[dict]:
    """The steps from the current one, in flow order, with what the chain would do (nothing is written).

    With `agent` (an AgentCommand), each agent step shows the command line it would start."""
    from msd_core.flows import engine, service
    from msd_core.planning import flow_state as state_file

    flow = ctx.flow
    given = service.flow_vars(flow, vars)
    run = state_file.get_run(state_file.read_state(ctx.state_path), flow.workflow)
    if run is None or (run.get("status") == "done" and given):
        run = engine.new_run(flow, given, ctx.env)
    current = run["current"]
    reach = {current}
    todo = [current]
    while todo:
        for t in flow.step(todo.pop()).targets():
            if t not in reach:
                reach.add(t)
                todo.append(t)
    out = []
    for s in flow.steps:
        if s.id not in reach:
            continue
        does = {"ask_user": "ask in the terminal", "done": "stop"}.get(s.action, "start the agent command")
        item = {"step": s.id, "action": s.action, "does": does, "current": s.id == current,
                "next": s.next, "when": [{"if": w.condition.source, "goto": w.goto} for w in s.when]}
        if s.agent:
            item["agent"] = s.agent
        if s.max_visits:
            item["max_visits"] = s.max_visits
        exp = s.expects_json()
        if exp:
            item["expects"] = exp
        if agent is not None and s.action in AGENT_ACTIONS:
            item["command"] = agent.shown({"prompt": s.prompt, "expects": exp}, prompt_file)
        out.append(item)
    return out


def render_plan(workflow: str, items: list[dict]) -> str:
    lines = [f"chain {workflow}: plan from the current step (dry run, nothing runs)"]
    for it in items:
        mark = "*" if it["current"] else " "
        who = f" [{it['agent']}]" if it.get("agent") else ""
        lines.append(f"{mark} {it['step']:<20} {it['action']:<15} {it['does']}{who}")
        for w in it["when"]:
            lines.append(f"      if {w['if']} -> {w['goto']}")
        if it["next"]:
            lines.append(f"      then -> {it['next']}")
        if it.get("command"):
            lines.append(f"      command: {it['command']}")
    return "\n".join(lines) + "\n"


class Chain:
    def __init__(self, ctx, agent, *, prompt_file: bool = False, timeout: float = DEFAULT_TIMEOUT,
                 max_steps: int = DEFAULT_MAX_STEPS, ask: Callable[[str], str | None] | None = None,
                 log: Callable[[str], None] | None = None):
        from msd_core.chain.agent_command import AgentCommand

        self.ctx = ctx
        self.agent = agent if isinstance(agent, AgentCommand) else AgentCommand(argv=list(agent))
        self.prompt_file = prompt_file
        self.timeout = timeout
        self.max_steps = max_steps
        self.ask = ask  # None: no terminal
        self.log = log or (lambda text: sys.stderr.write(text + "\n"))

    def _fail(self, report: ChainReport, step: dict, **info) -> ChainReport:
        report.ok = False
        report.status = "failed"
        report.failure = {"step": step["step"], "action": step["action"], **info}
        return report

    def run(self, vars: list[tuple[str, str]] | None = None) -> ChainReport:
        from msd_core.flows import service

        report = ChainReport(self.ctx.workflow)
        step = service.next_step(self.ctx, vars)
        for _ in range(self.max_steps):
            if step["action"] == "done":
                report.status = "done"
                return report
            self.log(f"msd chain: step {step['step']} ({step['action']})")
            if step["action"] == "ask_user":
                result, problem = self._ask_user(step)
                if problem:
                    return self._fail(report, step, exit_code=None, missing=problem)
                entry = {"step": step["step"], "action": "ask_user"}
            else:
                outcome = self._run_agent(step)
                if "problem" in outcome:
                    info = {k: outcome[k] for k in ("reported", "claims") if k in outcome}
                    return self._fail(report, step, exit_code=outcome.get("exit_code"), missing=outcome["problem"], **info)
                result = outcome["result"]
                entry = {"step": step["step"], "action": step["action"], "exit_code": 0}
            try:
                done = service.step_done(self.ctx, step["step"], json.dumps(result))
            except MsdError as exc:
                return self._fail(report, step, exit_code=entry.get("exit_code"), missing=exc.message)
            entry["next_step"] = done["next_step"]
            report.steps.append(entry)
            step = done["next"]
        return self._fail(report, step, exit_code=None, missing=f"stopped after {self.max_steps} steps (--max-steps)")

    def _declared_paths(self, step: dict, run: dict) -> list[str]:
        """Project paths the run declared so far: expected files of this and earlier steps, the phase folder."""
        from msd_core.flows import engine

        flow = self.ctx.flow
        vars = run.get("vars", {})
        out = list(step.get("expects", {}).get("files", []))
        for entry in run.get("history", []):
            earlier = flow.step(entry.get("step", ""))
            for rel in earlier.files if earlier else ():
                filled, _why = engine.fill_path(rel, vars)
                if filled is not None:
                    out.append(filled)
        phase_dir = vars.get("phase_dir")
        if isinstance(phase_dir, str) and engine.PATH_VALUE_RE.match(phase_dir) and ".." not in phase_dir:
            out.append(f".planning/phases/{phase_dir}")
        return [p for p in dict.fromkeys(out) if "<" not in p]

    def _run_agent(self, step: dict) -> dict:
        from msd_core.chain import step_report
        from msd_core.chain import verify_claims as claims
        from msd_core.chain.agent_process import Capped, run_agent, to_stderr
        from msd_core.flows import service

        folder = _chain_dir(self.ctx)
        stem = f"{self.ctx.workflow}-{step['step']}-{step.get('visit', 1)}"
        ticket, result_path = step_report.paths_for(folder, stem)
        for leftover in (ticket, result_path):
            problem = _clear(leftover)
            if problem:
                return {"problem": problem, "exit_code": None}
        run = service.show(self.ctx)
        flow_step = self.ctx.flow.step(step["step"])
        step_report.write_ticket(ticket, step, run.get("vars", {}), self.ctx.project_root,
                                 list(flow_step.files) if flow_step else [])
        text = brief(self.ctx, step, result_path, ticket)
        stdin_text: str | None = text
        prompt_path = None
        if self.prompt_file:
            from msd_core.files.atomic import atomic_write_text

            prompt_path = folder / f"{stem}.prompt.md"
            atomic_write_text(prompt_path, text)
            stdin_text = None
        argv = self.agent.argv(step, str(prompt_path) if prompt_path else None)
        env = dict(os.environ, MSD_STEP_RESULT=str(result_path), MSD_WORKFLOW=self.ctx.workflow,
                   MSD_STEP=step["step"], MSD_PROJECT=str(self.ctx.project_root))
        before = claims.snapshot(self.ctx.project_root)
        try:
            shown = (Capped("stdout", MAX_AGENT_OUTPUT, forward=to_stderr),
                     Capped("stderr", MAX_AGENT_OUTPUT, forward=to_stderr))
            code, timed_out = run_agent(argv, stdin_text=stdin_text, cwd=str(self.ctx.project_root), env=env,
                                        timeout=self.timeout, capture=shown)
        except FileNotFoundError:
            return {"problem": f"agent command not found: {argv[0]}", "exit_code": None}
        except PermissionError:
            return {"problem": f"agent command not executable: {argv[0]}", "exit_code": None}
        finally:
            ticket.unlink(missing_ok=True)
        if timed_out:
            return {"problem": f"agent did not finish within {self.timeout:g}s (--timeout); it and every process "
                               "it started were ended", "exit_code": None}
        if code != 0:
            return {"problem": f"agent exited with code {code}", "exit_code": code}
        result, problem = _read_result(result_path)
        if problem:
            return {"problem": problem, "exit_code": 0}
        fields = step.get("expects", {}).get("fields", {})
        if result is None:
            if any(not t.endswith("?") for t in fields.values()):
                return {"problem": "the agent reported no result at all (no `msd_run step-report` call, no result "
                                   f"file); the step expects {', '.join(fields)}", "exit_code": 0, "reported": False}
            result = {}
        false_claims = claims.check(self.ctx.project_root, before, result, self._declared_paths(step, run))
        if false_claims:
            return {"problem": "the result claims what the project does not show: " + "; ".join(false_claims),
                    "exit_code": 0, "claims": false_claims}
        return {"result": result}

    def _ask_user(self, step: dict) -> tuple[dict, str | None]:
        if self.ask is None:
            return {}, (f"step {step['step']} asks the user and there is no terminal: run the chain in a terminal, "
                        f"or answer it with `msd_run step-done --workflow {self.ctx.workflow} --step {step['step']} --result '<json>'`")
        self.log("")
        self.log(step["prompt"])
        for p in step.get("context_files", []):
            self.log(f"  context: {p}")
        result: dict = {}
        fields = step.get("expects", {}).get("fields", {})
        for name, typ in fields.items():
            optional = typ.endswith("?")
            base = typ.rstrip("?")
            for _ in range(5):
                line = self.ask(f"{name} ({base}{', optional' if optional else ''}): ")
                if line is None:
                    return {}, "input ended"
                line = line.strip()
                if not line and optional:
                    break
                try:
                    result[name] = _typed(base, line)
                    break
                except ValueError as exc:
                    self.log(f"  {exc}")
            else:
                return {}, f"no valid answer for {name}"
        files = step.get("expects", {}).get("files", [])
        if files:
            self.log("These files must exist: " + ", ".join(files))
            if self.ask("Press Enter when they are written: ") is None:
                return {}, "input ended"
        return result, None


def _typed(typ: str, text: str):
    if typ == "string":
        if not text:
            raise ValueError("an answer is needed")
        return text
    if typ == "bool":
        word = text.lower()
        if word in ("y", "yes", "true", "1"):
            return True
        if word in ("n", "no", "false", "0"):
            return False
        raise ValueError("answer y or n")
    if typ == "int":
        try:
            return int(text)
        except ValueError:
            raise ValueError("a whole number is needed") from None
    if typ == "number":
        try:
            return float(text)
        except ValueError:
            raise ValueError("a number is needed") from None
    from msd_core.files.bounded import loads_json

    try:
        value = loads_json(text, "the value")
    except json.JSONDecodeError:
        raise ValueError(f"a JSON {typ} is needed") from None
    if (typ == "list") != isinstance(value, list) or (typ == "object" and not isinstance(value, dict)):
        raise ValueError(f"a JSON {typ} is needed")
    return value


def ensure_ok(report: ChainReport) -> None:
    if not report.ok:
        f = report.failure or {}
        code = f.get("exit_code")
        raise OperationFailed(
            f"chain stopped at step {f.get('step')} ({f.get('action')})"
            + (f", exit code {code}" if code is not None else "") + f": {f.get('missing')}",
            hint="fix it and run the chain again: it resumes at this step",
        )
