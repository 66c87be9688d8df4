"""Which agent extensions a subagent must read: decided here, from files, never by prose.

`msd_run extensions <agent> ...` is a thin adapter over `select_extensions()`. The agent's
core prompt tells it to run the command and read every file it prints; this module is
the only place the rules below are written in code.

Executor (`--plan <plan-path> [--completed <n>]`), reading order:
  deviation-rules  always
  continuation     `--completed <n>` with n > 0. A SUMMARY is only written when a plan
                   ends, so its presence never means "partly done"; the orchestrator
                   that resumes a plan knows how many tasks are committed and says so.
  tdd              a task has tdd="true" (corpus variant: approach="tdd"), or the plan's
                   frontmatter says `type: tdd`
  checkpoints      a task type starts with "checkpoint:"
  summary          always (every plan ends by writing its SUMMARY)

Planner (`--phase-dir <phase-dir> [--gaps] [--revision] [--new-deps]`), reading order:
  discovery        `--new-deps`, or the phase's RESEARCH/CONTEXT file contains a
                   package-install command naming at least one package
                   (e.g. `npm install zod`, `pip install httpx`, `uv add rich`; a bare
                   `npm install` or `pip install -e .` names no new package)
  gap-closure      `--gaps`
  revision         `--revision`
  tdd              a plan already in the phase has a TDD task, or the phase CONTEXT
                   mentions TDD / test-driven / test-first, or the project's
                   .planning/config.json sets `workflow.tdd` (or the corpus key
                   `tdd_mode`) to true
  checkpoints      a plan already in the phase has a checkpoint task, or the phase
                   CONTEXT/RESEARCH mentions one of CHECKPOINT_WORDS

Other agents have no extension rules: the list is empty.

Extension files come only from the install's manifest registry (`agents[<agent>].extensions`)
and each one is hash-checked (msd_core.ownership.manifest.read_verified) before it is listed.
Standard library only: this runs on msd_run's hot path.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from msd_core.errors import IntegrityError, UsageError
from msd_core.lean.record import field, record
from msd_core.ownership.manifest import Manifest, read_verified, safe_path
from msd_core.paths import PLANNING_DIRNAME
from msd_core.shipped.layout import AGENT_EXT_PREFIX, is_static_name

MAX_PLAN_BYTES = 2 * 1024 * 1024  # a plan larger than this is refused (exit 2)
MAX_DOC_BYTES = 2 * 1024 * 1024  # phase documents larger than this are skipped with a note
MAX_PHASE_FILES = 400  # entries of a phase folder looked at, at most

EXECUTOR_ORDER = ("deviation-rules", "continuation", "tdd", "checkpoints", "summary")
PLANNER_ORDER = ("discovery", "gap-closure", "revision", "tdd", "checkpoints")

# Options each agent accepts (anything else given is a usage error).
AGENT_OPTIONS = {
    "executor": {"plan", "completed"},
    "planner": {"phase_dir", "gaps", "revision", "new_deps"},
}
OPTION_FLAGS = {"plan": "--plan", "completed": "--completed", "phase_dir": "--phase-dir",
                "gaps": "--gaps", "revision": "--revision", "new_deps": "--new-deps"}

CHECKPOINT_WORDS = (
    "checkpoint", "human-verify", "human-action", "manual verification", "manual testing",
    "manually verify", "visual check", "visually verify", "user setup", "user_setup",
)
_CHECKPOINT_PATTERN = "|".join(re.escape(w) for w in CHECKPOINT_WORDS)
_TDD_WORD_PATTERN = r"\bTDD\b|\btest[- ]driven\b|\btest[- ]first\b"

# ---------------------------------------------------------------- plan reading

_COMMENT_RE = re.compile(r"<!--.*?-->", re.DOTALL)
_TASK_TAG_RE = re.compile(r"<task(\s[^<>]*)?/?>", re.IGNORECASE)
_TASK_CLOSE_RE = re.compile(r"</task\s*>", re.IGNORECASE)
_ATTR_RE = re.compile(r"""([A-Za-z_][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""")
_FRONTMATTER_RE = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


@record
class TaskInfo:
    type: str
    tdd: bool

    @property
    def is_checkpoint(self) -> bool:
        return self.type.lower().startswith("checkpoint:")


@record
class PlanFacts:
    tasks: list[TaskInfo] = field(default_factory=list)
    plan_type: str = ""

    @property
    def tdd_tasks(self) -> int:
        return sum(1 for t in self.tasks if t.tdd)

    @property
    def checkpoint_tasks(self) -> int:
        return sum(1 for t in self.tasks if t.is_checkpoint)


def _frontmatter_type(text: str) -> str:
    m = _FRONTMATTER_RE.match(text)
    if not m:
        return ""
    for line in m.group(1).splitlines():
        km = re.match(r"^type\s*:\s*(.*?)\s*(?:#.*)?$", line)
        if km:
            return km.group(1).strip().strip("\"'").lower()
    return ""


def _tasks_section(body: str) -> str:
    """The text between the first `<tasks>` and the last `</tasks>`; the whole body without them."""
    start = re.search(r"<tasks\s*>", body, re.IGNORECASE)
    if not start:
        return body
    ends = [m.start() for m in re.finditer(r"</tasks\s*>", body, re.IGNORECASE)]
    end = ends[-1] if ends and ends[-1] > start.end() else len(body)
    return body[start.end():end]


def read_plan_facts(text: str) -> PlanFacts:
    """What the rules need from a PLAN.md: each `<task ...>` tag's type and TDD flag.

    Tolerant: attributes in any order and quoting. A task is a `<task ...>` tag inside
    the `<tasks>` section (the whole body when there is none), not inside an HTML comment
    and not nested in another task: an example task quoted in a task's `<action>` is not
    a task. Code fences are not trusted for this (real plans nest them badly). When the
    `<task>`/`</task>` tags do not balance, every tag in the section counts.
    """
    plan_type = _frontmatter_type(text)
    section = _tasks_section(_COMMENT_RE.sub("", text))
    events = sorted(
        [(m.start(), "open", m) for m in _TASK_TAG_RE.finditer(section)]
        + [(m.start(), "close", m) for m in _TASK_CLOSE_RE.finditer(section)],
        key=lambda e: e[0],
    )
    opens = [m for _, kind, m in events if kind == "open" and not m.group(0).endswith("/>")]
    balanced = len(opens) == sum(1 for _, kind, _m in events if kind == "close")
    top_level = []
    depth = 0
    for _, kind, m in events:
        if kind == "close":
            depth = max(0, depth - 1)
            continue
        if not balanced or depth == 0:
            top_level.append(m)
        if not m.group(0).endswith("/>"):
            depth += 1
    tasks = []
    for m in top_level:
        attrs = {}
        for am in _ATTR_RE.finditer(m.group(1) or ""):
            value = next(v for v in am.group(2, 3, 4) if v is not None)
            attrs[am.group(1).lower()] = value.strip()
        tdd = attrs.get("tdd", "").lower() in ("true", "yes", "1") or attrs.get("approach", "").lower() == "tdd"
        tasks.append(TaskInfo(type=attrs.get("type", "auto"), tdd=tdd))
    return PlanFacts(tasks=tasks, plan_type=plan_type)


def _read_text(path: Path, cap: int, what: str) -> str:
    """Read a user file for the rules; UsageError (exit 2) with one clear line when unreadable."""
    from msd_core.planning.project import read_text_file

    return read_text_file(path, what, cap, error=UsageError, follow_symlinks=True, strict_utf8=False)[1]


# ---------------------------------------------------------------- phase folder reading

_INSTALL_CMD_PATTERN = (
    r"(?:^|`|\$\s)\s*(?:sudo\s+)?"
    r"(npm\s+(?:install|i|add)|pnpm\s+(?:add|install|i)|yarn\s+add|bun\s+add|"
    r"(?:python3?\s+-m\s+)?pip3?\s+install|uv\s+(?:add|pip\s+install)|poetry\s+add|pipenv\s+install|"
    r"cargo\s+add|go\s+get|(?:flutter|dart)\s+pub\s+add|gem\s+install|bundle\s+add|"
    r"composer\s+require|dotnet\s+add\s+package|conda\s+install|mix\s+deps\.get)"
    r"[ \t]+([^`\n|]*)"
)
_OPTS_WITH_VALUE = {"-e", "--editable", "-r", "--requirement", "-c", "--constraint", "--filter", "-w",
                    "--workspace", "--index-url", "-i", "--target", "-t", "--prefix", "--registry"}
_PKG_PATTERN = r"^@?[A-Za-z0-9][\w.@/+-]*(?:\[[\w,.-]+\])?(?:[=<>~^!:][\w.*+,<>=!~^ -]*)?$"


def install_commands(text: str) -> list[str]:
    """Package-install commands in `text` that name at least one package (returns 'cmd pkg' strings)."""
    found = []
    # planner-only patterns: compiled on first use (re caches them), not at import
    install_re = re.compile(_INSTALL_CMD_PATTERN, re.MULTILINE | re.IGNORECASE)
    pkg_re = re.compile(_PKG_PATTERN)
    for m in install_re.finditer(text):
        tokens = m.group(2).split()
        skip_next = False
        for tok in tokens:
            if skip_next:
                skip_next = False
                continue
            if tok.startswith("#"):
                break
            if tok in _OPTS_WITH_VALUE:
                skip_next = True
                continue
            if tok.startswith("-"):
                continue
            tok = tok.strip("\"'")
            if tok in (".", "..") or tok.startswith((".", "/", "~")) or tok.endswith((".txt", ".toml", ".whl")):
                continue
            if pkg_re.match(tok):
                found.append(f"{' '.join(m.group(1).split())} {tok}")
                break
    return found


@record
class PhaseDocs:
    research: list[tuple[str, str]] = field(default_factory=list)  # (file name, text)
    context: list[tuple[str, str]] = field(default_factory=list)
    plans: list[tuple[str, PlanFacts]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _is_doc(name: str, kind: str) -> bool:
    up = name.upper()
    return up == f"{kind}.MD" or up.endswith(f"-{kind}.MD")


def read_phase_dir(phase_dir: Path) -> PhaseDocs:
    try:
        if not phase_dir.exists():
            raise UsageError(f"phase folder {phase_dir} does not exist")
        if not phase_dir.is_dir():
            raise UsageError(f"phase folder {phase_dir} is not a directory")
        entries = sorted(os.scandir(phase_dir), key=lambda e: e.name)
    except PermissionError:
        raise UsageError(f"phase folder {phase_dir} cannot be read (permission denied)") from None
    except OSError as exc:
        raise UsageError(f"phase folder {phase_dir} cannot be read ({exc.strerror or exc})") from None
    docs = PhaseDocs()
    if len(entries) > MAX_PHASE_FILES:
        docs.notes.append(f"phase folder has {len(entries)} entries; only the first {MAX_PHASE_FILES} were read")
        entries = entries[:MAX_PHASE_FILES]
    for entry in entries:
        name = entry.name
        kind = next((k for k in ("RESEARCH", "CONTEXT", "PLAN") if _is_doc(name, k)), None)
        if kind is None:
            continue
        from msd_core.files.safe_read import FileTooLarge, NotRegularFile, read_regular

        try:
            text = read_regular(entry.path, MAX_DOC_BYTES, follow_symlinks=False).decode("utf-8", errors="replace")
        except NotRegularFile:
            docs.notes.append(f"skipped {name}: not a regular file")
            continue
        except FileTooLarge:
            docs.notes.append(f"skipped {name}: larger than {MAX_DOC_BYTES} bytes")
            continue
        except OSError as exc:
            docs.notes.append(f"skipped {name}: cannot be read ({exc.strerror or exc})")
            continue
        if kind == "RESEARCH":
            docs.research.append((name, text))
        elif kind == "CONTEXT":
            docs.context.append((name, text))
        else:
            docs.plans.append((name, read_plan_facts(text)))
    return docs


def _project_config(phase_dir: Path) -> dict:
    """The project's .planning/config.json above the phase folder ({} when absent or unreadable)."""
    here = phase_dir.absolute()
    for candidate in (here, *here.parents):
        if candidate.name == PLANNING_DIRNAME:
            path = candidate / "config.json"
            from msd_core.files.bounded import loads_json
            from msd_core.files.safe_read import read_regular

            try:
                raw = loads_json(read_regular(path, MAX_DOC_BYTES), str(path))
            except (OSError, ValueError):
                return {}
            return raw if isinstance(raw, dict) else {}
    return {}


def _truthy(value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "on", "1")
    return False


# ---------------------------------------------------------------- rules

Choice = tuple[str, str]  # (extension name, reason)


def executor_rules(plan_text: str, completed: int | None) -> tuple[list[Choice], list[str]]:
    facts = read_plan_facts(plan_text)
    notes: list[str] = []
    if not facts.tasks:
        notes.append("the plan has no <task> elements")
    if completed is not None and completed < 0:
        raise UsageError(f"the completed tasks must be 0 or more, got {completed}", about="completed")
    if completed and facts.tasks and completed > len(facts.tasks):
        raise UsageError(f"{completed} completed tasks is more than the plan's {len(facts.tasks)} tasks", about="completed")
    chosen: list[Choice] = [("deviation-rules", "always")]
    if completed:
        chosen.append(("continuation", f"resuming after {completed} completed task(s) (--completed)"))
    if facts.tdd_tasks:
        chosen.append(("tdd", f"{facts.tdd_tasks} task(s) marked tdd"))
    elif facts.plan_type == "tdd":
        chosen.append(("tdd", "plan frontmatter type: tdd"))
    if facts.checkpoint_tasks:
        chosen.append(("checkpoints", f"{facts.checkpoint_tasks} checkpoint task(s)"))
    chosen.append(("summary", "always (the plan ends with its SUMMARY)"))
    return chosen, notes


def planner_rules(phase_dir: Path, gaps: bool, revision: bool, new_deps: bool) -> tuple[list[Choice], list[str]]:
    docs = read_phase_dir(phase_dir)
    chosen: list[Choice] = []
    if new_deps:
        chosen.append(("discovery", "--new-deps"))
    else:
        for name, text in docs.research + docs.context:
            cmds = install_commands(text)
            if cmds:
                chosen.append(("discovery", f"{name} installs a package ({cmds[0]})"))
                break
    if gaps:
        chosen.append(("gap-closure", "--gaps"))
    if revision:
        chosen.append(("revision", "--revision"))

    tdd_reason = None
    for name, facts in docs.plans:
        if facts.tdd_tasks or facts.plan_type == "tdd":
            tdd_reason = f"{name} has TDD tasks"
            break
    if tdd_reason is None:
        for name, text in docs.context:
            m = re.search(_TDD_WORD_PATTERN, text, re.IGNORECASE)
            if m:
                tdd_reason = f"{name} mentions {m.group(0)!r}"
                break
    if tdd_reason is None:
        cfg = _project_config(phase_dir)
        wf = cfg.get("workflow") if isinstance(cfg.get("workflow"), dict) else {}
        if _truthy(wf.get("tdd")) or _truthy(cfg.get("tdd_mode")) or _truthy(wf.get("tdd_mode")):
            tdd_reason = "project config enables TDD"
    if tdd_reason:
        chosen.append(("tdd", tdd_reason))

    cp_reason = None
    for name, facts in docs.plans:
        if facts.checkpoint_tasks:
            cp_reason = f"{name} has checkpoint tasks"
            break
    if cp_reason is None:
        for name, text in docs.context + docs.research:
            m = re.search(_CHECKPOINT_PATTERN, _COMMENT_RE.sub("", text), re.IGNORECASE)
            if m:
                cp_reason = f"{name} mentions {m.group(0)!r}"
                break
    if cp_reason:
        chosen.append(("checkpoints", cp_reason))
    return chosen, docs.notes


# ---------------------------------------------------------------- install side

def load_install(root: Path) -> tuple[Path, Manifest]:
    """(config folder, manifest) of the installed tree at `root` (<config>/msd-core)."""
    from msd_core.resolve.installed import open_install

    install = open_install(root)
    return install.config, install.manifest


def agent_extensions_table(manifest: Manifest, agent: str) -> dict[str, str]:
    agents = manifest.registry.get("agents")
    if not isinstance(agents, dict) or not isinstance(agents.get(agent), dict):
        known = sorted(a for a in agents if isinstance(a, str)) if isinstance(agents, dict) else []
        raise UsageError(f"unknown agent {agent!r}", hint=f"installed agents: {', '.join(known) or 'none'}")
    table = agents[agent].get("extensions", {})
    if not isinstance(table, dict):
        raise IntegrityError(f"the install registry's extension table for {agent!r} is invalid")
    return table


@record
class Selection:
    agent: str
    extensions: list[dict]
    notes: list[str]

    def to_json(self) -> dict:
        out = {"agent": self.agent, "extensions": self.extensions}
        if self.notes:
            out["notes"] = self.notes
        return out

    def raw(self) -> str:
        return "".join(e["path"] + "\n" for e in self.extensions)


def select_extensions(agent: str, root: Path, *, plan: Path | None = None, completed: int | None = None,
                      phase_dir: Path | None = None, gaps: bool = False, revision: bool = False,
                      new_deps: bool = False) -> Selection:
    """Decide and verify the extension files `agent` must read. Raises MsdError subclasses."""
    if not is_static_name(agent):
        raise UsageError(f"invalid agent name {agent!r}", hint="agent names are lower-case words joined by '-'")
    given = {"plan": plan is not None, "completed": completed is not None, "phase_dir": phase_dir is not None,
             "gaps": gaps, "revision": revision, "new_deps": new_deps}
    allowed = AGENT_OPTIONS.get(agent, set())
    stray = [OPTION_FLAGS[k] for k, on in given.items() if on and k not in allowed]
    if stray:
        raise UsageError(f"{', '.join(stray)} does not apply to agent {agent!r}")

    config, manifest = load_install(root)
    table = agent_extensions_table(manifest, agent)

    if agent == "executor":
        if plan is None:
            raise UsageError("the executor's extensions depend on its plan", hint="give the plan's path", remedy="plan")
        chosen, notes = executor_rules(_read_text(plan, MAX_PLAN_BYTES, "plan file"), completed)
    elif agent == "planner":
        if phase_dir is None:
            raise UsageError("the planner's extensions depend on the phase", hint="give the phase's folder", remedy="phase_dir")
        chosen, notes = planner_rules(phase_dir, gaps, revision, new_deps)
    else:
        chosen, notes = [], []

    out = []
    for name, reason in chosen:
        rel = table.get(name)
        if not isinstance(rel, str):
            raise IntegrityError(f"the install has no {agent} extension {name!r} (needed: {reason})")
        if not rel.startswith(f"{AGENT_EXT_PREFIX}{agent}/"):
            raise IntegrityError(f"the install registry names {rel!r} for {agent} extension {name!r}; refusing it")
        path = safe_path(config, rel)
        read_verified(config, manifest, rel)  # never opens a FIFO or device (msd_core.files.safe_read)
        out.append({"name": name, "path": str(path), "reason": reason})
    return Selection(agent=agent, extensions=out, notes=notes)
