"""Merging a wave's isolated executors back, and syncing an isolated executor to its base.

`merge_wave(main, phase_dir, wave, overrides)`, in the main checkout only:

1. The wave's plans in plan order. A plan's branches come from `--branch <plan-id>=<branch>`
   or else from its run record (the branches its `msd_run commit`s were made on); a plan
   whose commits are on the checked-out branch already (sequential run) has nothing to merge.
2. Before a branch is merged, every commit it brings (`HEAD..<branch>`) is checked against git
   (msd_core.execution.provenance): one not made by `msd_run commit` for that plan (no
   `Msd-Plan: <phase-dir>/<plan-id>` trailer, or a merge) stops the wave there, nothing of that
   branch merged (exit 1, one line naming the commits). A file outside the plan's files that an
   msd commit touches is reported in the plan's `outside_plan` (with the deviation recorded for
   it, or none), and the merge goes ahead.
   Each branch is merged with `git merge --no-ff`; a branch already contained in HEAD is
   skipped. After a merge: the branch tip must be an ancestor of HEAD and no path unmerged.
   Planning files the executor wrote but did not commit (commit_docs false: its SUMMARY) are
   copied from its worktree into the main checkout when absent there.
3. A merge that fails (conflict, or local changes in the way) is aborted at once, so no merge
   is left half done; the result names the plan being merged, the earlier plan of the wave
   (or the main line) that changed the same files, and the files. Merging stops there:
   plans after it are not merged, and no worktree or branch is removed (exit 1).
4. A wave with nothing left to merge (every branch already merged) while another wave of the phase
   holds an executor branch not merged is refused (exit 1, `refused` naming the wave to merge):
   a stale `--wave` must not answer "already merged" over unmerged work.
5. When every plan merged: each executor's worktree is removed (`git worktree remove`; forced
   only when all it still holds is planning files the main checkout has byte for byte, the
   uncommitted SUMMARY of commit_docs off: one with any other change is kept and named) and its
   branch deleted with `git branch -d` (only when merged).

`sync_worktree(cwd, base)`, inside an isolated executor's linked worktree only: move it to
the orchestrator's base commit before any work. Claude Code starts such worktrees from
`origin/<default branch>` unless the user set `worktree.baseRef` to `head`, which would miss
earlier waves' merged work. Fast-forwards when possible; otherwise resets only a clean
worktree whose branch holds no commit of its own.

A project below the work tree's top (`services/api/.planning/`) is merged the same way: git runs at the
top, the run records are read from the project's own `.planning/.msd/` in the main checkout, its plans'
files are named from its folder, and its uncommitted planning files are looked for under its own
`.planning/` in each worktree.

Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError
from msd_core.execution import run_record
from msd_core.git.runner import changed_between, current_branch, first_line, git, head, is_linked_worktree, operation_in_progress, toplevel


def _is_ancestor(cwd: Path, a: str, b: str) -> bool:
    return git(["merge-base", "--is-ancestor", a, b], cwd, check=False).returncode == 0


def _branch_exists(cwd: Path, branch: str) -> bool:
    return git(["rev-parse", "--verify", "-q", f"refs/heads/{branch}"], cwd, check=False).returncode == 0


def _merge_in_progress(cwd: Path) -> bool:
    return operation_in_progress(cwd, ("MERGE_HEAD",)) is not None


def _worktrees(cwd: Path) -> dict[str, str]:
    """branch -> worktree path for every linked worktree."""
    out: dict[str, str] = {}
    path = None
    for line in git(["worktree", "list", "--porcelain"], cwd).stdout.splitlines():
        if line.startswith("worktree "):
            path = line[len("worktree "):]
        elif line.startswith("branch refs/heads/") and path:
            out[line[len("branch refs/heads/"):]] = path
    return out


def _abort(cwd: Path) -> None:
    if _merge_in_progress(cwd):
        if git(["merge", "--abort"], cwd, check=False).returncode != 0:
            git(["reset", "--merge"], cwd, check=False)


def _copy_planning_leftovers(main: Path, worktree: str | None, planning: str = ".planning/") -> list[str]:
    """Untracked planning files of a worktree (its uncommitted SUMMARY) copied into main when absent.
    `planning`: the project's planning folder from the work tree's top (`services/api/.planning/`)."""
    if not worktree or not os.path.isdir(worktree):
        return []
    proc = git(["ls-files", "--others", "--exclude-standard", "-z", "--", planning.rstrip("/")], worktree, check=False)
    copied = []
    for rel in [p for p in proc.stdout.split("\0") if p]:
        if rel.startswith(planning + ".msd/") or rel.endswith(".compiled.md"):
            continue
        src, dst = Path(worktree) / rel, main / rel
        if dst.exists() or src.is_symlink() or not src.is_file():
            continue
        from msd_core.files.atomic import atomic_write_bytes

        dst.parent.mkdir(parents=True, exist_ok=True)
        from msd_core.files.safe_read import read_regular

        atomic_write_bytes(dst, read_regular(src, follow_symlinks=False))
        copied.append(rel)
    return copied


def _only_copied_planning(main: Path, worktree: str, planning: str = ".planning/") -> bool:
    """Whether all that keeps `git worktree remove` from removing an executor's worktree is planning
    files the main checkout holds byte for byte (with commit_docs off the SUMMARY is never
    committed: _copy_planning_leftovers brought it over) or plans' compiled copies, which are
    derived. Anything else (a changed tracked file, a file elsewhere, msd's own run records under
    .planning/.msd/) keeps the worktree."""
    proc = git(["status", "--porcelain", "-z", "--untracked-files=all"], worktree, check=False)
    if proc.returncode != 0:
        return False
    from msd_core.files.safe_read import read_regular

    for item in [p for p in proc.stdout.split("\0") if p]:
        code, rel = item[:2], item[3:]
        if code != "??" or not rel.startswith(planning) or rel.startswith(planning + ".msd/"):
            return False
        if rel.endswith(".compiled.md"):
            continue
        src, dst = Path(worktree) / rel, main / rel
        try:
            if src.is_symlink() or dst.is_symlink() or read_regular(src, follow_symlinks=False) != read_regular(dst, follow_symlinks=False):
                return False
        except (OSError, ValueError):
            return False
    return True


def _brought(main: Path, branch: str, phase_dir: Path, plan: dict, record: dict | None) -> tuple[list[dict], list[dict]]:
    """(commits the merge of `branch` brings that msd did not make for this plan, [{commit, files,
    deviation}] of its msd commits touching files outside the plan)."""
    from msd_core.execution.commit import covered
    from msd_core.execution.provenance import facts
    from msd_core.progress.root_walk import only_root

    hashes = git(["rev-list", "--reverse", f"HEAD..{branch}", "--"], main).stdout.split()
    want = f"{phase_dir.name}/{plan['id']}"
    summary_rel = f"{Path(plan['path']).parent.resolve().relative_to(main.resolve()).as_posix()}/{plan['id']}-SUMMARY.md"
    prefix = summary_rel.split(".planning/", 1)[0]  # a project below the top: its plans name files from its folder
    found = facts(main, hashes, prefix, lambda: only_root(phase_dir.parent.parent.parent))
    declared = [prefix + f for f in plan["files"]]
    deviations = {c.get("hash"): c.get("deviation") for c in (record or {}).get("commits", []) if isinstance(c, dict)}
    foreign, outside = [], []
    for h in hashes:
        fact = found.get(h)
        if fact is None or len(fact.parents) > 1 or want not in fact.plans:
            why = ("a merge" if fact is not None and len(fact.parents) > 1 else
                   f"Msd-Plan: {', '.join(fact.plans)}" if fact is not None and fact.plans else
                   f"made for {fact.elsewhere}" if fact is not None and fact.elsewhere else "no Msd-Plan trailer")
            foreign.append({"hash": h, "subject": fact.subject if fact else "", "why": why})
            continue
        off = [f for f in fact.files if not covered(f, declared, summary_rel)]  # the plan as read once
        if off:
            outside.append({"commit": h, "files": off, "deviation": deviations.get(h)})
    return foreign, outside


def _unmerged_elsewhere(main: Path, project: Path, phase_dir: Path, plans: list[dict], wave: int,
                        checked_out: str | None) -> list[dict]:
    """[{plan, wave, branch}] of the phase's plans in other waves whose recorded executor branch exists
    and is not merged into HEAD (`project`: where the run records are)."""
    out: list[dict] = []
    for p in plans:
        if p["wave"] == wave:
            continue
        try:
            record = run_record.load(run_record.record_path(project, phase_dir.name, p["id"]))
        except OperationFailed:
            continue
        for br in run_record.branches(record):
            if br != checked_out and _branch_exists(main, br) and not _is_ancestor(main, br, "HEAD"):
                out.append({"plan": p["id"], "wave": p["wave"], "branch": br})
    return out


def merge_wave(main_cwd: Path, phase_dir: Path, wave: int, overrides: dict[str, list[str]] | None = None) -> tuple[dict, int]:
    from msd_core.execution.waves import read_plans

    main = toplevel(main_cwd)
    # the project (run records, planning files) may lie below the work tree's top: <project>/.planning/phases/<phase>
    project = Path(phase_dir).absolute().parent.parent.parent
    rel = os.path.relpath(project.resolve(), main.resolve()).replace(os.sep, "/")
    planning = ".planning/" if rel == "." else f"{rel}/.planning/"
    if is_linked_worktree(main):
        raise UsageError("wave merge runs in the main checkout, not inside an executor's worktree")
    if _merge_in_progress(main):
        raise OperationFailed("a merge is already in progress in the main checkout",
                              hint="finish or abort it (git merge --abort) first")
    plans, _problems = read_plans(phase_dir)
    wave_plans = [p for p in plans if p["wave"] == wave]
    if not wave_plans:
        raise UsageError(f"phase {phase_dir.name} has no plan in wave {wave}")
    overrides = overrides or {}
    unknown = sorted(set(overrides) - {p["id"] for p in wave_plans})
    if unknown:
        raise UsageError(f"plans not in wave {wave}: {', '.join(unknown)}", about="branch")
    checked_out = current_branch(main)
    base = head(main)
    merged: list[dict] = []
    result: dict = {"phase_dir": phase_dir.name, "wave": wave, "base": base, "merged": merged,
                    "conflict": None, "removed": [], "kept": []}
    wt_by_branch = _worktrees(main)
    record_wt: dict[str, str] = {}
    for p in wave_plans:
        record = run_record.load(run_record.record_path(project, phase_dir.name, p["id"]))
        for c in (record or {}).get("commits", []):
            if isinstance(c, dict) and c.get("branch") and c.get("worktree"):
                record_wt[c["branch"]] = c["worktree"]
        branches = overrides.get(p["id"]) or [b for b in run_record.branches(record) if b != checked_out]
        entry = {"plan": p["id"], "branches": [], "copied": []}
        if not branches:
            entry["status"] = "nothing to merge" if (record or {}).get("commits") else "no commits recorded"
            merged.append(entry)
            continue
        for br in branches:
            if not _branch_exists(main, br):
                hashes = [c.get("hash") for c in (record or {}).get("commits", [])
                          if isinstance(c, dict) and c.get("branch") == br and isinstance(c.get("hash"), str)]
                if hashes and all(_is_ancestor(main, h, "HEAD") for h in hashes):
                    entry["branches"].append({"branch": br, "status": "already merged (branch removed)"})
                    continue
                raise OperationFailed(f"plan {p['id']}: branch {br} does not exist (removed, or never created)")
            if _is_ancestor(main, br, "HEAD"):
                entry["branches"].append({"branch": br, "status": "already merged"})
                continue
            foreign, outside = _brought(main, br, phase_dir, p, record)
            if foreign:
                shown = ", ".join(f"{f['hash'][:12]} ({f['why']})" for f in foreign[:3])
                more = f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
                result["refused"] = {
                    "plan": p["id"], "branch": br, "commits": foreign,
                    "message": (f"plan {p['id']}: branch {br} holds {len(foreign)} commit(s) not made by `msd_run commit` "
                                f"for {p['id']}: {shown}{more}; not merged (review them: git log HEAD..{br})"),
                }
                entry["status"] = "refused"
                merged.append(entry)
                result["head"] = head(main)
                return result, 1
            if outside:
                entry.setdefault("outside_plan", []).extend(outside)
            before = head(main)
            proc = git(["merge", "--no-ff", "--no-edit", "-m", f"merge({p['id']}): {br} (wave {wave})", br], main, check=False)
            if proc.returncode != 0:
                unmerged = [f for f in git(["diff", "--name-only", "--diff-filter=U", "-z"], main, check=False).stdout.split("\0") if f]
                _abort(main)
                files = unmerged or changed_between(main, before or "HEAD", br)
                others = []
                for done in merged:
                    for b in done["branches"]:
                        if b.get("status") == "merged" and set(changed_between(main, base, b["branch"])) & set(files):
                            others.append(done["plan"])
                other = others[0] if others else None
                reason = "conflict" if unmerged else first_line(proc.stderr or proc.stdout)
                result["conflict"] = {
                    "plan": p["id"], "branch": br, "with": other or "main line",
                    "files": files, "reason": reason,
                    "message": (f"merging plan {p['id']} ({br}) conflicts with "
                                f"{'plan ' + other if other else 'the main line'} on {', '.join(files) or 'the tree'}: "
                                f"{reason}; merge aborted, nothing half-merged"),
                }
                entry["status"] = "conflict"
                merged.append(entry)
                result["head"] = head(main)
                return result, 1
            if not _is_ancestor(main, br, "HEAD") or _merge_in_progress(main):
                _abort(main)
                raise OperationFailed(f"plan {p['id']}: merge of {br} did not land; aborted")
            entry["branches"].append({"branch": br, "status": "merged", "commit": head(main)})
        entry["status"] = "merged"
        for br in branches:
            entry["copied"] += _copy_planning_leftovers(main, wt_by_branch.get(br) or record_wt.get(br), planning)
        merged.append(entry)
    if all(b["status"].startswith("already merged") for e in merged for b in e["branches"]):
        # nothing of this wave was left to merge: a stale --wave must not hide another wave's branches
        waiting = _unmerged_elsewhere(main, project, phase_dir, plans, wave, checked_out)
        if waiting:
            other = waiting[0]["wave"]
            shown = ", ".join(f"{w['branch']} (plan {w['plan']})" for w in waiting[:3])
            result["refused"] = {
                "waves": sorted({w["wave"] for w in waiting}), "branches": waiting,
                "message": (f"wave {wave} has nothing left to merge, but wave {other}'s executor branches are not merged: "
                            f"{shown}; run `msd_run wave merge --phase-dir {phase_dir.name} --wave {other}`"),
            }
            result["head"] = head(main)
            return result, 1
    # every plan landed: remove the executors' worktrees and merged branches
    for entry in merged:
        for b in entry["branches"]:
            br = b["branch"]
            wt = wt_by_branch.get(br)
            if wt and os.path.normpath(wt) != os.path.normpath(str(main)):
                rm = git(["worktree", "remove", wt], main, check=False)
                if rm.returncode != 0 and _only_copied_planning(main, wt, planning):
                    rm = git(["worktree", "remove", "--force", wt], main, check=False)
                if rm.returncode != 0:
                    result["kept"].append({"plan": entry["plan"], "worktree": wt, "why": first_line(rm.stderr)})
                    continue
                result["removed"].append(wt)
            if _is_ancestor(main, br, "HEAD"):
                if git(["branch", "-d", br], main, check=False).returncode == 0:
                    result["removed"].append(f"branch {br}")
    git(["worktree", "prune"], main, check=False)
    result["head"] = head(main)
    return result, 0


def _own_commits(top: Path) -> list[str]:
    """Commits reachable from HEAD and from no other branch, remote branch or tag."""
    mine = f"refs/heads/{current_branch(top)}"
    refs = [r for r in git(["for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes", "refs/tags"], top).stdout.split()
            if r != mine]
    return git(["rev-list", "--stdin"], top, input_text="HEAD\n" + "".join(f"^{r}\n" for r in refs)).stdout.split()


def sync_worktree(cwd: Path, base: str) -> dict:
    top = toplevel(cwd)
    if not is_linked_worktree(top):
        raise OperationFailed("wave sync runs only inside an isolated executor's worktree (this is the main checkout)")
    target = git(["rev-parse", "--verify", "-q", f"{base}^{{commit}}"], top, check=False).stdout.strip()
    if not target:
        raise UsageError(f"{base} is not a commit of this repository", about="base")
    now = head(top)
    if now == target or (now and _is_ancestor(top, target, now)):
        return {"worktree": str(top), "branch": current_branch(top), "head": now, "action": "none"}
    dirty = git(["status", "--porcelain", "--untracked-files=no"], top).stdout.strip()
    if dirty:
        raise OperationFailed("the worktree has uncommitted changes; not moved to the base",
                              hint="sync before changing anything")
    if now and _is_ancestor(top, now, target):
        git(["merge", "--ff-only", "-q", target], top)
        action = "fast-forward"
    else:
        own = _own_commits(top)
        if own:
            raise OperationFailed(f"the worktree's branch holds {len(own)} commit(s) of its own; not reset to the base")
        git(["reset", "-q", "--hard", target], top)
        action = "reset"
    return {"worktree": str(top), "branch": current_branch(top), "head": head(top), "action": action}
