"""Rule `floor`: a detail part is never the only place an instruction lives.

Compact content runs on the spine alone, and a missed read of a part degrades to the compact
behaviour (DESIGN: never to "no instructions"). So whatever a part tells the agent to change
must also be on the workflow's floor, the text every run has:
  - the spine (`msd-core/workflows/<stem>.md`);
  - the workflow's flow (`msd-core/flows/<stem>.toml`): its step prompts reach the agent through
    `msd_run next-step` whatever the setting;
  - every file the workflow's command @-includes next to the spine (references).

Checked in each detail part, in code (inline spans and fenced lines, as rule `contract` reads them):
  - an `msd_run` invocation of a command that changes something (MUTATING: `state patch`,
    `commit`, `phase insert`, `gate confirm`, ...): the floor names the same command words,
    and for each option the part passes (`--add-blocker`) an invocation of them with that option;
  - a `git` invocation that changes the repository (GIT_MUTATING: `git mv`, `git rm`, `git tag`,
    ...): the floor names the same git subcommand (`git add` and `git commit` are rule
    `commit-scope`'s: commits go through `msd_run commit`, which this rule checks);
and in the part's prose: an instruction to edit `.gitignore` (the runtime keeps its working
files out of git itself, msd_core.git.exclude; a line only a part states is lost with compact on).
"""

from __future__ import annotations

import re
import shlex

from msd_core.checks.commits import negated
from msd_core.checks.contract import PLACEHOLDER, invocations
from msd_core.checks.model import CheckContext, Violation, is_command
from msd_core.checks.textlines import code_segments

RULE = "floor"
LOST = "with compact content on it never runs"
# command words -> options that make the call read-only (None: always a change)
MUTATING: dict[tuple[str, ...], frozenset[str] | None] = {
    ("state", "patch"): None, ("state", "sync"): frozenset({"--check"}),
    ("config", "set"): None, ("config", "unset"): None, ("config", "migrate"): frozenset({"--check"}),
    ("commit",): frozenset({"--list"}), ("phase", "insert"): frozenset({"--dry-run"}),
    ("phase", "remove"): frozenset({"--dry-run"}), ("phase", "move"): frozenset({"--dry-run"}),
    ("todo", "add"): None, ("todo", "done"): None, ("todo", "promote"): frozenset({"--dry-run"}),
    ("debug", "start"): None, ("debug", "close"): None, ("gate", "confirm"): None, ("gate", "run"): None,
    ("undo",): frozenset({"--dry-run"}), ("wave", "merge"): None, ("wave", "sync"): None,
    ("step-done",): None, ("memory", "index"): None, ("branch",): None,  # branch: only with --apply
}
GIT_MUTATING = {"mv", "rm", "tag", "switch", "checkout", "branch", "merge", "push", "reset",
                "revert", "stash", "init", "remote"}
_GIT_RE = re.compile(r"(?:^|(?<=[\s;&|(`]))git\s+([a-z][a-z-]*)")
_GITIGNORE_RE = re.compile(r"(?:\b(?:add|append|write|put)\b[^.\n]{0,80}`?\.gitignore`?|`?\.gitignore`?\s+(?:lacks|is missing)\b)", re.I)
_INCLUDE_RE = re.compile(r"^\s*@~/\.claude/(msd-core/\S+)")


def _words(body: str) -> tuple[tuple[str, ...], set[str]] | None:
    """(command words, option flags) of one msd_run invocation; None when it does not split."""
    try:
        toks = shlex.split(PLACEHOLDER.sub("x", body))
    except ValueError:
        return None
    toks = [t for t in toks if t != "--json-errors"]
    if not toks:
        return None
    flags = {t.split("=", 1)[0] for t in toks if t.startswith("--") and len(t) > 2}
    head = tuple(toks[:2]) if (toks[0],) not in MUTATING else (toks[0],)
    return head, flags


def _changes(head: tuple[str, ...], flags: set[str]) -> bool:
    if head not in MUTATING:
        return False
    if head == ("branch",):
        return "--apply" in flags
    read_only = MUTATING[head]
    return not (read_only and flags & read_only)


