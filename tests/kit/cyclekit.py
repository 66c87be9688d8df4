"""The user's agent, scripted: it runs exactly the commands the installed content names.

Used by the whole-cycle scenarios (tests/cycle/) and, replayed, by the host cycle
(tests/host/test_cycle_milestone.py: `sessions(agent.log)` gives each slash command's actions).
Nothing here decides what msd does: every command comes from the installed tree
(`msd install --global` into the test's HOME):

    content = Content(home / ".claude")
    content.command("execute-phase", "update-state", "msd_run state sync")   # one line of a spine section
    content.commands("verify-work", "Step 5")                               # every command of a section

A section is a spine heading (`### commit`, `## Step 5: Finish`, `## insert`) up to the next
heading of its level or higher. A command is a code span or fenced line starting with `msd_run`
(each invocation of an `&&` chain on its own), `git` or `mkdir`. `command()` fails the test when
the section no longer names it: a content edit that breaks the cycle breaks the scenario.

    agent = Agent(project, content)
    agent.run("discuss-phase", "Step 5", "msd_run commit", n="1", nn="01", slug="core")

fills the placeholders (`<n>`; a placeholder the caller does not fill fails the test), expands
`~`, runs it in the project and records it (`agent.log`: one entry per command and file write,
grouped by the slash command being carried out, `agent.begin("/msd-plan-phase 1")`).
With `MSD_COVERAGE_LOG=<file>` set, each command and write is also appended to that file as one
JSON line (the command as the content wrote it, placeholders unfilled; the line run; the path
written; the test and slash command): scripts/content_coverage.py matches the content against it.
Commands the content gives as a worked example (a commit line naming example files) are run
with `commit_like`: the same command and options, the agent's own files and message.

Standard library and this checkout only.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from msd_core.checks.contract import invocations
from msd_core.checks.textlines import code_segments
from tests.conftest import repo_env
from tests.kit.gitkit import git, new_repo  # noqa: F401 (the walks import them from here)

REPO = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"<([a-z][a-z0-9_-]*)>")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_SHELL_START = re.compile(r"^(?:git|mkdir)\s")


class ContentChanged(AssertionError):
    """The installed content no longer names what the cycle needs."""


# ------------------------------------------------------------------ the installed content


class Content:
    def __init__(self, config_dir: Path):
        self.config = Path(config_dir)
        self.root = self.config / "msd-core"

    def text(self, rel: str) -> str:
        return (self.config / rel).read_text(encoding="utf-8")

    def spine(self, stem: str) -> str:
        return (self.root / "workflows" / f"{stem}.md").read_text(encoding="utf-8")

    def skill(self, name: str) -> str:
        return (self.config / "skills" / f"msd-{name}" / "SKILL.md").read_text(encoding="utf-8")

    def section(self, stem: str, heading: str, rel: str | None = None) -> list[str]:
        """The lines under the first heading whose text starts with `heading`."""
        lines = (self.text(rel) if rel else self.spine(stem)).splitlines()
        heads: list[tuple[int, int, str]] = []  # (line, level, text) of headings outside fenced code
        fenced = False
        for i, line in enumerate(lines):
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
                continue
            m = None if fenced else _HEADING.match(line)
            if m:
                heads.append((i, len(m.group(1)), m.group(2)))
        for k, (i, level, text) in enumerate(heads):
            if text.startswith(heading):
                end = next((j for j, lv, _t in heads[k + 1:] if lv <= level), len(lines))
                return lines[i + 1:end]
        raise ContentChanged(f"{rel or stem}: no section {heading!r} any more")

    def commands(self, stem: str, heading: str, rel: str | None = None) -> list[str]:
        """Every command the section names, in order, once each."""
        out: list[str] = []
        for seg in code_segments(self.section(stem, heading, rel)):
            text = seg.text.strip()
            found: list[str] = []
            if text.startswith("msd_run ") or " msd_run " in text:
                found = ["msd_run " + b.strip() for b in invocations(text) if b.strip()]
            elif _SHELL_START.match(text):
                found = [text.split(" && ")[0].strip()]
            for cmd in found:
                if cmd not in out:
                    out.append(cmd)
        return out

    def command(self, stem: str, heading: str, start: str, rel: str | None = None) -> str:
        """The one command of the section that starts with `start` (the first, when several do)."""
        found = [c for c in self.commands(stem, heading, rel) if c.startswith(start)]
        if not found:
            raise ContentChanged(f"{rel or stem} § {heading}: names no `{start}` any more "
                                 f"(it names: {self.commands(stem, heading, rel)})")
        return found[0]

    def line_command(self, rel: str, start: str) -> str:
        """The first command anywhere in an installed file that starts with `start`."""
        lines = self.text(rel).splitlines()
        for seg in code_segments(lines):
            text = seg.text.strip()
            if text.startswith(start.split()[0]):
                for cmd in (["msd_run " + b.strip() for b in invocations(text)] if text.startswith("msd_run") else [text]):
                    if cmd.startswith(start):
                        return cmd
        raise ContentChanged(f"{rel}: names no `{start}` any more")

    def template(self, name: str, **values: str) -> str:
        text = (self.root / "templates" / name).read_text(encoding="utf-8")
        return re.sub(r"\{\{([^}]*)\}\}", lambda m: values.get(m.group(1).strip(), "Core"), text)

    def uat_example(self) -> str:
        """The UAT.md format verify-work's spine gives (its protected example block)."""
        m = re.search(r"```markdown\n(---\nstatus: testing.*?)```", self.spine("verify-work"), re.S)
        if not m:
            raise ContentChanged("verify-work: the UAT.md format block is gone")
        return m.group(1)


