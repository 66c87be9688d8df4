"""Undo a plan's or a phase's recorded commits, and nothing else.

`undo(cwd, phase=..., plan=..., dry_run=...)`, in the main checkout:

1. The commits come only from run records (msd_core.execution.recorded). None recorded: exit 1.
2. Refusals (exit 1, one line, nothing changed): a tracked file is modified or staged; a
   merge, revert, cherry-pick or rebase is in progress; a recorded commit is missing from the
   repository or is not an ancestor of HEAD (it was never merged here, or history was
   rewritten); a recorded commit git does not show as `msd_run commit`'s for that plan (its
   `Msd-Plan` trailer, msd_core.execution.provenance), or that touches other files than its
   record names: the record is forged or damaged, and a run record is data anyone can edit.
3. The commits are reverted newest first with `git revert --no-commit` (only those
   hashes; every other commit stays), then committed once. A conflict (a later commit
   msd did not record changed the same lines) aborts the revert at once: HEAD, index and
   tree are as before and the result names the files.
4. The phase folder is put back: an undone plan's SUMMARY (and, for a phase, its
   VERIFICATION/UAT) still present after the revert and not tracked by git is moved to
   `.planning/.msd/undone/<stamp>/` (never deleted); a tracked one is named in `left`.
   STATE.md's session line says what happened (`Left off: Undid plan <id>`: the line the
   undone work set, "Quick task 001 done", would otherwise outlive it), its derived lines and
   ROADMAP.md's boxes are recomputed (`state sync`) and, when tracked, committed with the revert.
5. The run records are moved to `.planning/.msd/runs/undone/`, so a second undo finds
   nothing and a re-run of the plan starts a fresh record.

`dry_run` runs the checks and reports the same plan without changing anything; the commits it
lists are what git says they hold (subject, files), not what the record claims.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from msd_core.errors import OperationFailed
from msd_core.execution import recorded, run_record
from msd_core.git.runner import all_ancestors_of_head, git, head, main_checkout, operation_in_progress, tracked


def _project(cwd: Path) -> Path:
    """The project undo acts on, in the main checkout: the `.planning/` root holding `cwd` (a root below
    the work tree's top has its own run records), else the main checkout's top."""
    from msd_core.errors import MsdError
    from msd_core.git.repo_files import main_project
    from msd_core.planning.project import project_root

    top = main_checkout(cwd)
    try:
        found = main_project(project_root(str(cwd)))
    except MsdError:
        return top
    inside = found.resolve() == top.resolve() or top.resolve() in found.resolve().parents
    return found if inside else top


def _refusal(out: dict, reason: str) -> dict:
    out.update({"ok": False, "refused": reason})
    return out


def _dirty(root: Path) -> list[str]:
    proc = git(["status", "--porcelain", "-z", "--untracked-files=no"], root)
    return [e[3:] for e in proc.stdout.split("\0") if len(e) > 3]


def _leftovers(root: Path, records: list[tuple[Path, dict]], whole_phase: bool) -> list[str]:
    """Files of the phase folder that say the undone work happened (relative paths)."""
    out = []
    for _p, rec in records:
        folder = root / ".planning" / "phases" / str(rec.get("phase_dir", ""))
        plan = str(rec.get("plan", ""))
        candidates = [folder / f"{plan}-SUMMARY.md"]
        if whole_phase and folder.is_dir():
            candidates += sorted(p for p in folder.iterdir() if p.name.endswith(("-VERIFICATION.md", "-UAT.md")))
        for c in candidates:
            rel = c.relative_to(root).as_posix()
            if rel not in out and (c.is_file() or c.is_symlink()):
                out.append(rel)
    return out


def _check(root: Path, commits: list[dict]) -> str | None:
    reason = _check_git(root, commits)
    if reason:
        return reason
    from msd_core.execution.provenance import facts, mismatch
    from msd_core.lean.project_rule import work_tree_top
    from msd_core.progress.root_walk import only_root

    top = work_tree_top(str(root))
    rel = os.path.relpath(root, top).replace(os.sep, "/") if top else "."
    found = facts(root, [c["hash"] for c in commits], "" if rel == "." else rel, lambda: only_root(root))
    for c in commits:
        wrong = mismatch(c, found.get(c["hash"]))
        if wrong:
            return f"{wrong}; the run record does not match git, nothing was changed"
        c["git"] = found[c["hash"]]
    return None


def _check_git(root: Path, commits: list[dict]) -> str | None:
    ref = operation_in_progress(root)
    if ref:
        return f"a git operation is in progress ({ref} exists); finish or abort it first"
    dirty = _dirty(root)
    if dirty:
        return f"the working tree has uncommitted changes ({', '.join(dirty[:5])}); commit or stash them first"
    if all_ancestors_of_head(root, [c["hash"] for c in commits]):
        return None
    for c in commits:  # one is missing or not merged here: name it
        if git(["cat-file", "-e", f"{c['hash']}^{{commit}}"], root, check=False).returncode != 0:
            return f"recorded commit {c['hash'][:12]} ({c['plan']}) is not in this repository"
        if git(["merge-base", "--is-ancestor", c["hash"], "HEAD"], root, check=False).returncode != 0:
            return f"recorded commit {c['hash'][:12]} ({c['plan']}) is not an ancestor of HEAD; nothing was changed"
    return "the recorded commits are not all ancestors of HEAD; nothing was changed"


def undo(cwd: Path, *, phase: str | None = None, plan: str | None = None, dry_run: bool = False) -> dict:
    from msd_core.files.atomic import lock_timeout_from_env, locked

    root = _project(Path(cwd))
    with locked(run_record.lock_path(root), lock_timeout_from_env(), what="run records"):
        records = recorded.select(root, phase=phase, plan=plan)
        commits = recorded.commits(records)
        target = f"phase {phase}" if phase else f"plan {plan}"
        out = {"target": target, "dry_run": dry_run, "plans": [r.get("plan") for _p, r in records],
               "commits": [{"hash": c["hash"], "plan": c["plan"], "message": c["message"], "files": c["files"]}
                           for c in commits]}
        if not commits:
            raise OperationFailed(f"no recorded commits for {target}; undo reverts only commits msd recorded")
        reason = _check(root, commits)
        if reason:
            return _refusal(out, reason)
        # from here on the commits are what git says they hold (equal to the record once checked)
        out["commits"] = [{"hash": c["git"].hash, "plan": c["plan"], "message": c["git"].subject, "files": c["git"].files}
                          for c in commits]
        if dry_run:
            reverted = {f for c in commits for f in c["files"]}
            left = [r for r in _leftovers(root, records, bool(phase)) if r not in reverted]
            kept = tracked(root, left)
            out.update({"ok": True, "would_move": [r for r in left if r not in kept],
                        "would_leave": [r for r in left if r in kept]})
            return out
        for c in reversed(commits):
            proc = git(["revert", "--no-commit", "--no-edit", c["hash"]], root, check=False)
            if proc.returncode != 0:
                conflicted = git(["diff", "--name-only", "--diff-filter=U"], root, check=False).stdout.split()
                if git(["revert", "--abort"], root, check=False).returncode != 0:
                    git(["reset", "--merge"], root, check=False)
                return _refusal(out, f"reverting {c['hash'][:12]} conflicts with later commits msd did not record"
                                     f" ({', '.join(conflicted[:5]) or 'see git status'}); nothing was changed")
        moved, left = _put_back(root, records, bool(phase))
        state = _sync_state(root, target)
        msg = f"revert({target.split()[1]}): undo {target} ({len(commits)} recorded commit{'s' * (len(commits) != 1)})"
        proc = git(["commit", "-q", "--no-verify", "-m", msg], root, check=False)
        if proc.returncode != 0:
            git(["reset", "--merge"], root, check=False)
            raise OperationFailed(f"`git commit` of the revert failed: {proc.stderr.strip()[:200]}; the tree was reset")
        revert_hash = head(root)
        if not revert_hash:
            raise OperationFailed("the revert was committed but HEAD names no commit")
        _retire(root, records, revert_hash)
        out.update({"ok": True, "revert_commit": revert_hash, "moved": moved, "left": left, "state": state})
        return out


def _put_back(root: Path, records, whole_phase: bool) -> tuple[list[str], list[str]]:
    moved, left = [], []
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    rels = _leftovers(root, records, whole_phase)
    kept = tracked(root, rels)
    for rel in rels:
        if rel in kept:
            left.append(rel)
            continue
        from msd_core.files.private_dir import ensure_private_dir

        dest = ensure_private_dir(root) / "undone" / stamp / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(root / rel, dest)
        moved.append(rel)
    return moved, left


def _left_off(root: Path, target: str) -> bool:
    """STATE.md's session line (`Left off`, `Last worked`) set to the undo; True when written."""
    from msd_core.files.atomic import atomic_write_bytes, lock_timeout_from_env, locked
    from msd_core.planning import project
    from msd_core.planning.state import apply_patch

    path = root / ".planning" / "STATE.md"
    with locked(project.state_lock(root), lock_timeout_from_env(), what="STATE.md", anchor=root):
        raw, text = project.read_text_file(path, "STATE.md")
        new = apply_patch(text, [("set-session", f"Undid {target}")])[0].encode("utf-8")
        if new == raw:
            return False
        atomic_write_bytes(path, new, anchor=root)
    return True


def _sync_state(root: Path, target: str) -> str:
    from msd_core.errors import MsdError
    from msd_core.progress import state_sync

    state = root / ".planning" / "STATE.md"
    if not state.is_file():
        return "no STATE.md"
    try:
        session = _left_off(root, target)
        report = state_sync.sync(root)
    except MsdError as exc:
        return f"not synced: {exc.message}"
    changed = [".planning/STATE.md"] if report.get("written") or session else []
    if (report.get("roadmap") or {}).get("written"):
        changed.append(".planning/ROADMAP.md")  # its boxes follow the undone plans (lifecycle.roadmap_marks)
    staged = sorted(tracked(root, changed)) if changed else []
    if staged:
        git(["add", "--", *staged], root)
    return "synced" if changed else "in sync"


def _retire(root: Path, records, revert_hash: str) -> None:
    import json

    from msd_core.files.atomic import atomic_write_bytes

    done = run_record.runs_dir(root) / "undone"
    for path, rec in records:
        rec = dict(rec, undone_by=revert_hash, undone_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        atomic_write_bytes(done / f"{path.stem}.{revert_hash[:12]}.json",
                           (json.dumps(rec, ensure_ascii=False, indent=1) + "\n").encode("utf-8"), anchor=root)
        path.unlink()