def _calls(lines: list[str]) -> list[tuple[int, tuple[str, ...], set[str]]]:
    out = []
    for seg in code_segments(lines):
        if "msd_run" not in seg.text:
            continue
        for body in invocations(seg.text):
            got = _words(body) if body.strip() else None
            if got is not None:
                out.append((seg.line, got[0], got[1]))
    return out


def _git_calls(lines: list[str]) -> list[tuple[int, str]]:
    """(line, subcommand) of each git call that changes the repository; a prohibition ("Never use
    `git add -A`") is no instruction (msd_core.checks.commits.negated, on the span's line)."""
    out = []
    for seg in code_segments(lines):
        for m in _GIT_RE.finditer(seg.text):
            if m.group(1) not in GIT_MUTATING:
                continue
            line = lines[seg.line - 1] if 0 < seg.line <= len(lines) else ""
            at = line.find(seg.text)
            if seg.kind == "inline" and at >= 0 and negated(line, at):
                continue
            out.append((seg.line, m.group(1)))
    return out


def _prompt_lines(text: str) -> list[str]:
    """A flow file's lines with TOML's escaped quotes undone, so prompts read like markdown."""
    return [line.replace('\\"', '"') for line in text.splitlines()]


def floor_lines(ctx: CheckContext, stem: str) -> list[str]:
    """Every line the workflow's floor holds (see the module docstring)."""
    tree = ctx.tree
    wf = tree.workflows[stem]
    lines = list(tree.lines(wf.spine)) if wf.spine else []
    flow = f"msd-core/flows/{stem}.toml"
    if flow in tree.files and tree.text(flow) is not None:
        lines += _prompt_lines(tree.text(flow))
    spine_include = f"msd-core/workflows/{stem}.md"
    for rel in tree.files:
        if not is_command(rel):
            continue
        includes = [m.group(1) for m in map(_INCLUDE_RE.match, tree.lines(rel)) if m]
        if spine_include not in includes:
            continue
        for inc in includes:
            if inc != spine_include and inc in tree.files:
                lines += tree.lines(inc)
    return lines


def check(ctx: CheckContext) -> list[Violation]:
    tree = ctx.tree
    out: list[Violation] = []
    for stem, wf in sorted(tree.workflows.items()):
        if not wf.parts or not wf.spine:
            continue
        floor = floor_lines(ctx, stem)
        named: dict[tuple[str, ...], set[str]] = {}
        for _line, head, flags in _calls(floor):
            named.setdefault(head, set()).update(flags)
        git_named = {sub for _line, sub in _git_calls(floor)}
        for part in wf.parts:
            lines = tree.lines(part)
            for line, head, flags in _calls(lines):
                if not _changes(head, flags):
                    continue
                call = "msd_run " + " ".join(head)
                if head not in named:
                    out.append(Violation(part, line, RULE, f"`{call}` is only in this detail part: {LOST}",
                                         f"name `{call}` in the spine ({wf.spine}) or its flow step, or drop it here"))
                    continue
                missing = sorted(flags - named[head] - (MUTATING[head] or set()))
                if missing:
                    out.append(Violation(part, line, RULE,
                                         f"`{call} {' '.join(missing)}` is only in this detail part: {LOST}",
                                         f"name `{call} {' '.join(missing)}` in the spine ({wf.spine}) or its flow step"))
            for line, sub in _git_calls(lines):
                if sub not in git_named:
                    out.append(Violation(part, line, RULE, f"`git {sub}` is only in this detail part: {LOST}",
                                         f"name `git {sub}` in the spine ({wf.spine}), or let a command do it"))
            for i, text in enumerate(lines, 1):
                if _GITIGNORE_RE.search(text):
                    out.append(Violation(part, i, RULE, "an ignore rule stated only in a detail part is lost with compact content on",
                                         "let the runtime keep its working files out of git (msd_core/git/exclude.py), "
                                         "or state it in the spine"))
    return out
