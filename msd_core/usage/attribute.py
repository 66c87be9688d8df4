"""One transcript's requests, each attributed to the msd command, phase, plan and agent it served.

What Claude Code 2.1.332 writes (seen in the real CLI; tests/host/test_usage_host.py), and what is read from it:

- A response of N content blocks is N `assistant` lines sharing one `message.id` (and
  `requestId`), each carrying the response's full final `message.usage`: one request is counted
  per id. Its tokens: `input_tokens`, `cache_read_input_tokens`, `cache_creation_input_tokens`
  (cache write), `output_tokens`; its context (what the model was sent) is the first three summed.
- The command: an assistant line made inside a skill carries `attributionSkill` (`msd-plan-phase`);
  a subagent's lines carry it too when the parent turn ran inside a skill.
- The phase: the skill's arguments (`<command-args>2</command-args>` in the user line of a typed
  `/msd-plan-phase 2`, or `args` of a model's `Skill` call), then every `msd_run` call the model
  makes (`--var phase=02`, `--phase 2`, `--phase-dir .planning/phases/02-auth`, a `NN-MM-PLAN.md`).
- The plan: `--plan`, a plan file named in an `msd_run` call, or in the Agent call's prompt.
- The agent: `main` for the session itself; a subagent's `agentType` (its meta.json, joined to the
  parent's Agent call by `toolUseId`, which also gives the command, phase and plan at launch).
- What the host counted: a main transcript's `cost-state` line (written when a run ends) carries
  the session's totals so far per model (`modelUsage`: inputTokens, cacheReadInputTokens,
  cacheCreationInputTokens, outputTokens), its subagents and its compaction summaries included;
  a summary request has no assistant line (measured: tests/host/test_usage_host.py), so it is
  counted there only. The last such line is kept (`host_total`).

Lines of an unknown `type` and lines that are not JSON are skipped and counted, never fatal.
Token counts are checked before they are added (msd_core.files.numbers.count): a request whose
usage holds a count that is not a whole number from 0 up (NaN, `Infinity`, `1e400`, a negative, a
string) is not counted and its line counts as malformed; such a figure in a `cost-state` line
counts as 0.
Standard library only.
"""

from __future__ import annotations

import re
import shlex

from msd_core.files.bounded import loads_json
from msd_core.files.numbers import count as valid_count

KNOWN_TYPES = frozenset({
    "user", "assistant", "attachment", "system", "queue-operation", "api-request", "api-request-shape",
    "api-request-blob", "tools-used", "last-prompt", "atis-latch", "mode", "cost-state", "summary",
    "custom-title", "file-history-snapshot", "progress", "tag", "agent-name",
})
MAIN = "main"
RECENT_IDS = 64  # one response's lines are written together: a short memory of ids is enough
MAX_LAUNCHES = 4096

_COMMAND = re.compile(r"<command-name>/?([\w:.-]+)</command-name>")
_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
_PLAN_FILE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)*)-(\d+)-PLAN\.md")
_PHASE_DIR = re.compile(r"(?:^|/)(\d+(?:\.\d+)*)-[^/\s]*/?$")
_RUNNER = re.compile(r"(?:^|[\s;&|(/])msd_run(?:\.exe)?\s+([^;&|\n]*)")


def canonical_phase(text) -> str | None:
    """`2` -> `02`, `2.1` -> `02.1`, `02-auth` -> `02` (msd_core.planning.phase_ref's rule)."""
    if not isinstance(text, str):
        return None
    text = text.strip().strip("'\"")
    m = re.match(r"^(?:phase[ _-]*)?(\d+)((?:\.\d+)*)(?:-.*)?$", text, re.I)
    if not m:
        return None
    return f"{int(m.group(1)):02d}{m.group(2)}"


def plan_id(phase: str, plan: str) -> str:
    return f"{canonical_phase(phase)}-{int(plan):02d}"


def _plan_in(text: str) -> tuple[str | None, str | None]:
    """(phase, plan id) of the first `NN-MM-PLAN.md` named in `text`."""
    m = _PLAN_FILE.search(text or "")
    if not m:
        return None, None
    return canonical_phase(m.group(1)), plan_id(m.group(1), m.group(2))


