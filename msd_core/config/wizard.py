"""The project settings `msd init new-project` asks for, and how the answers are written.

Eight questions, each also a flag. Defaults are the effective values for the folder
(project config.json if any, else user defaults, else the schema). Answers are written
key by key through msd_core.config.store.set_value (validated by the schema, atomic,
under the config lock); other keys of an existing config.json are kept.

Standard library only; the config store is imported when used.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core import paths
from msd_core.errors import UsageError
from msd_core.lean.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs import time on msd_run's hot path
    from typing import Callable


@record(frozen=True)
class Question:
    key: str  # config key
    flag: str  # CLI flag (bools also have --no-<flag>)
    text: str
    choices: tuple[str, ...] = ()  # empty: a yes/no question

    @property
    def is_bool(self) -> bool:
        return not self.choices


QUESTIONS: tuple[Question, ...] = (
    Question("mode", "mode", "Mode: interactive asks before each gate, yolo runs gates without asking", ("interactive", "yolo")),
    Question("granularity", "granularity", "Granularity: how finely the roadmap is cut into phases and plans", ("coarse", "standard", "fine")),
    Question("parallelization", "parallelization", "Run independent plans in parallel?"),
    Question("workflow.compact_content", "compact", "Compact content: run workflows on their spines alone (fewer tokens)?"),
    Question("workflow.research", "research", "Research the domain before planning?"),
    Question("workflow.plan_check", "plan-check", "Check each plan against its phase goal before executing?"),
    Question("workflow.verifier", "verifier", "Verify each phase's goal after executing it?"),
    Question("commit_docs", "commit-docs", "Commit .planning/ documents to git?"),
)

YES = ("y", "yes", "true", "on", "1")
NO = ("n", "no", "false", "off", "0")
MAX_TRIES = 5


def flag_list() -> str:
    parts = []
    for q in QUESTIONS:
        parts.append(f"--{q.flag}/--no-{q.flag}" if q.is_bool else f"--{q.flag} {'|'.join(q.choices)}")
    return ", ".join(parts + ["--defaults"])


def defaults(cwd: Path) -> dict[str, object]:
    from msd_core.config import store

    layers = store.load_layers(cwd)
    out: dict[str, object] = {}
    for q in QUESTIONS:
        value = store.get_value(q.key, cwd, layers)
        if q.is_bool:
            value = bool(value.get("enabled", True)) if isinstance(value, dict) else bool(value)
        elif value not in q.choices:
            from msd_core.config import schema

            value = schema.default(q.key)
        out[q.key] = value
    return out


def parse_answer(q: Question, text: str, default: object) -> object:
    """The typed answer for `text` (empty: the default); ValueError when it is not one."""
    word = text.strip().lower()
    if not word:
        return default
    if q.is_bool:
        if word in YES:
            return True
        if word in NO:
            return False
        raise ValueError("answer y or n")
    matches = [c for c in q.choices if c.startswith(word)]
    if len(matches) == 1:
        return matches[0]
    raise ValueError("answer one of " + ", ".join(q.choices))


def ask_all(given: dict[str, object], base: dict[str, object], ask: Callable[[str], str | None],
            say: Callable[[str], None]) -> dict[str, object]:
    """Ask every question not in `given`; `ask` returns None at end of input (UsageError)."""
    answers = dict(given)
    for q in QUESTIONS:
        if q.key in answers:
            continue
        default = base[q.key]
        shown = ("Y/n" if default else "y/N") if q.is_bool else "/".join(c.upper() if c == default else c for c in q.choices)
        for _ in range(MAX_TRIES):
            line = ask(f"{q.text} [{shown}] ")
            if line is None:
                raise UsageError("input ended before every question was answered", hint=f"answer with flags instead: {flag_list()}")
            try:
                answers[q.key] = parse_answer(q, line, default)
                break
            except ValueError as exc:
                say(f"  {exc}")
        else:
            raise UsageError(f"no valid answer for --{q.flag} after {MAX_TRIES} tries")
    return answers


def write(answers: dict[str, object], cwd: Path) -> dict:
    from msd_core.config import store

    path = None
    changed = created = False
    for q in QUESTIONS:
        value = answers[q.key]
        text = ("true" if value else "false") if q.is_bool else str(value)
        out = store.set_value(q.key, text, cwd, create=True)
        path = out["path"]
        changed = changed or out["changed"]
        created = created or out.get("created", False)
    return {"path": path, "changed": changed, "created": created, "settings": {q.key: answers[q.key] for q in QUESTIONS}}


def project_dir(cwd: str | os.PathLike | None) -> Path:
    """The project the wizard writes: the one the folder given (default: the current folder) belongs to by the
    project rule (paths.find_project_root), else a new one at the top of the git work tree holding
    it, else in that folder."""
    base = Path(paths.named_folder(cwd)).expanduser().absolute() if cwd else Path.cwd()
    return paths.find_project_root(base) or paths.local_project_dir(base)
