"""`msd_run step-report`: an agent started by `msd chain` reports its step's result.

    msd_run step-report --ticket /abs/.planning/.msd/chain/plan-phase-plan-1.ticket.json --result '{"plans": 3}'
    msd_run step-report --ticket /abs/...ticket.json plans=3 issues='["a"]'

Checked on the spot against the step's expects; exit 2 with every problem when it fails.
The logic lives in msd_core.chain.step_report; this module only parses.
"""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ticket", required=True, metavar="PATH", help="the step ticket your brief names")
    parser.add_argument("--result", metavar="JSON", help="the result as one JSON object")
    parser.add_argument("pairs", nargs="*", metavar="NAME=VALUE", help="result fields, typed by the step's expects")


def run(args) -> dict:
    from msd_core.chain.step_report import report

    return report(args.ticket, args.result, args.pairs)