def runner_calls(command: str) -> list[list[str]]:
    """The argument lists of each `msd_run ...` in a shell command line."""
    out = []
    for m in _RUNNER.finditer(command or ""):
        try:
            out.append(shlex.split(m.group(1)))
        except ValueError:
            out.append(m.group(1).split())
    return out


def facts_of_call(args: list[str]) -> dict:
    """{"workflow", "phase", "plan"} an msd_run call names (only the keys it names)."""
    out: dict = {}

    def value(i: int, name: str) -> str | None:
        word = args[i]
        if word.startswith(name + "="):
            return word[len(name) + 1:]
        return args[i + 1] if word == name and i + 1 < len(args) else None

    for i, word in enumerate(args):
        for name in ("--var", "--phase", "--phase-dir", "--plan", "--workflow"):
            got = value(i, name)
            if got is None:
                continue
            if name == "--var" and got.startswith("phase="):
                out["phase"] = canonical_phase(got[6:]) or out.get("phase")
            elif name == "--phase":
                out["phase"] = canonical_phase(got) or out.get("phase")
            elif name == "--phase-dir":
                m = _PHASE_DIR.search(got.rstrip("/") + "/")
                if m:
                    out["phase"] = canonical_phase(m.group(1))
            elif name == "--plan":
                ph, pl = _plan_in(got)
                if pl is None and re.match(r"^\d+(?:\.\d+)*-\d+$", got):
                    ph, pl = canonical_phase(got.rsplit("-", 1)[0]), plan_id(*got.rsplit("-", 1))
                if pl:
                    out["plan"], out["phase"] = pl, ph
            elif name == "--workflow":
                out["workflow"] = got
        ph, pl = _plan_in(word)
        if pl and "plan" not in out:
            out["plan"], out["phase"] = pl, ph
    return out


