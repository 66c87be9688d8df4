"""How a check run is shown: one line per violation (plus its fix), or a JSON-ready dict."""

from __future__ import annotations

from collections import Counter

from msd_core.checks.model import Violation


def counts(violations: list[Violation]) -> dict[str, int]:
    return dict(sorted(Counter(v.rule for v in violations).items()))


def violation_line(v: Violation) -> str:
    where = f"{v.file}:{v.line}" if v.line else v.file
    return f"{where}: [{v.rule}] {v.message}"


def text_lines(report) -> list[str]:
    """Human output: every violation with its fix, then a one-line summary."""
    out = []
    for path in report.wrote:
        out.append(f"wrote {path}")
    for v in report.violations:
        out.append(violation_line(v))
        out.append(f"    fix: {v.fix}")
    if report.violations:
        by_rule = ", ".join(f"{rule} {n}" for rule, n in counts(report.violations).items())
        files = len({v.file for v in report.violations})
        out.append(f"content check failed: {len(report.violations)} violation(s) in {files} file(s) ({by_rule})")
    else:
        base = f" against {report.base}" if report.base else ""
        out.append(f"content check passed: {report.files_checked} files{base}")
    return out


def as_dict(report) -> dict:
    return {
        "root": str(report.root),
        "base": report.base,
        "files_checked": report.files_checked,
        "wrote": list(report.wrote),
        "counts": counts(report.violations),
        "violations": [v.to_dict() for v in report.violations],
    }
