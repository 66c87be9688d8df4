"""Content guards: `msd check content` and scripts/check_content.py.

Every rule family has its own module and one entry point, `check(ctx) -> list[Violation]`:

  sizes.py       size tiers (size_tiers.toml) and the 32,768-byte hard cap
  partition.py   spine/detail partition: completeness, disjointness, registration, boundary moves
  protected.py   `msd:protected` sentinels (partition rule d)
  includes.py    `@` include lines resolve to shipped files; none in detail parts
  commits.py     instructions that commit name their files
  field_spelling.py  a workflow names a template's field as the template spells it
  contract.py    every `msd_run ...` invocation parses with msd_run's real parser
  shell.py       host-rendered shell context: only the `msd_run resolve <stem> --emit` line
  runtime_gate.py  each runtime's installed command carries its gate for split workflows
  flows.py       flows/*.toml validate (delegates to msd_core.flows.schema)
  generated.py   registry.json and docs/INVENTORY.md are up to date (`--write` regenerates)
  named_commands.py  every `/msd-<name>` a profile's installed files name is in that profile
  wording.py     own wording: no sentence near-verbatim in a peer project's text (`--peer DIR`)
  agreement.py   templates sharing a name agree on their headings; deviation labels are the runtime's
  fields.py      every field a template asks for has a reader or a writer
  floor.py       a detail part is never the only place an instruction lives
  flow_vars.py   a flow prompt names only variables known by the time it is shown
  frontmatter_yaml.py  command and agent files open with frontmatter the hosts can read
  statuses.py    every status a workflow sets is one the runtime keeps

Shared pieces: model.py (Violation, the content tree), textlines.py (line normalisation,
code spans), tiers.py (the tier file), gitbase.py (the tree at `--base REV`), report.py
(rendering), runner.py (runs them all).
"""

from __future__ import annotations

from msd_core.checks.model import Violation
from msd_core.checks.runner import CheckReport, run_checks

__all__ = ["CheckReport", "Violation", "run_checks"]