class Scanner:
    """The attribution state of one transcript, fed one parsed line at a time.

    `summary` (JSON-able, so an incremental reader can keep it) holds per group
    "command|phase|plan|agent" the list [requests, input, cache_read, cache_write, output,
    peak context, model], the first request's context and group, the last request's context
    and model, and the line counts."""

    def __init__(self, agent: str = MAIN, launch: dict | None = None, state: dict | None = None):
        if state is not None:
            self.s = state
            return
        launch = launch or {}
        self.s = {
            "agent": agent,
            "command": launch.get("command"),
            "phase": launch.get("phase"),
            "plan": launch.get("plan"),
            "inherit": bool(launch),  # a subagent: the launch's command holds unless its lines say otherwise
            "recent": [],
            "launches": {},
            "groups": {},
            "first": None,
            "last": None,
            "lines": {"read": 0, "malformed": 0, "unknown": 0, "oversized": 0},
            "host_total": None,
        }

    @property
    def state(self) -> dict:
        return self.s

    # -- feeding

    def feed_raw(self, raw: bytes | None) -> None:
        counts = self.s["lines"]
        counts["read"] += 1
        if raw is None:
            counts["oversized"] += 1
            return
        if not raw.strip():
            return
        try:
            line = loads_json(raw, "a transcript line")
        except ValueError:  # damaged, cut, or too deep (files.bounded)
            counts["malformed"] += 1
            return
        if not isinstance(line, dict) or not isinstance(line.get("type"), str):
            counts["malformed"] += 1
            return
        if line["type"] not in KNOWN_TYPES:
            counts["unknown"] += 1
            return
        try:
            self.feed(line)
        except (TypeError, ValueError, AttributeError, KeyError):
            counts["malformed"] += 1  # a known type whose fields are not what the host writes

    def feed(self, line: dict) -> None:
        kind = line["type"]
        message = line.get("message") if isinstance(line.get("message"), dict) else {}
        if kind == "user":
            self._user(line, message)
        elif kind == "assistant":
            self._assistant(line, message)
        elif kind == "cost-state" and self.s["agent"] == MAIN and isinstance(line.get("modelUsage"), dict):
            self._host_total(line["modelUsage"])

    def _host_total(self, by_model: dict) -> None:
        total = [0, 0, 0, 0]
        for figures in by_model.values():
            if isinstance(figures, dict):
                for i, k in enumerate(("inputTokens", "cacheReadInputTokens", "cacheCreationInputTokens", "outputTokens")):
                    total[i] += valid_count(figures.get(k)) or 0
        self.s["host_total"] = total

    def _user(self, line: dict, message: dict) -> None:
        content = message.get("content")
        if isinstance(content, str):
            m = _COMMAND.search(content)
            if m:
                self._skill(m.group(1), (_ARGS.search(content) or [None, ""])[1])
            elif self.s["agent"] != MAIN and line.get("parentUuid") is None:
                self._prompt(content)  # a subagent's first line: the Agent call's prompt
        elif isinstance(content, list) and self.s["agent"] != MAIN and line.get("parentUuid") is None:
            self._prompt(" ".join(b.get("text", "") for b in content if isinstance(b, dict)))

    def _prompt(self, text: str) -> None:
        phase, plan = _plan_in(text)
        if plan and not self.s["plan"]:
            self.s["plan"], self.s["phase"] = plan, phase

    def _skill(self, name: str, args: str) -> None:
        if not name.startswith("msd-"):
            return
        self.s["command"] = name[4:]
        self.s["inherit"] = False
        first = (args or "").split()
        self.s["phase"] = canonical_phase(first[0]) if first else None
        self.s["plan"] = None

    def _assistant(self, line: dict, message: dict) -> None:
        key = message.get("id") or line.get("requestId")
        usage = message.get("usage")
        skill = line.get("attributionSkill")
        if isinstance(skill, str) and skill.startswith("msd-") and skill[4:] != self.s["command"] and not self.s["inherit"]:
            self.s["command"] = skill[4:]
        if isinstance(usage, dict) and key and key not in self.s["recent"]:
            self._count(usage, message.get("model"))  # ValueError (a malformed line) for an invalid count
            self.s["recent"] = (self.s["recent"] + [key])[-RECENT_IDS:]
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                self._tool(block)

    def _count(self, usage: dict, model) -> None:
        nums = [0 if usage.get(k) is None else valid_count(usage[k])
                for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens")]
        if None in nums:
            raise ValueError("a token count that is not a whole number from 0 up")
        context = nums[0] + nums[1] + nums[2]
        group = "|".join(str(self.s[k] or "") for k in ("command", "phase", "plan")) + "|" + self.s["agent"]
        g = self.s["groups"].setdefault(group, [0, 0, 0, 0, 0, 0, None])
        g[0] += 1
        for i, n in enumerate(nums):
            g[1 + i] += n
        g[5] = max(g[5], context)
        g[6] = model if isinstance(model, str) else g[6]
        if self.s["first"] is None:
            self.s["first"] = {"context": context, "model": g[6], "group": group}
        self.s["last"] = {"context": context, "model": g[6]}

    def _tool(self, block: dict) -> None:
        name, args = block.get("name"), block.get("input") if isinstance(block.get("input"), dict) else {}
        if name == "Bash":
            for call in runner_calls(args.get("command") or ""):
                facts = facts_of_call(call)
                if facts.get("phase") and facts["phase"] != self.s["phase"]:
                    self.s["phase"], self.s["plan"] = facts["phase"], None
                if facts.get("plan"):
                    self.s["plan"] = facts["plan"]
                if facts.get("workflow") and not self.s["command"]:
                    self.s["command"] = facts["workflow"]
        elif name == "Skill":
            self._skill(str(args.get("skill") or ""), str(args.get("args") or ""))
        elif name in ("Agent", "Task") and isinstance(block.get("id"), str):
            phase, plan = _plan_in(str(args.get("prompt") or "") + " " + str(args.get("description") or ""))
            launches = self.s["launches"]
            if len(launches) < MAX_LAUNCHES:
                kind = args.get("subagent_type")
                launches[block["id"]] = {"agent": kind if isinstance(kind, str) and kind else "general-purpose",
                                         "command": self.s["command"], "phase": phase or self.s["phase"],
                                         "plan": plan or self.s["plan"]}