# ------------------------------------------------------------------ running commands


def fill(command: str, values: dict) -> str:
    def sub(m: re.Match) -> str:
        name = m.group(1)
        if name not in values:
            raise ContentChanged(f"`{command}` holds <{name}>, which the scenario cannot fill")
        return str(values[name])

    return PLACEHOLDER.sub(sub, command)


MACHINE_START = "<!-- msd:verify:start -->"
MACHINE_END = "<!-- msd:verify:end"


def _machine_part(text: str) -> tuple[int, int] | None:
    """(start, end) of the one machine part in `text` (end: after its end marker's ` -->`), else None."""
    if text.count(MACHINE_START) != 1 or text.count(MACHINE_END) != 1:
        return None
    start, tail = text.index(MACHINE_START), text.index(MACHINE_END)
    close = text.find(" -->", tail)
    return (start, close + 4) if start < tail and close >= 0 else None


def _around_machine_part(old: str, new: str) -> list[tuple[str, str]] | None:
    """The Edit calls (old_string, new_string) that turn `old` into `new` when both hold the same machine
    part and only the text around it changes; None otherwise (a plain write). Each old_string is
    anchored on the part's markers, so it occurs once in the file."""
    a, b = _machine_part(old), _machine_part(new)
    if a is None or b is None or old[a[0]:a[1]] != new[b[0]:b[1]]:
        return None
    edits = []
    if old[:a[0]] != new[:b[0]]:
        edits.append((old[:a[0]] + MACHINE_START, new[:b[0]] + MACHINE_START))
    if old[a[1]:] != new[b[1]:]:
        edits.append((" -->" + old[a[1]:], " -->" + new[b[1]:]))
    if any(old.count(o) != 1 for o, _n in edits):
        return None
    return edits


@dataclass
class Action:
    invocation: str  # the slash command being carried out ("" before any)
    session: int  # which carrying-out of it (one per `Agent.begin`)
    kind: str  # "bash" | "write" | "edit"
    text: str  # the command, or the path written (relative to the project)
    content: str = ""
    code: int = 0
    out: str = ""
    edits: tuple = ()  # "edit": the (old, new) replacements, in order, that make `content` of the file


