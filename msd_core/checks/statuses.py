"""Rule `statuses`: every status a workflow sets is one the runtime keeps.

STATE.md's `Status:` line is derived from the project's files by `msd_run state sync`, which
runs again after every recorded flow step (msd_core.flows.service) and every commit that names
STATE.md. A status content sets with `msd_run state patch --status "<text>"` survives only
when the model of where the project is derives it too: msd_core.progress.lifecycle.KEPT_STATUSES
(e.g. "Tests failing" while the regression gate fails). Any other literal, and a placeholder
(the agent would make one up), would be replaced by the next sync: a violation, in markdown
code and in flow prompts alike.
"""

from __future__ import annotations

import shlex

from msd_core.checks.contract import PLACEHOLDER, content_code, invocations
from msd_core.checks.model import CheckContext, Violation
from msd_core.progress.lifecycle import KEPT_STATUSES

RULE = "statuses"


def statuses_set(body: str) -> list[str]:
    """The values an invocation passes to `state patch --status` (placeholders kept as written)."""
    try:
        toks = shlex.split(body)
    except ValueError:
        return []
    toks = [t for t in toks if t != "--json-errors"]
    if toks[:2] != ["state", "patch"]:
        return []
    out = []
    for i, tok in enumerate(toks):
        if tok == "--status" and i + 1 < len(toks):
            out.append(toks[i + 1])
        elif tok.startswith("--status="):
            out.append(tok.split("=", 1)[1])
    return out


def check(ctx: CheckContext) -> list[Violation]:
    kept = ", ".join(f'"{s}"' for s in KEPT_STATUSES)
    out: list[Violation] = []
    for rel, seg in content_code(ctx.tree):
        if "--status" not in seg.text:
            continue
        for body in invocations(seg.text):
            for value in statuses_set(body):
                if PLACEHOLDER.search(value):
                    out.append(Violation(rel, seg.line, RULE,
                                         f"`--status {value}` lets the agent make a status up; state sync would replace it",
                                         f"write one the runtime keeps ({kept}) or leave Status to `msd_run state sync`"))
                elif value not in KEPT_STATUSES:
                    out.append(Violation(rel, seg.line, RULE,
                                         f"status \"{value}\" is not one the runtime keeps: the next state sync replaces it",
                                         f"let `msd_run state sync` derive it, or set one of {kept} (msd_core/progress/lifecycle.py)"))
    return out
