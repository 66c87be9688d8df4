"""`msd_run ship --phase <n> | --milestone [<v>]`: everything a pull request needs, decided here.

JSON {"target", "title", "branch", "current_branch", "on_branch", "base", "remote", "gh",
"body_file", "open_checks", "commands"}: the branch comes from git.branching_strategy
(msd_run branch; the current branch when the strategy is none), the PR body is written to
`.planning/.msd/ship/<target>-PR.md` from summaries, verification and recorded commits
(msd_core.planning.pr_body), and `commands` are the exact commands to run, in order
(push only when a remote exists; `gh pr create` when gh is on PATH, else the compare URL).
Nothing is pushed or created here. `--body` prints only the body.

The pull request compares the branch (or HEAD, when the branch is still to be made from it)
with the base as the remote has it (`<remote>/<base>`, else the local base): `commits` are the
commits it would carry, and the body lists only the recorded commits among them (recorded
commits already in the base are counted in `already_in_base`). A branch that carries no
commit is refused: a pull request would be empty.

Exit 1 outside a git repository, when the branch is the base branch, or when the pull
request would be empty; 2 bad usage.
"""

from __future__ import annotations

import argparse

from msd_core.run import options


def configure(parser: argparse.ArgumentParser) -> None:
    options.phase(parser)
    parser.add_argument("--milestone", nargs="?", const="", metavar="V", help="ship the current milestone (version optional)")
    parser.add_argument("--body", action="store_true", help="print only the PR body")
    options.cwd(parser)


