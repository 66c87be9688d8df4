"""`msd check content`: run the content guards (msd_core.checks) and render the report."""

from __future__ import annotations

from typing import Optional

import typer

from msd_core.cli.common import errors_to_exit, group, render
from msd_core.cli.terminal import write as write_text
from msd_core.result import OperationResult


def register(app: typer.Typer) -> None:
    """Add `msd check content` to the `msd` app."""
    check_app = group(app, "check", "Check the content tree: sizes, partition, includes, commit scope, msd_run contract, "
                                     "shell context, flows, generated files.")

    @check_app.command("content")
    @errors_to_exit
    def content(
        root: Optional[str] = typer.Option(None, "--root", metavar="DIR", help="A content tree laid out like msd_core/content (default: the shipped one)."),
        base: Optional[str] = typer.Option(None, "--base", metavar="REV", help="Git revision (commit, branch or tag) to compare against; default: none. Adds split completeness, protected text, boundary moves, tiers."),
        json_output: bool = typer.Option(False, "--json", help="Print the versioned JSON envelope."),
        write: bool = typer.Option(False, "--write", help="Regenerate registry.json and docs/INVENTORY.md first, and report what was written."),
        peer: Optional[list[str]] = typer.Option(None, "--peer", metavar="DIR", help="A peer project's text (e.g. its npm package folder) to hold every sentence against: one near-verbatim is a violation (rule own-wording). Repeatable."),
    ) -> None:
        """Report every content rule violation (file, line, rule, fix). Exit 1 when any, 2 on bad usage."""
        from msd_core.checks import run_checks
        from msd_core.checks.report import as_dict, counts, text_lines

        report = run_checks(root, base, write, peer or [])
        result = OperationResult(command="check content", exit_code=report.exit_code, data=as_dict(report))
        if report.violations:
            result.errors.append(f"{len(report.violations)} content violation(s): "
                                 + ", ".join(f"{r} {n}" for r, n in counts(report.violations).items()))

        def human(_: OperationResult) -> None:

            lines = text_lines(report)
            if report.violations:
                lines = lines[:-1]  # the summary goes to stderr as the result's error
            write_text("".join(line + "\n" for line in lines))

        render(result, json_output, human)

