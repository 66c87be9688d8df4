"""`msd_run phase insert|remove|move|reconcile`: change the current milestone's phase list in one transaction.

insert AFTER NAME [--goal TEXT]   decimal phase after AFTER (e.g. 03.1): folder + ROADMAP entries
remove N [--force]                delete a phase (refused when it has SUMMARY files unless
                                  --force) and renumber the later unexecuted phases
move N --after M                  an unexecuted phase becomes the next decimal phase after M
reconcile                         after a merge: phases sharing a number get numbers of their own,
                                  the later one (and what follows it) the next free numbers
                                  (msd_core.planning.phase_reconcile)

Every form takes --dry-run (report, write nothing) and --cwd. Output: JSON
{"op", "dry_run", "phase", "renames": [{"from", "to"}], "written", "deleted"[, "notes"],
"state", "commit_files"}: `commit_files` are the paths, relative to the project, that a commit
of the change names (`msd_run commit --files ...`): every path written, each deleted one git
had, and STATE.md and ROADMAP.md (state sync follows the change). Rules and the transaction in
msd_core.planning.phase_ops. Exit 0 done, 1 refused or failed (nothing changed), 2 bad usage,
unknown phase, or a phase list that cannot be read whole (a symlinked or misnamed phase folder:
nothing changed), 4 lock timeout.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="insert|remove|move|reconcile", parser_class=type(parser))
    sub.required = True
    i = sub.add_parser("insert", help="add a decimal phase after AFTER")
    i.add_argument("after", help="the phase the new one follows: 3, 03, 3.1, 03-auth")
    i.add_argument("name", help="the new phase's name")
    i.add_argument("--goal", metavar="TEXT", help="the phase goal for ROADMAP.md (default TBD)")
    r = sub.add_parser("remove", help="delete a phase and renumber the later unexecuted ones")
    r.add_argument("phase", help="the phase to remove")
    r.add_argument("--force", action="store_true", help="remove it even when it has executed plans")
    m = sub.add_parser("move", help="move an unexecuted phase to just after another")
    m.add_argument("phase", help="the phase to move")
    m.add_argument("--after", required=True, metavar="M", help="the phase it should follow")
    c = sub.add_parser("reconcile", help="after a merge: renumber phases that share a number")
    for p in (i, r, m, c):
        options.dry_run(p)
        options.json(p, default=True)
        options.cwd(p)


def run(args: argparse.Namespace):
    from msd_core.errors import MsdError
    from msd_core.files.atomic import lock_timeout_from_env, locked
    from msd_core.planning import phase_ops, project
    from msd_core.progress.settle import settle
    from msd_core.progress.state_sync import sync

    root = project.project_root(args.cwd)
    recovered = settle(root)  # an interrupted change is rolled back or finished first (also before a dry run)
    with locked(project.state_lock(root), lock_timeout_from_env(), what="the phase list", anchor=root):
        if args.action == "insert":
            from msd_core.run.inputs import refuse_injected_words

            refuse_injected_words(root, "ROADMAP.md", args.name, args.goal)
            res = phase_ops.plan_insert(root, args.after, args.name, args.goal)
        elif args.action == "remove":
            res = phase_ops.plan_remove(root, args.phase, args.force)
        elif args.action == "reconcile":
            from msd_core.planning.phase_reconcile import plan_reconcile

            res = plan_reconcile(root)
        else:
            res = phase_ops.plan_move(root, args.phase, args.after)
        report = phase_ops.apply(root, res, dry_run=args.dry_run)
        record = None if args.dry_run else phase_ops.state_due(root)
        if record is not None:  # the change recorded STATE.md as due: re-derive it, then drop the record
            try:
                report["state"] = {"synced": sync(root, lock_held=True)["written"]}
                phase_ops.clear_state_due(root, record)
            except MsdError as exc:
                report["state"] = {"synced": False, "error": exc.message}
    if recovered:
        report.setdefault("notes", []).insert(0, recovered)
    report["commit_files"] = change_commit_files(root, report)
    return report


def change_commit_files(root, report: dict) -> list[str]:
    """The paths a commit of a phase change must name: what it wrote or deleted (git's), ROADMAP and STATE."""
    from msd_core.git.runner import commit_paths

    planning = root / ".planning"
    derived = [f".planning/{n}" for n in ("ROADMAP.md", "STATE.md") if (planning / n).is_file()]
    return commit_paths(root, [f".planning/{p}" for p in report["written"]] + derived,
                        [f".planning/{p}" for p in report["deleted"]])
