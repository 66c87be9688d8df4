"""Partition rule d: `msd:protected` sentinels keep their text in the spine.

Two forms, each marker alone on its line:
  <!-- msd:protected -->                 covers the lines after it up to the next blank line
  <!-- msd:protected:start -->  ...  <!-- msd:protected:end -->   covers the lines between

Checked in workflow files (spines, whole workflows, detail parts):
  - no sentinel in a detail part (protected text stays in the spine);
  - start/end balanced (no nesting, no stray end, no unclosed start); a block marker covers
    at least one line; no other `msd:protected...` marker spelling;
  - with `--base`: every line a sentinel covered in `workflows/<stem>.md` at REV is still
    covered by a sentinel in that file now.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from msd_core.checks.model import PART_RE, WORKFLOW_RE, CheckContext, Violation, split_lines
from msd_core.checks.textlines import normalise, short

RULE = "partition.protected"
_MARKER = re.compile(r"^<!--\s*msd:protected(?::(start|end))?\s*-->$")


@dataclass
class Sentinel:
    line: int
    kind: str  # "block" | "range"
    covered: list[tuple[int, str]] = field(default_factory=list)  # (line, normalised) non-blank lines


def parse(lines: list[str]) -> tuple[list[Sentinel], list[tuple[int, str]]]:
    """Sentinels in a file and the problems with them (line, message)."""
    sentinels: list[Sentinel] = []
    problems: list[tuple[int, str]] = []
    open_range: Sentinel | None = None
    block: Sentinel | None = None
    for i, raw in enumerate(lines, 1):
        norm = normalise(raw)
        if block is not None:
            if not norm:
                block = None
            elif not _MARKER.match(norm):
                block.covered.append((i, norm))
                continue
            else:
                block = None
        if norm.startswith("<!--") and "msd:protected" in norm:
            m = _MARKER.match(norm)
            if not m:
                problems.append((i, f"unknown protected marker {short(norm, 60)!r}"))
                continue
            which = m.group(1)
            if which is None:
                if open_range is not None:
                    continue  # already inside a protected range
                block = Sentinel(i, "block")
                sentinels.append(block)
            elif which == "start":
                if open_range is not None:
                    problems.append((i, f"msd:protected:start inside the range opened on line {open_range.line}"))
                    continue
                open_range = Sentinel(i, "range")
                sentinels.append(open_range)
            else:
                if open_range is None:
                    problems.append((i, "msd:protected:end without a matching start"))
                    continue
                open_range = None
            continue
        if open_range is not None and norm:
            open_range.covered.append((i, norm))
    if open_range is not None:
        problems.append((open_range.line, "msd:protected:start is never closed by msd:protected:end"))
    for s in sentinels:
        if s.kind == "block" and not s.covered:
            problems.append((s.line, "msd:protected covers nothing (it protects the block right after it, up to a blank line)"))
    return sentinels, problems


def covered_lines(lines: list[str]) -> set[str]:
    sentinels, _ = parse(lines)
    return {norm for s in sentinels for _, norm in s.covered}


def check(ctx: CheckContext) -> list[Violation]:
    tree, base = ctx.tree, ctx.base
    out: list[Violation] = []
    for rel in tree.markdown_files():
        is_part = bool(PART_RE.match(rel))
        if not (is_part or WORKFLOW_RE.match(rel)):
            continue
        lines = tree.lines(rel)
        sentinels, problems = parse(lines)
        for line, message in problems:
            out.append(Violation(rel, line, RULE, message, "balance the markers: <!-- msd:protected:start --> ... <!-- msd:protected:end -->"))
        if is_part:
            for s in sentinels:
                out.append(Violation(rel, s.line, RULE, "msd:protected sentinel in a detail part; protected text must stay in the spine",
                                     "move the protected block back into the spine"))
    if base is None:
        return out
    for rel, _ in sorted(base.files.items()):
        if not WORKFLOW_RE.match(rel):
            continue
        text = base.text(rel)
        if text is None or WORKFLOW_RE.match(rel).group(1) in getattr(base, "protected_edits", set()):
            continue  # a commit in REV..HEAD declared `Msd-Protected-Edit: <stem>`
        was, _ = parse(split_lines(text))
        if not was:
            continue
        now = covered_lines(tree.lines(rel)) if rel in tree.files and tree.text(rel) is not None else set()
        for s in was:
            for line, norm in s.covered:
                if norm not in now:
                    out.append(Violation(rel, line, RULE,
                                         f"protected line lost since {base.rev} (line {line} there, sentinel on line {s.line}): {short(norm)!r}",
                                         "restore the line inside its msd:protected sentinel in the spine"))
    return out
