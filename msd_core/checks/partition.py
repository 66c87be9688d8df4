"""Partition rules for split workflows (spine = msd-core/workflows/<stem>.md,
parts = msd-core/workflows/<stem>/detail/*.md). Line triviality: msd_core.checks.textlines.

  partition.registration  every part is named by its spine, literally as the relative path
                          `workflows/<stem>/detail/<file>.md`; every such path a workflow file
                          names exists; no detail folder without a spine.
  partition.disjoint      no non-trivial line is both in a spine and in one of its parts.
  partition.completeness  (--base) a workflow split since REV (no parts at REV) keeps, in
                          spine + parts, every non-trivial line its file had at REV.
  partition.boundary      (--base) a workflow already split at REV whose spine lost
                          non-trivial lines that now appear in its parts needs a commit in
                          REV..HEAD with the trailer `Msd-Boundary-Move: <stem>`.
Rule d (protected sentinels) lives in protected.py.
"""

from __future__ import annotations

import re

from msd_core.checks.gitbase import BOUNDARY_TRAILER
from msd_core.checks.model import WORKFLOW_RE, CheckContext, Violation, split_lines
from msd_core.checks.textlines import nontrivial_lines, short

PART_REF = re.compile(r"workflows/([a-z0-9][a-z0-9-]*)/detail/([A-Za-z0-9][A-Za-z0-9._-]*\.md)")


def part_reference(stem: str, part_rel: str) -> str:
    """How a spine names one of its parts: `workflows/<stem>/detail/<file>.md`."""
    return f"workflows/{stem}/detail/{part_rel.rsplit('/', 1)[-1]}"


def check(ctx: CheckContext) -> list[Violation]:
    out: list[Violation] = []
    out += _registration(ctx)
    out += _disjoint(ctx)
    if ctx.base is not None:
        out += _completeness(ctx)
        out += _boundary(ctx)
    return out


def _registration(ctx: CheckContext) -> list[Violation]:
    tree = ctx.tree
    out: list[Violation] = []
    existing = set(tree.files)
    for rel in tree.markdown_files():
        if not WORKFLOW_RE.match(rel):
            continue
        for i, line in enumerate(tree.lines(rel), 1):
            for m in PART_REF.finditer(line):
                target = f"msd-core/{m.group(0)}"
                if target not in existing:
                    out.append(Violation(rel, i, "partition.registration", f"names detail part {m.group(0)!r}, which does not exist",
                                         "create the part or remove the reference"))
    for stem, wf in sorted(tree.workflows.items()):
        if not wf.parts:
            continue
        if wf.spine is None:
            for part in wf.parts:
                out.append(Violation(part, 0, "partition.registration", f"detail part without a spine (msd-core/workflows/{stem}.md is missing)",
                                     "add the spine or remove the detail folder"))
            continue
        spine_text = tree.text(wf.spine) or ""
        for part in wf.parts:
            ref = part_reference(stem, part)
            if ref not in spine_text:
                out.append(Violation(part, 0, "partition.registration", f"part is not named by its spine {wf.spine}",
                                     f"name it in the spine as `{ref}`"))
    return out


def _line_index(ctx: CheckContext, rels: list[str]) -> dict[str, tuple[str, int]]:
    """Normalised non-trivial line -> (first file, line) across the given files."""
    index: dict[str, tuple[str, int]] = {}
    for rel in rels:
        for i, norm in nontrivial_lines(ctx.tree.lines(rel)):
            index.setdefault(norm, (rel, i))
    return index


def _disjoint(ctx: CheckContext) -> list[Violation]:
    tree = ctx.tree
    out: list[Violation] = []
    for stem, wf in sorted(tree.workflows.items()):
        if not (wf.spine and wf.parts):
            continue
        spine = _line_index(ctx, [wf.spine])
        for part in wf.parts:
            for i, norm in nontrivial_lines(tree.lines(part)):
                if norm in spine:
                    out.append(Violation(part, i, "partition.disjoint",
                                         f"line is also in the spine (line {spine[norm][1]}): {short(norm)!r}",
                                         "keep exactly one copy: delete it here or in the spine"))
    return out


def _completeness(ctx: CheckContext) -> list[Violation]:
    tree, base = ctx.tree, ctx.base
    out: list[Violation] = []
    before = base.workflows
    for stem, wf in sorted(tree.workflows.items()):
        old = before.get(stem)
        if not wf.parts or old is None or old.spine is None or old.parts:
            continue  # only workflows split since REV
        text = base.text(old.spine)
        if text is None:
            continue
        now = _line_index(ctx, [p for p in [wf.spine, *wf.parts] if p])
        shown = wf.spine or old.spine
        for line, norm in nontrivial_lines(split_lines(text)):
            if norm not in now:
                out.append(Violation(shown, line, "partition.completeness",
                                     f"line {line} of the workflow at {base.rev} is in neither the spine nor a part: {short(norm)!r}",
                                     "a split moves text: put the line back in the spine or in one part"))
    return out


def _boundary(ctx: CheckContext) -> list[Violation]:
    tree, base = ctx.tree, ctx.base
    out: list[Violation] = []
    before = base.workflows
    for stem, wf in sorted(tree.workflows.items()):
        old = before.get(stem)
        if not (wf.spine and wf.parts) or old is None or old.spine is None or not old.parts:
            continue  # only workflows already split at REV
        if stem in base.boundary_moves:
            continue
        old_spine = {norm for _, norm in nontrivial_lines(split_lines(base.text(old.spine) or ""))}
        new_spine = {norm for _, norm in nontrivial_lines(tree.lines(wf.spine))}
        lost = old_spine - new_spine
        if not lost:
            continue
        for part in wf.parts:
            for i, norm in nontrivial_lines(tree.lines(part)):
                if norm in lost:
                    out.append(Violation(part, i, "partition.boundary",
                                         f"line moved from the spine into this part since {base.rev} without a declared boundary move: {short(norm)!r}",
                                         f"add the trailer `{BOUNDARY_TRAILER}: {stem}` to the commit that moves it, or move the line back"))
    return out