@dataclass
class Agent:
    project: Path
    content: Content
    log: list[Action] = field(default_factory=list)
    invocation: str = ""
    session: int = 0
    calls: int = 0
    emitted: dict = field(default_factory=dict)  # invocation -> what the skill's shell line rendered
    base_env: dict | None = None  # the environment commands run in (default: this process's)

    # -- bookkeeping
    def begin(self, invocation: str) -> str:
        """Start carrying out a slash command: the host renders the skill's shell line first
        (`msd_run resolve <stem> --emit`); that output is what the agent reads besides the spine."""
        self.invocation = invocation
        self.session += 1
        name = invocation.split()[0].lstrip("/").removeprefix("msd-")
        skill = self.content.skill(name)
        emit = re.search(r"!`(msd_run resolve [^`]*)`", skill)
        if not emit:
            return ""
        line = emit.group(1).split(" || ")[0]
        self._cover("bash", line, line)
        proc = self._exec(shlex.split(line), self.project)
        assert proc.returncode == 0, f"{invocation}: {line} -> {proc.returncode}: {proc.stderr}"
        self.emitted[invocation] = proc.stdout
        return proc.stdout

    def env(self) -> dict:
        return repo_env(self.base_env)

    def _exec(self, argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
        home = self.env().get("HOME") or os.path.expanduser("~")
        argv = [home + a[1:] if a.startswith("~/") else a for a in argv]
        if argv[0] == "msd_run":
            argv = [sys.executable, "-m", "msd_core.run", *argv[1:]]
        self.calls += 1
        return subprocess.run(argv, cwd=str(cwd), env=self.env(), capture_output=True, text=True, timeout=300,
                               stdin=subprocess.DEVNULL)

    # -- the agent's tools
    def _cover(self, kind: str, text: str, template: str = "") -> None:
        """One JSON line in $MSD_COVERAGE_LOG (when set) for scripts/content_coverage.py."""
        target = os.environ.get("MSD_COVERAGE_LOG")
        if not target:
            return
        record = {"kind": kind, "template": template, "text": text, "invocation": self.invocation,
                  "test": os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0], "compact": self._compact()}
        with open(target, "a", encoding="utf-8") as fh:  # one write per line: appends from workers do not interleave
            fh.write(json.dumps(record) + "\n")

    def _compact(self) -> str:
        """'on' or 'off': the scenario's compact parameter (tests/cycle/conftest.py), else the project's
        workflow.compact_content, else 'off'."""
        test = os.environ.get("PYTEST_CURRENT_TEST", "")
        for mode in ("on", "off"):
            if f"compact-{mode}" in test:
                return mode
        try:
            value = json.loads((self.project / ".planning/config.json").read_text(encoding="utf-8"))["workflow"]["compact_content"]
        except (OSError, ValueError, KeyError, TypeError):
            value = False
        return "on" if value is True else "off"

    def sh(self, command: str, /, *, ok=(0,), cwd: Path | None = None, template: str | None = None,
           **values) -> subprocess.CompletedProcess:
        """Run one command line (placeholders filled from `values`), as the Bash tool would.
        `template`: the line as the content wrote it, when `command` was rewritten from it (coverage log)."""
        line = fill(command, values)
        self._cover("bash", line, command if template is None else template)
        from msd_core.hooks.planning_bash import refusal  # the planning guard's Bash half lets the content's commands run

        refused = refusal(line, str(cwd or self.project))
        assert refused is None, f"{self.invocation}: `{line}` is refused by the planning guard: {refused}"
        proc = self._exec(shlex.split(line), cwd or self.project)
        where = ""
        if cwd is not None and Path(cwd) != self.project:
            where = str(Path(cwd).relative_to(self.project)) if Path(cwd).is_relative_to(self.project) else str(cwd)
        self.log.append(Action(self.invocation, self.session, "bash", (f"cd {where} && " if where else "") + line,
                               code=proc.returncode, out=proc.stdout))
        assert "Traceback" not in proc.stderr, f"{line}: {proc.stderr}"
        assert proc.returncode in ok, f"{self.invocation}: `{line}` exited {proc.returncode}: {proc.stderr.strip()}"
        return proc

    def run(self, stem: str, heading: str, start: str, /, *, ok=(0,), cwd: Path | None = None, rel: str | None = None,
            **values) -> subprocess.CompletedProcess:
        """Run the command the content names in a section (see Content.command)."""
        return self.sh(self.content.command(stem, heading, start, rel), ok=ok, cwd=cwd, **values)

    def json(self, stem: str, heading: str, start: str, /, **kw) -> dict:
        return json.loads(self.run(stem, heading, start, **kw).stdout)

    def run_all(self, stem: str, heading: str, skip: tuple[str, ...] = (), ok=(0,), **values) -> list[str]:
        """Run every command of a section in order (those starting with a `skip` prefix left out)."""
        ran = []
        for cmd in self.content.commands(stem, heading):
            if any(cmd.startswith(s) for s in skip):
                continue
            self.sh(cmd, ok=ok, **values)
            ran.append(cmd)
        return ran

    def commit_like(self, example: str, files: list[str], message: str, /, *, ok=(0,), cwd: Path | None = None,
                    **values) -> subprocess.CompletedProcess:
        """Run a commit the content shows by example: its command and options, these files and message."""
        argv = shlex.split(example)
        assert argv[:2] == ["msd_run", "commit"] and "--files" in argv and "-m" in argv, f"not a commit line: {example}"
        out, i = [], 0
        while i < len(argv):
            a = argv[i]
            if a == "--files":
                out += ["--files", *files]
                i += 1
                while i < len(argv) and not argv[i].startswith("-"):
                    i += 1
                continue
            if a == "-m":
                out += ["-m", message]
                i += 2
                continue
            out.append(a)
            i += 1
        return self.sh(" ".join(shlex.quote(fill(a, values)) for a in out), ok=ok, cwd=cwd, template=example)

    def write(self, rel: str, text: str, root: Path | None = None) -> Path:
        """Write the file. A text that keeps the machine part `msd_run verify` wrote in it as it is
        is logged as edits around that part (the judgement before and after it): the part holds
        what only this project has (its commit, the digest), so a replay in another project
        (tests/host/test_cycle_milestone.py) edits around its own part instead of writing this one."""
        base = root or self.project
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        path.write_text(text, encoding="utf-8")
        shown = str(path.relative_to(self.project)) if path.is_relative_to(self.project) else str(path)
        edits = _around_machine_part(old, text) if old is not None else None
        if edits is not None:
            self.log.append(Action(self.invocation, self.session, "edit", shown, content=text, edits=tuple(edits)))
        else:
            self.log.append(Action(self.invocation, self.session, "write", shown, content=text))
        self._cover("write", shown)
        return path

    def msd(self, *args: str, ok=(0,)) -> dict:
        """A runtime call the scenario makes to look, not one the content names (not logged)."""
        proc = self._exec(["msd_run", *args], self.project)
        assert proc.returncode in ok, f"msd_run {' '.join(args)} -> {proc.returncode}: {proc.stderr}"
        return json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else {"raw": proc.stdout}

    # -- railroad flows, as a spine's "Drive the flow" says
    def flow(self, workflow: str, handlers: dict, *, var: str | None = None, restart: bool = False,
             limit: int = 60) -> list[str]:
        """next-step, the step's work (`handlers[step](payload) -> result`), step-done; until done.
        Returns the steps visited, done included."""
        drive = self.content.commands(workflow, "Drive the flow")
        first = next(c for c in drive if c.startswith("msd_run next-step"))
        report = next(c for c in drive if c.startswith("msd_run step-done"))
        values = {"nn": var} if var is not None and "<nn>" in first else {}
        line = fill(first, values) if values else first
        if var is None:
            line = re.sub(r"\s--var\s+\S+", "", line)
        if restart:
            line += " --restart"
        payload = json.loads(self.sh(line, template=first).stdout)  # the spine's line, as the spine says to adapt it
        seen = [payload["step"]]
        while payload["action"] != "done":
            assert len(seen) < limit, f"{workflow}: no end after {seen}"
            step = payload["step"]
            if step not in handlers:
                raise AssertionError(f"{workflow}: the flow went to {step!r}, which this scenario does not expect ({seen})")
            result = handlers[step](payload)
            out = json.loads(self.sh(report, id=step, json=json.dumps(result)).stdout)
            payload = out["next"]
            seen.append(payload["step"])
        return seen