def _which(name: str) -> str | None:
    import os

    for d in os.get_exec_path():
        p = os.path.join(d, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def _base(root, remote: str | None) -> str | None:
    from msd_core.git.runner import git

    if remote:
        proc = git(["symbolic-ref", "-q", "--short", f"refs/remotes/{remote}/HEAD"], root, check=False)
        if proc.returncode == 0 and "/" in proc.stdout:
            return proc.stdout.strip().split("/", 1)[1]
    for name in ("main", "master", "trunk", "develop"):
        if git(["rev-parse", "--verify", "-q", f"refs/heads/{name}"], root, check=False).returncode == 0:
            return name
    return None


def _ref(root, ref: str) -> bool:
    from msd_core.git.runner import git

    return git(["rev-parse", "--verify", "-q", ref + "^{commit}"], root, check=False).returncode == 0


def _ahead(root, compare: str, tip: str) -> list[str] | None:
    """Commits `tip` holds that `compare` lacks (full hashes), or None when git cannot tell."""
    from msd_core.git.runner import git

    proc = git(["rev-list", f"{compare}..{tip}", "--"], root, check=False)
    return proc.stdout.split() if proc.returncode == 0 else None


def _empty_hint(remote: str | None, base: str, on_base: bool) -> str:
    if remote is None:
        return (f"the work is already on {base} and there is no remote to compare with: add one "
                "(`git remote add origin <remote-url>`), then run ship again")
    if on_base:
        return f"commit the work first; a branch made now from {base} holds nothing {remote}/{base} lacks"
    return f"the branch holds nothing {remote}/{base} lacks: its work is merged already, or still to be committed"


def _github_compare(root, remote: str, base: str, branch: str) -> str | None:
    import re

    from msd_core.git.runner import git

    url = git(["remote", "get-url", remote], root, check=False).stdout.strip()
    m = re.match(r"^(?:https://github\.com/|git@github\.com:|ssh://git@github\.com/)([\w.-]+/[\w.-]+?)(?:\.git)?/?$", url)
    return f"https://github.com/{m.group(1)}/compare/{base}...{branch}?expand=1" if m else None


def run(args: argparse.Namespace):
    import shlex

    from msd_core.config import store
    from msd_core.errors import OperationFailed, UsageError
    from msd_core.execution import recorded
    from msd_core.files.atomic import atomic_write_text
    from msd_core.files.private_dir import ensure_private_dir
    from msd_core.git.repo_files import main_project
    from msd_core.git.runner import current_branch, git
    from msd_core.planning import branching, pr_body
    from msd_core.planning.phase_ref import resolve
    from msd_core.planning.project import project_root

    if (args.phase is None) == (args.milestone is None):
        raise UsageError("give exactly one of --phase <n> or --milestone [<v>]")
    root = main_project(project_root(args.cwd))
    if args.phase is not None:
        ph = resolve(root / ".planning", args.phase, must_exist=True)
        folders = [pd for pd in pr_body.current_phases(root) if pd.name == ph.dirname]
        target, title = f"phase-{ph.id}", f"Phase {ph.id}: {ph.name or ph.dirname}"
        records = recorded.select(root, phase=args.phase)
    else:
        version, name = branching._milestone(root)
        version = args.milestone or version or "milestone"
        folders = pr_body.current_phases(root)
        target, title = f"milestone-{branching.slugify(version)}", f"Milestone {version}" + (f": {name}" if name else "")
        wanted = {pd.name for pd in folders}
        records = [r for pd in folders for r in recorded.select(root, phase=pd.name) if r[1].get("phase_dir") in wanted]
    layers = store.load_layers(str(root))
    strategy = str(store.get_value("git.branching_strategy", str(root), layers))
    templates = {"phase": store.get_value("git.phase_branch_template", str(root), layers),
                 "milestone": store.get_value("git.milestone_branch_template", str(root), layers)}
    decided = branching.decide(root, strategy, templates, args.phase if args.phase is not None else None,
                               args.milestone or None) if strategy != "phase" or args.phase is not None else {"branch": None}
    current = current_branch(root)
    branch = decided.get("branch") or current
    remotes = git(["remote"], root, check=False).stdout.split()
    remote = "origin" if "origin" in remotes else (remotes[0] if remotes else None)
    base = _base(root, remote)
    commits = recorded.commits(records)
    if not branch:
        if args.body:
            return pr_body.build(root, folders, title, commits)[0]
        raise OperationFailed("HEAD is detached and git.branching_strategy names no branch; check out a branch first")
    compare = f"{remote}/{base}" if remote and base and _ref(root, f"refs/remotes/{remote}/{base}") else base
    tip = branch if _ref(root, f"refs/heads/{branch}") else "HEAD"
    ahead = _ahead(root, compare, tip) if compare else None
    carried = set(ahead) if ahead is not None else None
    on_branch = [c for c in commits if carried is None or c.get("hash") in carried]
    body, facts = pr_body.build(root, folders, title, on_branch)
    if args.body:
        return body
    if base and branch == base:
        needed = "phase" if args.phase is not None else "milestone"  # strategy phase makes no branch for --milestone
        hint = (f"set git.branching_strategy to {needed} (msd_run config set git.branching_strategy {needed}) and run ship "
                f"again: its branch is made from HEAD, "
                f"which holds {len(ahead)} commit(s) {compare} lacks") if ahead else _empty_hint(remote, base, True)
        raise OperationFailed(f"the work is on the base branch {base}; a pull request needs its own branch", hint=hint)
    if ahead == []:
        raise OperationFailed(f"{branch} holds no commit that {compare} lacks: the pull request would be empty",
                              hint=_empty_hint(remote, base, tip == "HEAD" and current == base))
    body_file = ensure_private_dir(root) / "ship" / f"{target}-PR.md"
    atomic_write_text(body_file, body, anchor=root)
    gh = _which("gh")
    commands = []
    if branch != current:
        commands.append(f"msd_run branch {'--phase ' + shlex.quote(args.phase) if args.phase is not None else '--milestone'} --apply")
    if remote:
        commands.append(f"git push -u {shlex.quote(remote)} {shlex.quote(branch)}")
        if gh:
            commands.append(f"gh pr create --base {shlex.quote(base or 'main')} --head {shlex.quote(branch)} "
                            f"--title {shlex.quote(title)} --body-file {shlex.quote(str(body_file))}")
        else:
            url = _github_compare(root, remote, base or "main", branch)
            commands.append(f"open {url} and paste {body_file}" if url else
                            f"open a pull request from {branch} into {base or 'main'} with the body in {body_file}")
    else:
        commands.append("git remote add origin <remote-url>   # no remote yet: add one, then run ship again")
    return {"target": target, "title": title, "branch": branch, "current_branch": current, "on_branch": branch == current,
            "base": base, "remote": remote, "gh": bool(gh), "body_file": str(body_file),
            "open_checks": facts["open_checks"], "phases": facts["phases"], "commands": commands,
            "compare": compare, "commits": len(ahead) if ahead is not None else None,
            "already_in_base": len(commits) - len(on_branch)}
