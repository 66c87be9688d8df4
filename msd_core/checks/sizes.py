"""Rule `size`: byte limits by tier, the 32,768-byte hard cap, tiers only ever move down.

- every detail part, every file added since `--base`, and every content file not listed in
  the tier file: size < 32,768 bytes (hard cap, no waiver);
- a workflow (spine or whole) or an agent listed in the tier file: size <= its tier's limit;
- with `--base`: a listed name whose tier is higher than at REV fails (unlisted = lowest tier);
- the tier file itself must be valid and list only names that exist.
Sizes are LF-normalised bytes.
"""

from __future__ import annotations

from msd_core.checks.model import AGENT_RE, PART_RE, WORKFLOW_RE, CheckContext, Violation, lf_bytes
from msd_core.checks.tiers import CAP_TIER, HARD_CAP, KINDS, RANK, parse_tiers

RULE = "size"


def _kind_name(rel: str) -> tuple[str, str] | None:
    m = WORKFLOW_RE.match(rel)
    if m:
        return "workflows", m.group(1)
    m = AGENT_RE.match(rel)
    if m:
        return "agents", m.group(1)
    return None


def check(ctx: CheckContext) -> list[Violation]:
    tree, tiers, base = ctx.tree, ctx.tiers, ctx.base
    out: list[Violation] = []
    tier_file = ctx.locations.show(ctx.locations.tiers)
    for line, message in tiers.problems:
        out.append(Violation(tier_file, line, RULE, message, "fix the tier file (see its header comment)"))

    existing = {"workflows": {s for s, wf in tree.workflows.items() if wf.spine}, "agents": set()}
    for rel in tree.files:
        kn = _kind_name(rel)
        if kn and kn[0] == "agents":
            existing["agents"].add(kn[1])
    tier_lines = _tier_file_lines(ctx)
    for kind in KINDS:
        for name, tier in sorted(tiers.members[kind].items()):
            if name not in existing[kind]:
                out.append(Violation(tier_file, tier_lines.get(name, 1), RULE,
                                     f"tier file lists {kind[:-1]} {name!r} ({tier}), which does not exist",
                                     "remove the stale entry"))

    for rel in tree.files:
        size = len(lf_bytes(tree.data(rel)))
        added = base is not None and rel not in base.files
        if PART_RE.match(rel):
            if size >= HARD_CAP:
                out.append(Violation(rel, 0, RULE, f"detail part is {size:,} bytes; parts must be < {HARD_CAP:,} (hard cap, no waiver)",
                                     "split it into two parts (NN-<slug>.md) and name both in the spine"))
            continue
        kn = _kind_name(rel)
        limit = tiers.limit(*kn) if kn else None
        if added and size >= HARD_CAP:
            out.append(Violation(rel, 0, RULE, f"file added since {base.rev} is {size:,} bytes; new files must be < {HARD_CAP:,} (hard cap, a tier does not apply)",
                                 "split it: a spine plus detail parts, each < 32,768 bytes"))
        elif limit is None and size >= HARD_CAP:
            out.append(Violation(rel, 0, RULE, f"{size:,} bytes; a file not listed in the tier file must be < {HARD_CAP:,}",
                                 "split it into a spine and detail parts (tiers are for files that already exist)"))
        elif limit is not None and not added and size > limit:
            kind, name = kn
            out.append(Violation(rel, 0, RULE, f"{size:,} bytes is over the {tiers.tier(kind, name)} tier limit of {limit:,}",
                                 "move text into detail parts (tiers only ever move down)"))

    if base is not None and base.tiers_text is not None:
        before = parse_tiers(base.tiers_text)
        for kind in KINDS:
            for name, tier in sorted(tiers.members[kind].items()):
                was = before.tier(kind, name)
                rel = f"msd-core/workflows/{name}.md" if kind == "workflows" else f"agents/msd-{name}.md"
                if rel not in base.files:
                    continue  # new at HEAD: the hard cap above applies, not the tier
                if RANK[tier] > RANK[was]:
                    out.append(Violation(tier_file, tier_lines.get(name, 1), RULE,
                                         f"{kind[:-1]} {name!r} moved up from {was} to {tier} since {base.rev}; tiers only ever move down",
                                         f"put {name!r} back in {was if was != CAP_TIER else 'no tier'} and split the file instead"))
    return out


def _tier_file_lines(ctx: CheckContext) -> dict[str, int]:
    try:
        text = ctx.locations.tiers.read_text(encoding="utf-8")
    except OSError:
        return {}
    lines: dict[str, int] = {}
    for i, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        for piece in line.split('"')[1::2]:
            lines.setdefault(piece, i)
    return lines
