"""`msd_run security scope|record|show`: a phase's threat-model pass, decided and recorded in code.

    msd_run security scope --phase <n>
    msd_run security record --phase <n> [--findings <path>|-] [--accept <id>]... [--reason <text>] [--block-on <severity>]
    msd_run security show --phase <n>

scope: JSON {"phase", "review_file", "recorded", "files", "plans", "commits", "threat_model": {"entry",
"boundary", "asset", "files"}, "notes"?}: the files the phase touched (msd_core.review.scope) and the
surfaces they show (msd_core.review.surfaces). Exit 1 when the phase names no file.
record: the reviewer's findings checked and written to `<NN>-SECURITY.md` with the gaps
(msd_core.review.findings); JSON {"file", "status", "gaps", "open", "accepted", "closed", "counts"}.
Accepting a finding as a risk is the person's act, never the agent's: msd_run refuses
`security record --accept` and `ui record --accept` (exit 2, naming `msd security accept` or
`msd ui accept`, the people's commands, which call `accept` below). A findings file under
.planning/drafts/ is removed once recorded (msd_core.run.inputs.drop_draft).
Exit 2 for findings that do not check out, 1 when a re-review leaves out an open finding.
show: the recorded review read back; exit 1 when there is none. Exit 4: lock timeout.
"""

from __future__ import annotations

import argparse

from msd_core.run import options

MAX_FINDINGS_BYTES = 2 * 1024 * 1024


def configure(parser: argparse.ArgumentParser) -> None:
    subs = parser.add_subparsers(dest="verb", required=True, metavar="scope|record|show")

    common = phase_options
    common(subs.add_parser("scope", help="the files the phase touched and their threat-model surfaces"))
    p = common(subs.add_parser("record", help="check the reviewer's findings and write <NN>-SECURITY.md"))
    add_record_options(p)
    common(subs.add_parser("show", help="the recorded review, read back"))


def phase_options(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """--phase, --cwd: what a phase review's verbs take."""
    options.phase(p, required=True)
    options.cwd(p)
    options.json_errors(p, hidden=True)
    return p


def add_record_options(p: argparse.ArgumentParser) -> None:
    from msd_core.review.findings import SEVERITIES

    p.add_argument("--findings", metavar="PATH",
                   help="the reviewer's findings JSON (`-`: stdin)")
    p.add_argument("--accept", action="append", default=[], metavar="ID",
                   help="refused: the person accepts a finding as a risk, with `msd security accept` or `msd ui accept`")
    p.add_argument("--reason", metavar="TEXT", help="why the accepted findings are acceptable")
    p.add_argument("--block-on", default="high", choices=SEVERITIES,
                   help="the lowest severity of an open finding that is a gap (default: high)")


def run(args: argparse.Namespace):
    from msd_core.planning.project import project_root
    from msd_core.review import findings, scope

    root = project_root(args.cwd)
    sc = scope.phase_scope(root, args.phase)
    review = findings.REVIEWS["security"]
    if args.verb == "show":
        return findings.show(root, review, sc.folder)
    if args.verb == "scope":
        return scope_answer(root, sc, review)
    return record(args, root, sc, review, surfaces_text(root, sc))


def scope_answer(root, sc, review) -> dict:
    from msd_core.errors import OperationFailed
    from msd_core.review import findings, surfaces

    if not sc.files:
        raise OperationFailed(f"phase {sc.phase['label']} names no file: no plan lists files_modified and no commit is recorded",
                              hint="review a path by hand, or plan the phase first")
    path = findings.review_path(sc.folder, review)
    out = {"phase": sc.phase, "review_file": path.relative_to(root).as_posix(), "recorded": path.is_file(),
           **sc.to_json(), "threat_model": surfaces.threat_model(root, sc)}
    return out


def surfaces_text(root, sc) -> str:
    """The body's section on the surfaces code found, for people reading the review."""
    from msd_core.review import surfaces

    tm = surfaces.threat_model(root, sc)
    lines = ["## Surfaces (found by `msd_run security scope`)", ""]
    for kind, title in (("entry", "Entry points"), ("boundary", "Trust boundaries"), ("asset", "Assets")):
        lines.append(f"{title}: " + ("; ".join(f"{s['surface']} ({', '.join(s['files'][:4])}"
                                               + (", ..." if len(s["files"]) > 4 else "") + ")" for s in tm[kind])
                                     or "none found by pattern"))
    return "\n".join(lines) + "\n"


# each review's finding, and the people's command that accepts one as a risk (msd_core/cli/review.py)
PERSON = {"security": ("a security finding", "msd security accept"), "ui": ("a UI review finding", "msd ui accept")}


def person_only(review, phase: str, ids: list[str]) -> None:
    """UsageError for an agent's `msd_run security|ui record --accept`: the person accepts a risk."""
    from msd_core.errors import UsageError

    if not ids:
        return
    what, command = PERSON[review.name]
    named = " ".join(dict.fromkeys(ids))
    raise UsageError(f"accepting {what} as a risk is the person's decision, which msd_run does not record; "
                     f"nothing was changed. Show the user the finding and ask them to run, in their terminal: "
                     f"`{command} --phase {phase} {named} --reason \"<why the risk is acceptable>\"`; then read the "
                     f"result with `msd_run {review.name} show --phase {phase}`")


def accept(cwd, phase: str, ids: list[str], reason: str | None, block_on: str = "high", kind: str = "security") -> dict:
    """A person's acceptance of recorded findings of the `kind` review as risks (`msd security accept`,
    `msd ui accept`)."""
    from msd_core.planning.project import project_root
    from msd_core.review import findings, scope
    from msd_core.run.inputs import screen

    root = project_root(cwd)
    sc = scope.phase_scope(root, phase)
    review = findings.REVIEWS[kind]
    return findings.record_review(root, review, sc.folder, sc.phase["dir"], None, "--findings",
                                  scope_paths=set(sc.paths(existing=False)), files=len(sc.files), block_on=block_on,
                                  accept=list(ids), reason=reason, extra=surfaces_text(root, sc) if kind == "security" else "",
                                  screen=screen())


def record(args, root, sc, review, extra: str) -> dict:
    from pathlib import Path

    from msd_core.review import findings
    from msd_core.run.inputs import read_input, screen

    person_only(review, args.phase, args.accept)

    from msd_core.run.inputs import drop_draft

    base = Path(args.cwd or ".").expanduser().absolute()
    raw = None if args.findings is None else read_input(args.findings, "--findings", MAX_FINDINGS_BYTES, base)
    out = findings.record_review(root, review, sc.folder, sc.phase["dir"], raw, "--findings",
                                 scope_paths=set(sc.paths(existing=False)), files=len(sc.files),
                                 block_on=args.block_on, accept=args.accept, reason=args.reason, extra=extra,
                                 screen=screen())
    if args.findings is not None:
        drop_draft(args.findings, base, root)
    return out