# ------------------------------------------------------------------ what the user checks


def dirty(project: Path, declared: tuple[str, ...] = ()) -> list[str]:
    """`git status` lines not covered by a declared path prefix."""
    lines = [ln for ln in git(project, "status", "--porcelain", "--untracked-files=all").splitlines() if ln.strip()]
    return [ln for ln in lines if not any(ln[3:].startswith(d) for d in declared)]


@dataclass
class Step:
    name: str
    commands: int
    seconds: float


@dataclass
class Cycle:
    """A scenario's steps and what a user checks after each."""

    agent: Agent
    steps: list[Step] = field(default_factory=list)
    declared: tuple[str, ...] = ()  # paths allowed to be uncommitted for the whole scenario
    _start: float = 0.0
    _calls: int = 0

    def step(self, name: str) -> "Cycle":
        self._name, self._start, self._calls = name, time.monotonic(), self.agent.calls
        return self

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        if exc_type is None:
            self.steps.append(Step(self._name, self.agent.calls - self._calls, time.monotonic() - self._start))

    def check(self, next_command: str, *, declared: tuple[str, ...] = (), route: str | None = None) -> dict:
        """After a step: nothing uncommitted but what is declared, STATE.md and ROADMAP.md agree with
        the files (`state sync --check` changes nothing), and `next` proposes `next_command`."""
        project = self.agent.project
        left = dirty(project, self.declared + declared)
        assert left == [], f"{self._name}: uncommitted after the step: {left}"
        proc = self.agent._exec(["msd_run", "state", "sync", "--check"], project)
        assert proc.returncode == 0, f"{self._name}: STATE.md/ROADMAP.md disagree with the files: {proc.stdout}"
        nxt = self.agent.msd("next")
        assert nxt["command"] == next_command, f"{self._name}: next says {nxt['command']} ({nxt['reason']}), expected {next_command}"
        if route is not None:
            assert nxt["route"] == route, nxt
        return nxt

    def report(self) -> str:
        total = sum(s.commands for s in self.steps)
        lines = [f"{len(self.steps)} steps, {total} commands, {sum(s.seconds for s in self.steps):.1f} s"]
        lines += [f"  {s.name}: {s.commands} commands, {s.seconds:.1f} s" for s in self.steps]
        return "\n".join(lines)


def roadmap_marks(project: Path) -> dict[str, str]:
    """{`Phase 1` or `01-01`: mark} of ROADMAP.md's phase and plan lines, read by this test itself."""
    out = {}
    for line in (project / ".planning/ROADMAP.md").read_text().splitlines():
        m = re.match(r"^- \[(.)\] (?:\*\*)?Phase (\d+(?:\.\d+)?):", line) or re.match(r"^- \[(.)\] (\d+(?:\.\d+)?-\d+)-PLAN\.md", line)
        if m:
            out[m.group(2) if "-" in m.group(2) else f"Phase {m.group(2)}"] = m.group(1)
    return out


def sessions(log: list[Action]) -> list[tuple[str, list[Action]]]:
    """(slash command, its actions) for each time the agent carried one out, in order."""
    out: list[tuple[str, list[Action]]] = []
    current = None
    for act in log:
        if act.session == 0:
            continue  # before the first slash command (setting up the repository)
        if current != act.session:
            out.append((act.invocation, []))
            current = act.session
        out[-1][1].append(act)
    return out
