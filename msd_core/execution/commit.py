"""`msd_run commit`: commit exactly the named paths of one plan, and record the commit.

Rules (each refusal is one line, nothing is staged or committed by a refused call):
- The paths are taken relative to the working tree that holds `cwd` (main checkout or a
  linked worktree). A path outside it, inside `.git/`, under `.planning/.msd/` or a
  `*.compiled.md` build file is refused (exit 2).
- A merge, revert, cherry-pick or rebase under way in that working tree (a stopped rebase
  too): refused (exit 1) before anything is staged.
- With `--plan`, every path must be one the plan declares (`files_modified` and the
  tasks' `<files>`; a declared folder `src/auth/` covers what is under it) or the plan's
  own SUMMARY. Anything else is refused (exit 1) unless `--deviation "<why>"` is given;
  the reason is recorded with the commit. Without `--plan` (planning documents, a
  debugger's fix) the named paths are committed as named, and nothing is recorded.
- A package manifest or lock file (msd_core.execution.manifests: package.json, a lock file,
  pyproject.toml, requirements*.txt, Cargo.toml, go.mod, ...) is refused (exit 1) unless the
  plan's `files_modified` names that file itself, with or without `--plan`, unless
  `--deviation "<the user's approval>"` is given: adding or upgrading a package is the user's
  decision. The approval is recorded (`dependency_change` in the run record) and carried by the
  commit itself (trailer `Msd-Deviation:`).
- `commit_docs` false: paths under `.planning/` are left out (reported in `skipped_docs`); each
  `.planning/` root decides for its own files (`services/api/.planning/...` by services/api's config);
  when nothing else is left the call commits nothing and says so (exit 0), in a project
  outside git too (the commit step of a flow runs whatever the setting). The config is
  read only when a path is under `.planning/` (it decides nothing else).
- A named path may be gone from disk: one git tracks in the index or in HEAD (a file deleted
  or moved away, a folder emptied by `git mv`) is a legal path, and its deletion is committed.
  A path neither on disk nor known to git is refused (exit 1).
- Moves: a rename the index holds (`git mv old new`) whose new path is under a named path
  carries its old path into the same commit (so the commit holds the whole move, never an
  added copy with the deletion left staged). With `--plan` the old path must be in scope too.
- No change in the named paths: refused (exit 1) before anything is staged or any hook
  runs, never an empty commit.
- STATE.md and ROADMAP.md follow the project's files: when `.planning/STATE.md` or
  `.planning/ROADMAP.md` is named, `state sync` (msd_core.progress.state_sync) runs first, so
  a commit never records derived lines the tree contradicts (reported in `state_sync`; with
  `commit_docs` false the sync runs all the same, and nothing is committed). The sync may tick
  ROADMAP.md's boxes; ROADMAP.md is committed only when named (the commit holds exactly the
  named paths), so every commit line of the content that names STATE.md names ROADMAP.md too
  (msd check content: msd_core/checks/commit_lines.py).
- Staging and committing run under the project's commit lock, and the commit is made with
  a pathspec (`git commit -- <paths>`, which takes the working tree's content of the named
  paths): whatever else is staged, by anyone, stays staged and out of this commit.
- What changed: one `git status` of the paths (msd_core.git.path_status) lists the paths
  whose content differs from HEAD and those git must `git add` first (new files); a tracked
  change needs no `git add`. In a state status does not settle (a path changed both in the
  index and in the tree, a rename record, a conflict, a submodule) the paths are staged and
  `git diff-index` lists what is staged, as before.
- The files a commit holds: when no hook can run (msd_core.git.hooks), that list, and the
  hash from HEAD's files; with a hook anywhere, what `git diff-tree` reports for the new
  HEAD (a pre-commit hook may stage more, a post-commit hook may amend).
- A plan's commit carries the trailer `Msd-Plan: <phase-dir>/<plan-id>` (msd_core.execution.provenance),
  and `Msd-Root: <folder>` for a plan of a root below the work tree's top: git, not the run record,
  says which commits msd made for which plan of which root.
- The commit (hash, the files git reports for it, message, task, branch, worktree) is
  appended to the plan's run record (msd_core.execution.run_record) in the main checkout.

Standard library only (PyYAML is loaded lazily only to read the plan's frontmatter).
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError
from msd_core.execution import run_record
from msd_core.execution.provenance import trailer_args
from msd_core.git.runner import (
    INDEX_LOCK_WAIT,
    commit_and_files,
    current_branch,
    first_line,
    git,
    git_start,
    head,
    known_paths,
    main_checkout,
    operation_in_progress,
    repo_paths,
    toplevel,
)
from msd_core.git.trailers import DEVIATION_KEY


def _rel_in_tree(top: Path, cwd: Path, raw: str) -> str:
    if not raw or "\x00" in raw:
        raise UsageError("an empty path cannot be committed")
    p = Path(raw)
    absolute = p if p.is_absolute() else cwd / p
    norm = os.path.normpath(str(absolute))
    top_s = os.path.normpath(str(top))
    if norm != top_s and not norm.startswith(top_s + os.sep):
        # the tree may be reached through a symlinked path (macOS /tmp): compare resolved parents
        try:
            rel = Path(norm).resolve().relative_to(top.resolve())
        except ValueError:
            raise UsageError(f"{raw} is outside the working tree {top}") from None
        rel_s = rel.as_posix()
    else:
        rel_s = Path(os.path.relpath(norm, top_s)).as_posix()
    if rel_s in ("", "."):
        raise UsageError(f"{raw} names the whole working tree; name files")
    parts = rel_s.split("/")
    if ".git" in parts:
        raise UsageError(f"{raw} is inside .git/")
    if f"/{rel_s}/".find("/.planning/.msd/") >= 0:  # any root's, the top's or one below it
        raise UsageError(f"{raw} is msd's private folder (.planning/.msd/), never committed")
    if rel_s.endswith(".compiled.md"):
        raise UsageError(f"{raw} is a compiled plan (build output), never committed")
    return rel_s


DECLARED_KEYS = frozenset({"files-modified"})  # split_frontmatter's normalised form of files_modified


def _in_main_only(plan_path: Path, top: Path, main: Path) -> None:
    """Refuse, naming the way forward, a plan path missing from a linked worktree that the main checkout
    holds at the same place (commit_docs false: plans never committed are not in an executor's worktree)."""
    if top == main or os.path.lexists(plan_path):
        return
    try:
        rel = plan_path.resolve().relative_to(top.resolve())
    except ValueError:
        return
    there = main / rel
    if there.is_file():
        raise UsageError(f"no plan at {plan_path}: this worktree lacks it (planning files not committed)",
                         hint=f"the main checkout's plan is {there}", remedy="plan")


class PlanScope:
    """What one plan may commit: its declared files and its SUMMARY."""

    def __init__(self, plan_path: Path, top: Path, main: Path):
        from msd_core.planning.discovery import plan_id
        from msd_core.planning.plan import normalize_declared, parse_plan
        from msd_core.planning.project import read_text_file

        _in_main_only(plan_path, top, main)
        _raw, text = read_text_file(plan_path, "plan", error=UsageError)
        plan = parse_plan(text, DECLARED_KEYS)  # the files a plan declares; the rest of its frontmatter is not read
        if plan.frontmatter_error and not plan.frontmatter:
            raise OperationFailed(f"plan {plan_path} has no readable frontmatter ({plan.frontmatter_error})")
        self.plan_id = plan_id(plan_path)
        self.phase_dir = plan_path.parent.name
        self.declared = [normalize_declared(f) for f in plan.files if f.strip()]
        rel_dir = None
        for base in (top, main):
            try:
                rel_dir = plan_path.resolve().parent.relative_to(base.resolve()).as_posix()
                break
            except ValueError:
                continue
        if rel_dir is None:
            raise UsageError(f"plan {plan_path} is neither in this working tree nor in the main checkout")
        self.plan_rel = f"{rel_dir}/{plan_path.name}"
        self.summary_rel = f"{rel_dir}/{self.plan_id}-SUMMARY.md"
        parts = rel_dir.split("/")
        self.project_rel = ""  # the plan's project, from the work tree's top ("": the top)
        if ".planning" in parts[1:]:  # a project below the work tree's top: its plans name files from its own folder
            self.project_rel = "/".join(parts[: parts.index(".planning")])
            self.declared = [f"{self.project_rel}/{d}" for d in self.declared]

    def project(self, main: Path) -> Path:
        """The plan's project in the main checkout: where its run records and settings are."""
        return main / self.project_rel if self.project_rel else main

    def covers(self, rel: str) -> bool:
        return covered(rel, self.declared, self.summary_rel)


def covered(rel: str, declared: list[str], summary_rel: str) -> bool:
    """Whether a plan declaring `declared` (a folder `src/auth/` covers what is under it) may commit `rel`."""
    return rel == summary_rel or any(rel == d or (d.endswith("/") and rel.startswith(d)) for d in declared)


def planning_project(rel: str) -> str | None:
    """The project whose planning file `rel` (from the work tree's top) is: its folder ("" for the top's,
    "services/api" for `services/api/.planning/ROADMAP.md`); None when `rel` is not under a `.planning/`."""
    parts = rel.split("/")
    if ".planning" not in parts[:-1]:
        return None
    return "/".join(parts[: parts.index(".planning")])


def _uncommitted_docs(main: Path, rels: list[str]) -> list[str]:
    """The planning files among `rels` whose own project says commit_docs false (each root decides for its own)."""
    verdict: dict[str, bool] = {}
    out = []
    for rel in rels:
        project = planning_project(rel)
        if project is None:
            continue
        if project not in verdict:
            verdict[project] = _commit_docs(main / project if project else main)
        if not verdict[project]:
            out.append(rel)
    return out


def _commit_docs(main: Path) -> bool:
    from msd_core.config.store import get_bool

    try:
        return get_bool("commit_docs", cwd=main)
    except UsageError:
        return True


def _stage(top: Path, rels: list[str]) -> None:
    added = git(["add", "--", *rels], top, check=False, lock_wait=INDEX_LOCK_WAIT)
    if added.returncode != 0:
        raise OperationFailed(f"git add refused the paths: {first_line(added.stderr)}")


def _staged_after_add(top: Path, rels: list[str]) -> tuple[list[str] | None, list[str]]:
    """(the staged changes among the paths, old paths of staged moves into them), from one
    `git diff-index -M` of the whole index (plumbing; a move lists both paths, as diff-tree
    reports the commit). ([], []) when nothing is staged; (None, []) when git cannot say and the
    commit must decide."""
    listed = git(["diff-index", "--cached", "-M", "--name-status", "-z", "HEAD"], top, check=False)
    if listed.returncode == 0:
        parts = listed.stdout.split("\0")
        staged: set[str] = set()
        moved: set[str] = set()
        i = 0
        while i < len(parts) - 1:
            status = parts[i]
            if status[:1] in ("R", "C") and i + 2 < len(parts):
                old, new = parts[i + 1], parts[i + 2]
                if _covered(new, rels):
                    staged.add(new)
                    if status[:1] == "R":
                        staged.add(old)
                        if not _covered(old, rels):
                            moved.add(old)
                elif _covered(old, rels) and status[:1] == "R":
                    staged.add(old)
                i += 3
                continue
            if status and _covered(parts[i + 1], rels):
                staged.add(parts[i + 1])
            i += 2
        return sorted(staged), sorted(moved)
    if head(top) is not None:
        return None, []  # diff could not tell: let `git commit` decide and report
    # no commit yet: anything staged among the paths is a change
    return (None if git(["ls-files", "--", *rels], top).stdout.strip() else []), []


def _docs_outside_git(cwd: Path, paths: list[str]) -> list[str] | None:
    """Outside a git repository: the named paths when every one is a planning file of the project
    and commit_docs is false (nothing would be committed anyway); else None (git's refusal stands)."""
    from msd_core.errors import MsdError
    from msd_core.planning.project import project_root

    try:
        root = project_root(str(cwd))
    except MsdError:
        return None
    planning = (root / ".planning").resolve()
    named = []
    for raw in paths:
        p = (cwd / raw).resolve() if not Path(raw).is_absolute() else Path(raw).resolve()
        if p != planning and planning not in p.parents:
            return None
        named.append(p.relative_to(root.resolve()).as_posix())
    return named if not _commit_docs(root) else None


def _covered(path: str, rels: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in rels)


def _moved_from(top: Path, rels: list[str], added: list[str]) -> list[str]:
    """Old paths of the staged renames whose new path is one of `added` (the index's additions
    among the paths) and whose old path is not under `rels`."""
    if not added:
        return []
    from msd_core.git.runner import staged_renames

    wanted = set(added)
    return sorted({old for new, old in staged_renames(top).items() if new in wanted and not _covered(old, rels)})


PLANNING_DERIVED = (".planning/STATE.md", ".planning/ROADMAP.md")


def _sync_planning(top: Path, rels: list[str]) -> dict | None:
    """`state sync` of the project whose STATE.md or ROADMAP.md is named (best effort: an error is reported)."""
    for rel in rels:
        for derived in PLANNING_DERIVED:
            if rel == derived or rel.endswith("/" + derived):
                project = top / rel[: len(rel) - len(derived)]
                if not (project / ".planning" / "STATE.md").is_file():
                    return None
                from msd_core.errors import MsdError
                from msd_core.progress.state_sync import sync

                try:
                    report = sync(project, warnings=False)
                except MsdError as exc:
                    return {"error": exc.message}
                out = {"changed": [c["field"] for c in report["changed"]]}
                if report.get("roadmap"):
                    out["roadmap"] = [c["what"] for c in report["roadmap"]["changed"]]
                return out
    return None


def scoped_commit(*, cwd: Path, message: str, paths: list[str], plan: str | None = None,
                  deviation: str | None = None, task: int | None = None) -> dict:
    if not message or not message.strip():
        raise UsageError("a commit message is required, one line as <type>(<scope>): <what>", remedy="message")
    if not paths:
        raise UsageError("the commit names no file", hint="give the paths of the files to commit", remedy="files")
    if deviation is not None and not deviation.strip():
        raise UsageError("a deviation needs the reason it is recorded with", about="deviation")
    cwd = Path(cwd).absolute()
    try:
        top, main, linked = repo_paths(cwd)
    except OperationFailed:
        skipped = _docs_outside_git(cwd, paths)
        if skipped is None:
            raise
        return {"plan": None, "skipped_docs": skipped, "committed": False,
                "reason": "commit_docs is false: planning files stay uncommitted", "files": []}
    stopped = operation_in_progress(top)
    if stopped:  # git refuses a pathspec commit during a merge; a rebase stop (or a revert, a pick) would take one
        raise OperationFailed(f"a git operation is in progress in {top} ({stopped}); no commit made",
                              hint="finish it (git rebase --continue, git merge --continue, ...) or abort it first")
    rels: list[str] = []
    for raw in paths:
        rel = _rel_in_tree(top, cwd, raw)
        if rel not in rels:
            rels.append(rel)

    scope = None
    outside: list[str] = []
    dependencies: list[str] = []
    if plan:
        plan_path = Path(plan).expanduser()
        plan_path = plan_path if plan_path.is_absolute() else cwd / plan_path
        scope = PlanScope(plan_path, top, main)
        from msd_core.progress.evidence import mark_since

        mark_since(scope.project(main))  # msd executes this project: its SUMMARYs need their commits (progress.evidence)
        outside = [r for r in rels if not scope.covers(r)]
    from msd_core.execution.manifests import undeclared

    dependencies = undeclared(rels, scope.declared if scope is not None else None)
    if dependencies and deviation is None:
        whose = f"plan {scope.plan_id}'s files_modified does not name" if scope is not None else "no plan names"
        raise OperationFailed(
            f"{', '.join(dependencies)}: a package manifest or lock file {whose}; adding or upgrading a "
            "package needs the user's approval (a proposed name may be typosquatted or not exist)",
            hint="ask the user; with their approval record a deviation saying who approved which package, and why",
            remedy="deviation")
    if scope is not None:
        if outside and deviation is None:
            raise OperationFailed(
                f"not in plan {scope.plan_id}'s files_modified: {', '.join(outside)}",
                hint="commit only the plan's files, or record a deviation with its reason", remedy="deviation",
            )

    synced = _sync_planning(top, rels)  # whether or not the planning files are committed
    skipped_docs = _uncommitted_docs(main, rels)
    if skipped_docs:
        rels = [r for r in rels if r not in skipped_docs]
    base = {"plan": scope.plan_id if scope else None, "skipped_docs": skipped_docs}
    if synced is not None:
        base["state_sync"] = synced
    if not rels:
        return {**base, "committed": False, "reason": "commit_docs is false: planning files stay uncommitted",
                "files": []}

    from msd_core.files.atomic import lock_timeout_from_env, locked

    with locked(run_record.lock_path(main), lock_timeout_from_env(), what="the project's commit lock"):
        gone = [rel for rel in rels if not os.path.lexists(top / rel)]
        missing = [rel for rel in gone if rel not in known_paths(top, gone)] if gone else []
        if missing:
            raise OperationFailed(f"no such file (neither on disk nor known to git): {', '.join(missing)}")
        # one `git status` says what a commit of the paths holds (msd_core.git.path_status); whether a
        # hook could run is read from the files meanwhile
        from msd_core.git import path_status
        from msd_core.git.hooks import may_run_hooks

        with path_status.start(top, rels) as status:
            hooks = may_run_hooks(top)
        found = path_status.read(status, rels)
        if found is not None:
            staged, to_add = found
            if to_add:
                _stage(top, to_add)
            moved = _moved_from(top, rels, path_status.staged_additions(status))
            if moved:
                staged = sorted({*staged, *moved})
        else:  # a state status does not settle: stage the paths and ask what is staged
            _stage(top, rels)
            staged, moved = _staged_after_add(top, rels)
        if moved:
            out_of_scope = [m for m in moved if scope is not None and not scope.covers(m)]
            if out_of_scope and deviation is None:
                raise OperationFailed(f"the moves name old paths outside plan {scope.plan_id}'s files: {', '.join(out_of_scope)}",
                                      hint="name only the plan's files, or record a deviation with its reason",
                                      remedy="deviation")
            outside += out_of_scope
            rels = rels + moved
        if staged is not None and not staged:
            raise OperationFailed(f"nothing to commit: no change in {', '.join(rels)}",
                                  hint="an empty commit is never made; skip it and say so")
        if staged is not None and hooks:
            staged = None  # a hook may stage more or amend: ask git what was committed
        branch = prior = None
        # a plan's commit says so itself (provenance: undo and wave merge check it against git, not the record)
        mark = trailer_args(scope.phase_dir, scope.plan_id, scope.project_rel) if scope is not None else []
        if deviation is not None and (dependencies or scope is not None):
            # the approval travels with the commit, so a teammate's clone sees it (progress.evidence)
            mark += ["--trailer", f"{DEVIATION_KEY}: " + " ".join(deviation.split())[:300]]
        with git_start(["commit", "-q", "-m", message, *mark, "--", *rels], top, lock_wait=INDEX_LOCK_WAIT) as committing:
            if staged is not None:  # no hook can move HEAD or touch the record: read them meanwhile
                branch = current_branch(top)
                prior = run_record.load_for(scope.project(main), scope.phase_dir, scope.plan_id) if scope is not None else None
        proc = committing.result()
        if proc.returncode != 0:
            said = proc.stderr or proc.stdout
            raise OperationFailed(f"git commit failed: {first_line(said)}", hint=_failed_commit_hint(said, hooks))
        commit = head(top) if staged is not None else None
        if commit is not None:  # no hook ran: the commit holds exactly the paths listed before it
            files = staged
        else:
            commit, files = commit_and_files(top)
        entry = {
            "hash": commit,
            "files": files,
            "message": message.strip().splitlines()[0],
            "task": task,
            "branch": branch if staged is not None else current_branch(top),
            "worktree": str(top) if linked else None,
        }
        if deviation is not None:
            entry["deviation"] = deviation.strip()
            entry["outside_plan"] = outside
            if dependencies:
                entry["dependency_change"] = dependencies
        record = None
        if scope is not None:
            record = run_record.append_commit(scope.project(main), scope.phase_dir, scope.plan_id, scope.plan_rel, entry,
                                              loaded=prior)
    out = {**base, "committed": True, "hash": commit, "short": commit[:7], "files": files,
           "branch": entry["branch"], "worktree": entry["worktree"]}
    if record is not None:
        out["record"] = str(record)
    if deviation is not None:
        out["deviation"] = entry["deviation"]
    if dependencies:
        out["dependency_change"] = dependencies
    return out


def plan_record(*, cwd: Path, plan: str) -> dict:
    """The plan's run record with `tasks_done` (distinct tasks) and `branches`."""
    cwd = Path(cwd).absolute()
    top = toplevel(cwd)
    main = main_checkout(cwd)
    plan_path = Path(plan).expanduser()
    plan_path = plan_path if plan_path.is_absolute() else cwd / plan_path
    scope = PlanScope(plan_path, top, main)
    data = run_record.load(run_record.record_path(scope.project(main), scope.phase_dir, scope.plan_id)) or {
        "plan": scope.plan_id, "phase_dir": scope.phase_dir, "plan_path": scope.plan_rel, "commits": []}
    return {**data, "tasks_done": run_record.tasks_done(data), "completed": len(run_record.tasks_done(data)),
            "branches": run_record.branches(data)}


def _failed_commit_hint(said: str, hooks) -> str:
    """What to do about a `git commit` that failed, from what git said."""
    if any(words in said for words in ("identity unknown", "Please tell me who you are", "empty ident name", "no email was given")):
        return ('git has no name and email here: git config user.name "<name>" and git config user.email "<email>" '
                "(in this repository, or --global), then commit again")
    if hooks:
        return "a hook failed: fix the cause, then commit again (never --no-verify)"
    return "fix what git says, then commit again (never --no-verify)"
