"""Spikes: a throwaway experiment on its own branch, its finding kept after the branch is gone.

    start   a clean working tree on a branch (not detached, not a spike branch itself): branch
            `spike/<slug>` is created from HEAD and switched to; the spike's record is kept in
            `.planning/.msd/spikes/<slug>.json` (private: it survives switching branches).
            A slug already used (an open spike, a finished one, or an existing branch) -> exit 1.
    finish  the spike's work committed on its branch (a dirty tree -> exit 1: nothing lost);
            switch back to the branch it started from; the finding is written to
            `.planning/spikes/<slug>.md` (frontmatter: question, verdict, branch, tip, base,
            the spike's commits and files, kept or removed; the finding as the body, through
            the injection screen); then the branch is kept or removed as the person chose.
            A removed branch's tip is in the file (`git branch <branch> <tip>` restores it
            while git keeps the commits).
    list    open spikes and finished ones.

Writes are atomic under `.planning/.msd/spikes.lock`. Standard library only.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError

PREFIX = "spike/"
DRAFTS = ".planning/drafts"  # the agent's drafts (msd_core.run.inputs): not the spike's work
VERDICTS = ("works", "fails", "partly", "inconclusive")
BRANCH_CHOICES = ("keep", "remove")
MAX_QUESTION = 300


def _state_dir(root: Path) -> Path:
    from msd_core.files.private_dir import ensure_private_dir

    return ensure_private_dir(root) / "spikes"


def notes_dir(root: Path) -> Path:
    return Path(root) / ".planning" / "spikes"


def _top(root: Path) -> Path:
    from msd_core.git.runner import toplevel

    return toplevel(root)


def _clean_tree(top: Path, doing: str, root: Path) -> None:
    """Refuse a tree with uncommitted changes; drafts under .planning/drafts/ do not count."""
    from msd_core.git import branches
    from msd_core.git.exclude import exclude_line

    drafts = (exclude_line(str(top), Path(root), DRAFTS) or "").lstrip("/")
    dirty = [p for p in branches.uncommitted(top) if not (drafts and (p == drafts or p.startswith(drafts + "/")))]
    if dirty:
        shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
        raise OperationFailed(f"cannot {doing}: uncommitted changes ({shown})",
                              hint="commit them (on the spike branch: its work) or stash them first")


def _read_state(path: Path) -> dict:
    try:
        from msd_core.files.bounded import read_json
        from msd_core.files.safe_read import MAX_DOC_BYTES

        data = read_json(path, path.name, MAX_DOC_BYTES)
    except (OSError, ValueError) as exc:
        raise OperationFailed(f"{path.name}: the spike's record cannot be read ({str(exc)[:80]})",
                              hint="move it aside; the branch itself is untouched") from None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("slug", "branch", "base", "question")):
        raise OperationFailed(f"{path.name}: the spike's record is not in msd's form", hint="move it aside")
    return data


def start(root: Path, question: str, slug: str | None = None) -> dict:
    from msd_core.files.atomic import atomic_write_text, lock_timeout_from_env, locked
    from msd_core.git import branches
    from msd_core.git.runner import current_branch, head

    question = " ".join((question or "").split())
    if not question:
        raise UsageError("the spike needs a question: what the experiment should find out")
    if len(question) > MAX_QUESTION:
        raise UsageError(f"the question is longer than {MAX_QUESTION} characters; put the detail in the finding")
    from msd_core.review.slugs import choose

    slug = choose(question, slug, 5, "spike")
    top = _top(root)
    base = current_branch(top)
    if base is None:
        raise OperationFailed("HEAD is detached: start a spike from a branch, so there is one to come back to")
    if base.startswith(PREFIX):
        raise OperationFailed(f"already on spike branch {base}: finish it first (`msd_run spike finish {base[len(PREFIX):]}`)")
    if head(top) is None:
        raise OperationFailed(f"branch {base} has no commit yet: commit once before a spike branches off it")
    branch = PREFIX + slug
    if not branches.valid_name(top, branch):
        raise UsageError(f"{branch} is not a valid branch name")
    state = _state_dir(root)
    with locked(state.parent / "spikes.lock", lock_timeout_from_env(), what="spikes"):
        if (state / f"{slug}.json").exists() or (notes_dir(root) / f"{slug}.md").exists():
            raise OperationFailed(f"spike {slug} exists already", hint="choose another slug", remedy="slug")
        if branches.exists(top, branch):
            raise OperationFailed(f"branch {branch} exists already", hint="delete the branch, or choose another slug", remedy="slug")
        _clean_tree(top, "start a spike", root)
        start_commit = head(top)
        branches.create(top, branch)
        record = {"slug": slug, "question": question, "branch": branch, "base": base, "start": start_commit,
                  "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        atomic_write_text(state / f"{slug}.json", json.dumps(record, indent=2) + "\n", anchor=Path(root))
    return {**record, "switched_to": branch}


def _note(rec: dict, verdict: str, tip: str, commits: list, files: list, kept: bool, finding: str) -> str:
    from msd_core.planning.outside_text import clean, yaml_str

    lines = ["---", f"spike: {yaml_str(rec['slug'])}", f"question: {yaml_str(rec['question'], MAX_QUESTION)}",
             f"verdict: {verdict}", f"branch: {yaml_str(rec['branch'])}", f"branch_kept: {'true' if kept else 'false'}",
             f"tip: {tip}", f"base: {yaml_str(rec['base'])}", f"started: {rec.get('started', '')}",
             f"finished: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}"]
    lines.append("commits:" if commits else "commits: []")
    lines += [f"  - {yaml_str(c['hash'][:12] + ' ' + c['subject'], 220)}" for c in commits]
    lines.append("files:" if files else "files: []")
    lines += [f"  - {yaml_str(f, 300)}" for f in files]
    lines.append("---")
    restore = "" if kept else f"\nThe branch was removed; `git branch {rec['branch']} {tip}` restores it while git keeps the commits.\n"
    body = f"# Spike: {rec['question']}\n\nVerdict: **{verdict}**\n{restore}\n## Finding\n\n{clean(finding).strip()}\n"
    return "\n".join(lines) + "\n" + body


def finish(root: Path, slug: str, finding: bytes, verdict: str, branch_choice: str, *, screen=None) -> dict:
    from msd_core.files.atomic import lock_timeout_from_env, locked
    from msd_core.git import branches
    from msd_core.git.runner import current_branch
    from msd_core.planning.outside_text import save
    from msd_core.review.slugs import SLUG_RE

    if not SLUG_RE.match(slug or ""):
        raise UsageError(f"{(slug or '')[:60]!r} is not a spike slug (see `msd_run spike list`)")
    if verdict not in VERDICTS:
        raise UsageError(f"{verdict!r} is not one of {', '.join(VERDICTS)}", about="verdict")
    if branch_choice not in BRANCH_CHOICES:
        raise UsageError(f"{branch_choice!r} is not keep or remove", about="branch_choice")
    text = finding.decode("utf-8", errors="replace")
    if not text.strip():
        raise UsageError("the finding is empty: write what the spike found out")
    state = _state_dir(root)
    path = state / f"{slug}.json"
    with locked(state.parent / "spikes.lock", lock_timeout_from_env(), what="spikes"):
        if not path.is_file():
            raise OperationFailed(f"no open spike {slug}", hint="`msd_run spike list` shows them")
        rec = _read_state(path)
        top = _top(root)
        tip = branches.tip(top, rec["branch"])
        if tip is None:
            raise OperationFailed(f"branch {rec['branch']} is gone: the spike's work cannot be read",
                                  hint="restore the branch, or move the record aside")
        _clean_tree(top, f"finish spike {slug}", root)
        commits = branches.commits_between(top, rec["base"], rec["branch"])
        files = branches.files_between(top, rec["base"], rec["branch"])
        if current_branch(top) != rec["base"]:
            branches.switch(top, rec["base"])
        note = notes_dir(root) / f"{slug}.md"
        save(root, note, _note(rec, verdict, tip, commits, files, branch_choice == "keep", text), screen=screen)
        if branch_choice == "remove":
            branches.delete(top, rec["branch"])
        path.unlink()
    rel = note.relative_to(root).as_posix()
    return {"slug": slug, "file": rel, "verdict": verdict, "branch": rec["branch"], "branch_kept": branch_choice == "keep",
            "tip": tip, "commits": len(commits), "files": files[:50], "switched_to": rec["base"], "commit_files": [rel]}


def list_spikes(root: Path) -> dict:
    from msd_core.files.safe_read import read_head
    from msd_core.planning.frontmatter import split_frontmatter

    state = Path(root) / ".planning" / ".msd" / "spikes"
    open_ = []
    for p in sorted(state.glob("*.json")) if state.is_dir() else []:
        try:
            rec = _read_state(p)
        except OperationFailed as exc:
            open_.append({"slug": p.stem, "error": exc.message})
            continue
        open_.append({k: rec.get(k) for k in ("slug", "question", "branch", "base", "started")})
    done = []
    folder = notes_dir(root)
    for p in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        try:
            data, _body, error = split_frontmatter(read_head(p, 64 * 1024, follow_symlinks=False).decode("utf-8", "replace"))
        except OSError:
            continue
        if isinstance(data, dict) and not error:
            done.append({"slug": p.stem, "file": p.relative_to(root).as_posix(), "question": data.get("question"),
                         "verdict": data.get("verdict"), "branch_kept": data.get("branch_kept")})
    return {"open": open_, "finished": done}
