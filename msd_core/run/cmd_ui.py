"""`msd_run ui detect|contract|record|show`: UI phases, decided and recorded in code.

    msd_run ui detect --phase <n>
    msd_run ui contract --phase <n>
    msd_run ui record --phase <n> [--findings <path>|-] [--accept <id>]... [--reason <text>] [--block-on <severity>]
    msd_run ui show --phase <n>

detect: JSON {phase, ui, reasons, files, words, stack, contract, contract_exists}
(msd_core.review.ui); always exit 0, the answer is `ui`. contract: JSON {file, status
complete|incomplete|absent, sections, missing}; exit 1 unless complete. record/show: the UI
review of what was built against the contract, as `msd_run security` records its review
(`<NN>-UI-REVIEW.md`, ids V1, V2, ...; msd_core.review.findings). Accepting a finding as a risk
is the person's act: `record --accept` is refused (exit 2) naming `msd ui accept`, the people's
command. Exit 2: bad usage or a finding that does not check out; 4: lock timeout.
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    from msd_core.run.cmd_security import add_record_options
    from msd_core.run.cmd_security import phase_options as common

    subs = parser.add_subparsers(dest="verb", required=True, metavar="detect|contract|record|show")

    common(subs.add_parser("detect", help="whether the phase has a user interface, and why"))
    common(subs.add_parser("contract", help="whether the phase's UI-SPEC.md design contract is complete"))
    add_record_options(common(subs.add_parser("record", help="check the UI review's findings and write <NN>-UI-REVIEW.md")))
    common(subs.add_parser("show", help="the recorded UI review, read back"))


def run(args: argparse.Namespace):
    from msd_core.planning.project import project_root
    from msd_core.review import findings, scope, ui

    root = project_root(args.cwd)
    sc = scope.phase_scope(root, args.phase, must_exist=args.verb not in ("detect", "contract"))
    review = findings.REVIEWS["ui"]
    if args.verb == "detect":
        return ui.detect(root, sc)
    if args.verb == "contract":
        out = ui.check_contract(root, sc.folder)
        if out["status"] != "complete":
            from msd_core.run.answer import with_code

            return with_code(out, 1)
        return out
    if args.verb == "show":
        return findings.show(root, review, sc.folder)
    from msd_core.run.cmd_security import record

    return record(args, root, sc, review, "")
