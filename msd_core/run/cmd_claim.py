"""`msd_run claim <phase> [--release] [--force] [--no-commit]` and `msd_run claim --list`.

Records who works on a phase (git's user.name and user.email, the current branch, the time)
in `.planning/claims.json`, and commits that one file (`docs(claims): ...`; not when
`commit_docs` is false, with --no-commit, or outside a git repository). Rules in
msd_core.planning.claims.

  claim <phase>              add or refresh your claim; refused (exit 1) while someone else
                             holds it and their claim is not stale, unless --force (both hold it)
  claim <phase> --release    remove your claim (--force: every claim on the phase)
  claim --list               every claim, with `stale` (and why) and `mine`

`msd_run next` routes around phases others hold; `next --ignore-claims` does not.
Output JSON: {"action", "claim" | "released", "claims": [...], "commit": {...}}. Exit 0 done,
1 refused, 2 bad usage (unknown phase, no git identity, a damaged claims.json), 4 lock timeout.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("phase", nargs="?", help="the phase: 3, 03, 3.1, 03-payments")
    parser.add_argument("--release", action="store_true", help="remove your claim on the phase")
    parser.add_argument("--force", action="store_true",
                        help="claim a phase someone else holds as well; with --release, release everyone's claim")
    parser.add_argument("--list", action="store_true", help="list every claim")
    parser.add_argument("--no-commit", action="store_true", help="write claims.json but do not commit it")
    options.cwd(parser)


def _commit(root, message: str) -> dict:
    from msd_core.errors import MsdError
    from msd_core.execution.commit import scoped_commit

    try:
        out = scoped_commit(cwd=root, message=message, paths=[".planning/claims.json"])
    except MsdError as exc:
        return {"committed": False, "why": exc.message}
    return {"committed": bool(out.get("committed")), "hash": out.get("short")} if out.get("committed") else \
        {"committed": False, "why": "commit_docs is false" if out.get("skipped_docs") else "nothing to commit"}


def run(args: argparse.Namespace):
    from msd_core.errors import UsageError
    from msd_core.planning import claims, project

    root = project.project_root(args.cwd)
    if args.list:
        if args.phase or args.release:
            raise UsageError("claim --list takes no phase and no --release")
        me = _me(root)
        return {"claims": claims.view(root, me=claims.who(me) if me else None)}
    if not args.phase:
        raise UsageError("name the phase to claim (or pass --list)", hint="e.g. `msd_run claim 3`")
    from msd_core.git.runner import current_branch
    from msd_core.planning.phase_ref import resolve

    found = resolve(root / ".planning", args.phase)
    if found.milestone is not None:
        raise UsageError(f"phase {args.phase} belongs to archived milestone {found.milestone}; claim a current phase")
    me = claims.identity(root)
    result = claims.change(root, found.number, me, _branch(root, current_branch), release=args.release,
                           everyone=args.force, force=args.force)
    result["phase"] = found.number
    if result.pop("written") and not args.no_commit:
        verb = "releases" if args.release else "claims"
        result["commit"] = _commit(root, f"docs(claims): {me.get('by') or me.get('email')} {verb} phase {found.number}")
    result["claims"] = claims.view(root, me=claims.who(me))
    return result


def _me(root) -> dict | None:
    from msd_core.errors import UsageError
    from msd_core.planning import claims

    try:
        return claims.identity(root)
    except UsageError:
        return None


def _branch(root, current_branch) -> str | None:
    from msd_core.errors import MsdError

    try:
        return current_branch(root)
    except MsdError:
        return None
