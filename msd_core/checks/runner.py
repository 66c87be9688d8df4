"""Run every content rule over a tree and collect the violations (all of them, sorted).

`run_checks(root=None, base=None, write=False)`; `main(argv)` is the argparse entry point
scripts/check_content.py uses (`msd check content` wraps the same function with typer).
Exit codes: 0 clean, 1 any violation, 2 bad usage (no such root, --base not a revision).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from msd_core.checks import (
    agreement,
    commits,
    contract,
    field_spelling,
    fields,
    floor,
    flow_vars,
    flows,
    frontmatter_yaml,
    generated,
    includes,
    named_commands,
    partition,
    protected,
    runtime_gate,
    shell,
    sizes,
    statuses,
    wording,
)
from msd_core.checks.model import CheckContext, ContentTree, Locations, Violation
from msd_core.checks.tiers import parse_tiers
from msd_core.errors import EXIT_FAILED, EXIT_OK, MsdError, UsageError

RULES = (
    ("size", sizes.check),
    ("partition", partition.check),
    ("partition.protected", protected.check),
    ("includes", includes.check),
    ("commit-scope", commits.check),
    ("contract", contract.check),
    ("shell-context", shell.check),
    ("runtime-gate", runtime_gate.check),
    ("flows", flows.check),
    ("flow-placeholders", flow_vars.check),
    ("generated", generated.check),
    ("agreement", agreement.check),
    ("template-fields", fields.check),
    ("field-spelling", field_spelling.check),
    ("own-wording", wording.check),
    ("floor", floor.check),
    ("statuses", statuses.check),
    ("frontmatter", frontmatter_yaml.check),
    ("named-commands", named_commands.check),
)


def shipped_root() -> Path:
    return Path(__file__).resolve().parent.parent / "content"


@dataclass
class CheckReport:
    root: Path
    base: str | None
    files_checked: int
    violations: list[Violation] = field(default_factory=list)
    wrote: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return EXIT_FAILED if self.violations else EXIT_OK


def _encoding(tree: ContentTree) -> list[Violation]:
    """Rule `encoding`: every content file can be read, and text files are UTF-8."""
    out = []
    for rel in tree.files:
        tree.data(rel)
        if rel in tree.unreadable:
            out.append(Violation(rel, 0, "encoding", f"file cannot be read: {tree.unreadable[rel]}", "fix its permissions"))
        elif rel.endswith((".md", ".toml", ".json")) and tree.text(rel) is None:
            out.append(Violation(rel, 0, "encoding", "text file is not valid UTF-8", "save it as UTF-8"))
    return out


def _context(root: Path, base: str | None) -> CheckContext:
    tree = ContentTree(root)
    locations = Locations.for_root(root)
    try:
        tiers_text = locations.tiers.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the tier file {locations.tiers}: {exc}") from exc
    snapshot = None
    if base is not None:
        from msd_core.checks.gitbase import load_base

        snapshot = load_base(root, base, locations.tiers)
    return CheckContext(tree, locations, parse_tiers(tiers_text), snapshot)


def run_checks(root: str | Path | None = None, base: str | None = None, write: bool = False,
               peers: list[str | Path] | tuple = ()) -> CheckReport:
    """`peers`: folders of a peer project's text the own-wording rule compares with (none: not compared)."""
    root = Path(root).absolute() if root else shipped_root()
    if not root.is_dir():
        raise UsageError(f"{root} is not a folder", about="root")
    for peer in peers:
        if not Path(peer).is_dir():
            raise UsageError(f"{peer} is not a folder", about="peer")
    ctx = _context(root, base)
    ctx.peers = tuple(Path(p) for p in peers)
    wrote: list[str] = []
    if write:
        wrote = generated.write(ctx)
        if wrote:
            ctx = CheckContext(ContentTree(root), ctx.locations, ctx.tiers, ctx.base, ctx.peers)
    violations = _encoding(ctx.tree)
    for _, rule in RULES:
        violations.extend(rule(ctx))
    return CheckReport(root, base, len(ctx.tree.files), sorted(set(violations)), wrote)


def main(argv: list[str] | None = None) -> int:
    import argparse

    from msd_core.checks.report import as_dict, text_lines

    parser = argparse.ArgumentParser(prog="check_content", description="Check the content tree (same as `msd check content`).")
    parser.add_argument("--root", help="a content tree laid out like msd_core/content (default: the shipped one)")
    parser.add_argument("--base", help="git revision to compare against (completeness, protected text, boundary moves, tiers)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--write", action="store_true", help="regenerate registry.json and the inventory first")
    parser.add_argument("--peer", action="append", default=[], metavar="DIR",
                        help="a peer project's text to hold our sentences against (rule own-wording); repeatable")
    args = parser.parse_args(argv)
    try:
        report = run_checks(args.root, args.base, args.write, args.peer)
    except MsdError as exc:
        from msd_core.run.dispatch import flags_of

        sys.stderr.write(f"check_content: error: {exc.name_flags(flags_of(parser)).one_line()}\n")
        return exc.exit_code
    if args.json:
        sys.stdout.write(json.dumps({"ok": not report.violations, "exit_code": report.exit_code, **as_dict(report)}, indent=2) + "\n")
    else:
        sys.stdout.write("\n".join(text_lines(report)) + "\n")
    return report.exit_code
