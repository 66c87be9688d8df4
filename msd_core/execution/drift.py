"""Drift: code that changed outside the workflow since msd last looked (`msd_run drift`).

`drift(root)` reads the current milestone's plans (declared `files_modified`, must-haves
artifacts, key-link endpoints, requirement IDs), each phase's verification commit (`tests_commit:`
in the VERIFICATION file's machine part), the run records and `.planning/drift-accepted.md`, then
reads git's history in ONE pass: `git log -M --name-status` from the oldest relevant commit (the
merge base of the verification commits and the first commit carrying an `Msd-Plan:` trailer) to
HEAD. A process per commit is never started. It reports four kinds of findings, each naming the
command that deals with it (docs/CONTRACTS.md, "Drift"):

  outside-commit      a commit not made through the workflow: no `Msd-Plan:` line anywhere in its
                      message (a squash of msd commits keeps them; a cherry-pick carries them),
                      not in a run record, not a planning-docs commit (every file under
                      `.planning/`), not `msd_run undo`'s revert, not a merge (a merge's own diff
                      is its parents' commits, each judged), not accepted. Reported while it
                      touches a file of a phase whose verification does not contain it
                      (`msd_run verify N` settles it), or, touching no plan's file, while no
                      verification contains it. Listed with its files, and each file's plans and
                      requirements.
  stale-verification  a verified phase whose declared or key-link files changed in a commit the
                      verification's commit does not contain (accepted commits left out); a
                      verification made on a commit no longer in this history (rebased) is
                      compared by one `git diff` of trees.
  missing-file        an executed plan (it has a SUMMARY) names a file that does not exist; a
                      rename git detected in the history is followed to the new path
                      (`renamed_to`), or the commit that deleted it is named.
  requirement-gone    a requirement of a phase whose plans' artifacts and declared files are all
                      gone.

`accept(root, commit, reason)` records a commit in `.planning/drift-accepted.md` (committed with
the project, so a CI clone and a teammate see the same acceptances). Every run keeps its figure
for HEAD in `.planning/.msd/drift.json` (msd_core.planning.drift_count), and what the history read
gave in `.planning/.msd/drift-state.json`, so the next run after a commit reads only the new commits
when that gives the same answer (msd_core.execution.drift_state). Standard library only.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError

ACCEPTED_FILE = "drift-accepted.md"
MAX_ACCEPTED = 4 * 1024 * 1024
_UNDO_SUBJECT = re.compile(r"^revert\([^)]*\): undo (?:plan|phase) ")
_REVERTS = re.compile(r"^This reverts commit ([0-9a-f]{7,64})", re.M)
_ACCEPTED_LINE = re.compile(r"^- ([0-9a-f]{40,64})\b[ \t]*(.*)$", re.M)
_HASH = re.compile(r"[0-9a-f]{40,64}")
_TESTS_COMMIT = re.compile(r"^tests_commit:\s*([0-9a-f]{40,64})\b", re.M)
HEADER = ("# Drift accepted\n\nCommits made outside the workflow, reviewed and accepted with a reason "
          "(`msd_run drift accept <commit> --reason \"...\"`). `msd_run drift` does not report them. "
          "One line each: `- <commit> <reason> (accepted <date>)`.\n\n")


class Commit:
    __slots__ = ("hash", "parents", "subject", "plans", "changes", "reverts")

    def __init__(self, hash, parents, subject, plans, changes, reverts):
        self.hash, self.parents, self.subject, self.plans = hash, parents, subject, plans
        self.changes, self.reverts = changes, reverts  # changes: [(status, path, old path or None)]

    @property
    def files(self) -> list[str]:
        out = []
        for _s, path, old in self.changes:
            if old:
                out.append(old)
            out.append(path)
        return out


# ------------------------------------------------------------------ git


def _git(args: list[str], root: Path):
    from msd_core.git.runner import git

    return git(args, root, check=False)


def parse_log(text: str) -> list[Commit]:
    """Commits from `git log -z -M --name-status --format=%x02%H%x1f%P%x1f%B%x03`. A commit's plans: its
    `Msd-Plan:` lines, any root's (made through the workflow), read by msd_core.git.trailers' one parser."""
    from msd_core.git.trailers import PLAN_KEY, in_message

    out: list[Commit] = []
    for chunk in text.split("\x02")[1:]:
        head, _sep, rest = chunk.partition("\x03")
        fields = head.split("\x1f", 2) + ["", ""]
        full, parents, body = fields[0].strip(), fields[1].split(), fields[2]
        subject = body.strip().splitlines()[0] if body.strip() else ""
        tokens = [t.lstrip("\n") for t in rest.split("\0")]
        tokens = [t for t in tokens if t != ""]
        changes, i = [], 0
        while i < len(tokens):
            status = tokens[i]
            if status[:1] in ("R", "C") and i + 2 < len(tokens):  # a copy (only with -C) is an addition
                changes.append(("R", tokens[i + 2], tokens[i + 1]) if status[0] == "R" else ("A", tokens[i + 2], None))
                i += 3
            elif i + 1 < len(tokens):
                changes.append((status[:1], tokens[i + 1], None))
                i += 2
            else:
                break
        out.append(Commit(full, parents, subject, in_message(body)[PLAN_KEY], changes, _REVERTS.findall(body)))
    return out


def _existing(root: Path, hashes: list[str]) -> set[str]:
    """Which of `hashes` name commits in the repository (one `git rev-list --no-walk --ignore-missing`)."""
    if not hashes:
        return set()
    proc = _git(["rev-list", "--no-walk", "--ignore-missing", *hashes, "--"], root)
    return set((proc.stdout or "").split()) & set(hashes) if proc.returncode == 0 else set()


def scope(root: Path) -> tuple[list[str], tuple[str, ...]]:
    """This project's part of the repository: (the pathspecs for git, the folders of the roots below it).

    Several `.planning/` roots in one work tree each see their own drift: a project below the work
    tree's top reads git's history of its own folder (`--relative --parents -- .`: paths as its
    plans name them, parents rewritten so ancestry holds), and a commit that touches only roots below
    the project (msd_core.progress.workspace) is theirs, not its (`own`). A project at the top
    holding no other root: ([], ()), git's history as it is."""
    from msd_core.lean.project_rule import work_tree_top
    from msd_core.progress.workspace import roots

    nested = tuple(r.relative_to(root).as_posix() + "/" for r in roots(root)[0] if r != root)
    top = work_tree_top(str(root))
    return ([] if top is None or Path(top) == Path(root) else ["."]), nested


def _scoped(args: list[str], where: list[str]) -> list[str]:
    """`args` ending in "--", limited to the project's folder when `where` (scope's pathspecs) says so."""
    return [*args[:-1], "--relative", "--parents", "--", *where] if where else args


def own(history: list, nested: tuple[str, ...]) -> list:
    """The commits that are this project's: not those whose every file lies in a root below it."""
    if not nested:
        return history
    return [c for c in history if not (c.changes and all(f.startswith(nested) for f in c.files))]


def _shallow(root: Path) -> bool:
    """A shallow clone: git's `shallow` file in the common git directory (no git process), or git's
    own answer when git's files do not settle where that directory is."""
    import os

    from msd_core.git import repo_files

    try:
        lay = repo_files.layout(root)
    except (repo_files.Unsure, OSError):
        lay = None
    if lay is not None:
        try:
            return os.path.getsize(os.path.join(lay.common, "shallow")) > 0
        except OSError:
            return False
    return (_git(["rev-parse", "--is-shallow-repository"], root).stdout or "").strip() == "true"


def _first_msd_commit(root: Path, where: list[str] | None = None) -> str | None:
    proc = _git(["rev-list", "--topo-order", "--grep=^[[:space:]]*Msd-Plan: ", "HEAD", "--", *(where or [])], root)
    lines = (proc.stdout or "").split()
    return lines[-1] if proc.returncode == 0 and lines else None


def _base(root: Path, candidates: list[str]) -> str | None:
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0]
    proc = _git(["merge-base", "--octopus", *candidates], root)
    found = (proc.stdout or "").strip()
    return found if proc.returncode == 0 and _HASH.fullmatch(found) else None


def read_history(root: Path, base: str | None, where: list[str] | None = None, rev: list[str] | None = None) -> list[Commit]:
    """The commits from `base` (itself included) to HEAD, newest first, in one `git log` (`where`: scope;
    `rev`: another range, e.g. `old..new`)."""
    fmt = "--format=%x02%H%x1f%P%x1f%B%x03"
    rev = rev or (["HEAD", "--not", f"{base}^@"] if base else ["HEAD"])
    proc = _git(_scoped(["log", "-z", "-M", "--no-color", "--name-status", fmt, *rev, "--"], where or []), root)
    if proc.returncode != 0:
        raise OperationFailed(f"`git log` failed: {(proc.stderr or '').strip()[:200] or 'no message'}")
    return parse_log(proc.stdout)


def _ancestors(start: str, by_hash: dict[str, Commit]) -> set[str]:
    """`start` and its ancestors among the logged commits (no git call)."""
    seen: set[str] = set()
    stack = [start]
    while stack:
        h = stack.pop()
        if h in seen or h not in by_hash:
            continue
        seen.add(h)
        stack.extend(by_hash[h].parents)
    return seen


# ------------------------------------------------------------------ the project's side


class PlanFacts:
    __slots__ = ("pid", "phase", "phase_dir", "rel", "files", "requirements", "executed", "artifacts")

    def __init__(self, pid, phase, phase_dir, rel, files, requirements, executed, artifacts):
        self.pid, self.phase, self.phase_dir, self.rel = pid, phase, phase_dir, rel
        self.files, self.requirements, self.executed, self.artifacts = files, requirements, executed, artifacts


class PhaseFacts:
    __slots__ = ("number", "dirname", "requirements", "plans", "verified", "verification")

    def __init__(self, number, dirname, requirements, plans, verified, verification):
        self.number, self.dirname, self.requirements, self.plans = number, dirname, requirements, plans
        self.verified, self.verification = verified, verification


def _clean(path: str) -> str:
    from msd_core.planning.plan import normalize_declared

    return normalize_declared(str(path).strip())


def read_phases(root: Path, notes: list[str]) -> list[PhaseFacts]:
    """The current milestone's phases: each plan's files and requirements, each phase's requirements
    (ROADMAP.md and REQUIREMENTS.md's traceability) and verification commit."""
    from msd_core.execution import phase_files
    from msd_core.planning.discovery import phase_dirs
    from msd_core.planning.requirements import phase_requirements
    from msd_core.progress.evidence import declared

    planning = root / ".planning"
    docs = {name: phase_files.read(planning / name, root, []) if (planning / name).is_file() else None
            for name in ("ROADMAP.md", "REQUIREMENTS.md")}
    out = []
    for pd in phase_dirs(planning):
        if pd.milestone is not None or pd.number is None:
            continue
        try:
            files = phase_files.load(root, pd.name)
        except (UsageError, OperationFailed) as exc:
            notes.append(f"{pd.name}: {exc.message}")
            continue
        notes.extend(f"{rel}: {why}" for rel, why in files.unreadable)
        plans = []
        for pf in files.plans:
            kept = [*declared(pf.text), *(_clean(a.path) for a in pf.must.artifacts)]
            links = [_clean(p) for link in pf.must.key_links for p in (link.source, link.target)]
            executed = (files.folder / f"{pf.pid}-SUMMARY.md").is_file()
            plans.append(PlanFacts(pf.pid, files.phase.id, pd.name, pf.rel, [n for n in dict.fromkeys(kept + links) if n],
                                   pf.requirement_ids, executed, [n for n in dict.fromkeys(kept) if n]))
        reqs = list(files.requirements)
        if docs["REQUIREMENTS.md"]:
            reqs += [r for r in phase_requirements(docs["ROADMAP.md"] or "", docs["REQUIREMENTS.md"], files.phase.number)
                     if r not in reqs]
        verified, where = _verification(files.folder, files.phase.id, root, notes)
        out.append(PhaseFacts(files.phase.id, pd.name, reqs, plans, verified, where))
    return out


def _verification(folder: Path, pid: str, root: Path, notes: list[str]) -> tuple[str | None, str | None]:
    """(the commit the phase's verification ran on, the file's path) from its machine part."""
    from msd_core.execution.phase_files import read, rel_to
    from msd_core.planning import check_status

    path = folder / f"{pid}-VERIFICATION.md"
    if not path.is_file():
        return None, None
    text = read(path, root, [])
    found = check_status.find_block(text or "")
    if not found:
        notes.append(f"{rel_to(path, root)}: no machine part; its phase is not checked for a stale verification")
        return None, rel_to(path, root)
    if not found[3]:
        notes.append(f"{rel_to(path, root)}: its machine part was edited by hand (digest mismatch); its tests_commit is "
                     f"not trusted: run `msd_run verify {pid}`")
        return None, rel_to(path, root)
    m = _TESTS_COMMIT.search(found[2])
    if m is None:
        notes.append(f"{rel_to(path, root)}: its machine part records no tests_commit; run `msd_run verify {pid}`")
    return (m.group(1) if m else None), rel_to(path, root)


def _recorded_hashes(root: Path) -> set[str]:
    from msd_core.execution import run_record

    out = set()
    for _path, rec, _why in run_record.read_all(root):
        for c in (rec or {}).get("commits", []):
            h = c.get("hash") if isinstance(c, dict) else None
            if isinstance(h, str) and _HASH.fullmatch(h):
                out.add(h)
    return out


def accepted(root: Path) -> dict[str, str]:
    """{commit: reason} from `.planning/drift-accepted.md` ({} when there is none)."""
    from msd_core.planning.project import read_text_file

    path = root / ".planning" / ACCEPTED_FILE
    if not path.exists() and not path.is_symlink():
        return {}
    text = read_text_file(path, "drift acceptance file", MAX_ACCEPTED, strict_utf8=False)[1]
    return {m.group(1): m.group(2).strip() for m in _ACCEPTED_LINE.finditer(text)}


class Owners:
    """Which plans name a path: exact paths from a dict, declared folders (`src/auth/`) by prefix."""

    def __init__(self, plans: list[PlanFacts]):
        self.exact: dict[str, list[PlanFacts]] = {}
        self.folders: list[tuple[str, PlanFacts]] = []
        for p in plans:
            for f in p.files:
                if f.endswith("/"):
                    self.folders.append((f, p))
                else:
                    self.exact.setdefault(f, []).append(p)

    def __call__(self, path: str) -> list[PlanFacts]:
        found = self.exact.get(path, [])
        if self.folders:
            found = found + [p for f, p in self.folders if path.startswith(f) and p not in found]
        return found


def _exists(root: Path, rel: str, memo: dict) -> bool:
    """`rel` exists under `root` (a folder when it ends in "/"); True when it leaves the project
    (absolute, `..`, a symlink on the way: not msd's to judge here). Answers, and which folders on the
    way are symlinks, are kept for the run in `memo` (the plans name the same files and folders many times)."""
    key = (str(root), rel)
    if key not in memo:
        from msd_core.execution.verify import _inside

        p = _inside(root, rel, memo.setdefault("links", {}))
        memo[key] = True if p is None else (p.is_dir() if rel.endswith("/") else p.exists())
    return memo[key]



# ------------------------------------------------------------------ the findings


def _workflow(c: Commit, recorded: set[str]) -> str | None:
    """Why `c` counts as made through the workflow, or None."""
    if c.plans:
        return "msd-plan"
    if c.hash in recorded:
        return "run-record"
    return _intrinsic(c)


def _intrinsic(c: Commit) -> str | None:
    """Why `c` counts as workflow by what it is, whatever the run records say (a trailer too), or None."""
    if c.plans:
        return "msd-plan"
    if len(c.parents) > 1:
        return "merge"
    if _UNDO_SUBJECT.match(c.subject):
        return "undo"
    files = c.files
    if files and all(f.startswith(".planning/") for f in files):
        return "planning-docs"
    return None


def drift(root: Path, main: Path | None = None) -> dict:
    """The findings for the working tree at `root` (its HEAD, its `.planning/`); `main`: the main
    checkout, where the run records are (default `root`)."""
    from msd_core.git.runner import head

    notes: list[str] = []
    tip = head(root)
    if tip is None:
        raise OperationFailed(f"{root} has no git commit to compare with", hint="drift reads git's history")
    from msd_core.execution import drift_state

    saved = drift_state.load(root)
    stamp = drift_state.planning_stamp(root)
    kept = drift_state.kept_phases(saved, stamp, PhaseFacts, PlanFacts)
    if kept is None:
        phases = read_phases(root, notes)
        kept = (phases, list(notes))
    else:
        phases = kept[0]
        notes.extend(kept[1])
    plans = [p for ph in phases for p in ph.plans]
    ok_commits = accepted(root)
    recorded = _recorded_hashes(main or root)
    verif = {ph.number: ph.verified for ph in phases if ph.verified}
    where, nested = scope(root)
    part, present = _history_part(root, saved, tip, phases, verif, ok_commits, where, nested,
                                  drift_state.dump_phases(stamp, *kept))
    for ph in phases:
        if ph.verified and ph.verified not in present:
            notes.append(f"phase {ph.number}: its verification commit {ph.verified[:12]} is not in the repository")
    if _shallow(root):
        notes.append("this clone is shallow: drift reads only the history it holds "
                     "(`git fetch --unshallow`, or a CI checkout with the full history)")
    base = part.base
    findings: list[dict] = _outside_of(part, plans, phases, verif, recorded, ok_commits)
    findings += _stale(root, phases, part.changed, ok_commits, present, where)
    seen: dict = {}
    findings += _missing(root, phases, part.moved, part.deleted, seen)
    findings += _requirements_gone(root, phases, part.moved, seen)
    out = {"head": tip, "since": base, "commits_read": part.read, "accepted": len(ok_commits),
           "findings": findings, "count": len(findings), "clean": not findings}
    if notes:
        out["notes"] = notes
    from msd_core.planning import drift_count

    drift_count.store(root, out)  # the figure `next` and the status line read for this HEAD
    return out


def _history_part(root, saved, tip, phases, verif, ok_commits, where, nested, keep):
    """(what git's history contributes to the findings, the verification commits the repository holds):
    the `saved` part extended by the commits since its HEAD when that gives the same answer
    (msd_core.execution.drift_state), else read in full. `keep`: the phases as drift_state keeps them.

    Verification commits the saved history held need no `git rev-list` to be known present when the
    part extends: they are ancestors of the saved HEAD, which HEAD descends from. Otherwise git says."""
    from msd_core.execution import drift_state

    wanted = set(verif.values())
    inside = set(saved["part"].inside) if saved is not None else set()
    sure = not wanted or not wanted <= inside
    present = (_existing(root, sorted(wanted)) if wanted else set()) if sure else wanted
    facts = drift_state.fingerprint(phases, ok_commits, where, nested, present)
    found = drift_state.extend(root, saved, tip, facts, wanted, where, lambda rev: read_history(root, None, where, rev=rev))
    if found is None:
        if not sure:
            present = _existing(root, sorted(wanted))
            facts = drift_state.fingerprint(phases, ok_commits, where, nested, present)
        part = _full_part(root, phases, verif, present, ok_commits, where, nested)
    else:
        part = _extend_part(found[0], found[1], phases, ok_commits, nested)
    if part.first is not None:
        drift_state.save(root, tip, facts, part, keep)
    return part, present


def _full_part(root, phases, verif, present, ok_commits, where, nested):
    from msd_core.execution.drift_state import Part

    first = _first_msd_commit(root, where)
    candidates = sorted(set(v for v in verif.values() if v in present) | ({first} if first else set()))
    base = _base(root, candidates)
    history = read_history(root, base, where) if candidates else []
    by_hash = {c.hash: c for c in history}
    contained = {v: _ancestors(v, by_hash) for v in set(verif.values()) if v in by_hash}
    cands = [_cand(c, contained) for c in own(history, nested) if _intrinsic(c) is None]
    moved, deleted = _renames(history)
    return Part(base, first, len(history), sorted(contained), cands, _changed(history, phases, contained, ok_commits),
                moved, deleted)


def _extend_part(saved, new, phases, ok_commits, nested):
    """`saved` (a Part) with the `new` commits (newest first, none of them in any verification)."""
    from msd_core.execution.drift_state import Part

    contained: dict[str, set[str]] = {v: set() for ph in phases if (v := ph.verified) and ph.number in saved.changed}
    cands = [_cand(c, {}) for c in own(new, nested) if _intrinsic(c) is None] + saved.cands
    fresh = _changed(new, phases, contained, ok_commits)
    changed = {n: {f: fresh.get(n, {}).get(f, []) + saved.changed[n].get(f, [])
                   for f in {**fresh.get(n, {}), **saved.changed[n]}} for n in saved.changed}
    moved, deleted = _renames(new, dict(saved.moved), dict(saved.deleted))
    return Part(saved.base, saved.first, saved.read + len(new), saved.inside, cands, changed, moved, deleted)


def _cand(c: Commit, contained: dict[str, set[str]]) -> list:
    """A commit that may be outside the workflow, as the saved part keeps it (drift_state)."""
    return [c.hash, c.subject, [list(x) for x in c.changes], c.reverts, sorted(v for v, anc in contained.items() if c.hash in anc)]


def _outside_of(part, plans, phases, verif, recorded, ok_commits) -> list[dict]:
    """The outside-commit findings among the part's candidates, judged with today's records and acceptances."""
    commits: list[Commit] = []
    contained: dict[str, set[str]] = {v: set() for v in part.inside}
    for h, subject, changes, reverts, inside in part.cands:
        commits.append(Commit(h, [], subject, [], [tuple(x) for x in changes], reverts))
        for v in inside:
            contained.setdefault(v, set()).add(h)
    return _outside(commits, plans, phases, verif, contained, recorded, ok_commits)


def _outside(history, plans, phases, verif, contained, recorded, ok_commits) -> list[dict]:
    by_phase = {ph.number: ph for ph in phases}
    owners_of = Owners(plans)
    anything_verified = [h for h in contained.values()]
    out = []
    for c in history:
        if c.hash in ok_commits or _workflow(c, recorded):
            continue
        files, owning = [], {}
        for status, path, old in c.changes:
            owners = owners_of(path) + (owners_of(old) if old else [])
            for p in owners:
                owning[p.phase] = by_phase.get(p.phase)
            files.append({"path": path, "status": status, **({"from": old} if old else {}),
                          "plans": sorted({p.pid for p in owners}),
                          "requirements": sorted({r for p in owners for r in p.requirements})})
        if owning:
            left = [n for n in owning if not (verif.get(n) in contained and c.hash in contained[verif[n]])]
            if not left:
                continue
            cmds = [f"msd_run verify {n}" for n in sorted(left)] + [_accept_cmd(c.hash)]
            why = (f"commit {c.hash[:12]} ({c.subject[:60]}) was made outside the workflow and changes files of "
                   f"phase{'s' * (len(left) > 1)} {', '.join(sorted(left))}")
        else:
            if any(c.hash in anc for anc in anything_verified):
                continue
            cmds = [_accept_cmd(c.hash), "/msd-quick"]
            why = f"commit {c.hash[:12]} ({c.subject[:60]}) was made outside the workflow"
        paths = [f["path"] for f in files]
        why += f" ({', '.join(paths[:3])}{', ...' if len(paths) > 3 else ''})" if paths else ""
        entry = {"kind": "outside-commit", "commit": c.hash, "subject": c.subject, "files": files,
                 "phases": sorted(owning), "command": cmds[0], "commands": cmds, "message": why}
        if c.reverts:
            entry["reverts"] = c.reverts[0]
            entry["message"] += f"; it reverts {c.reverts[0][:12]} by hand (`msd_run undo` reverts a plan's commits)"
        out.append(entry)
    return out


def _accept_cmd(h: str) -> str:
    return f'msd_run drift accept {h[:12]} --reason "<why>"'


def _watched(ph: PhaseFacts) -> Owners | None:
    """The files a verified phase's verification covers, or None when it names none."""
    watched = Owners(ph.plans)
    return watched if ph.plans and (watched.exact or watched.folders) else None


def _changed(history, phases, contained, ok_commits) -> dict[str, dict[str, list[str]]]:
    """{phase: {file: [commits]}}: for each phase verified on a commit of `history` (`contained`), its
    watched files changed in a commit the verification does not contain (accepted ones left out)."""
    out: dict[str, dict[str, list[str]]] = {}
    for ph in phases:
        v = ph.verified
        watched = _watched(ph) if v in contained else None
        if watched is None:
            continue
        inside, changed = contained[v], out.setdefault(ph.number, {})
        for c in history:
            if c.hash in inside or c.hash in ok_commits:
                continue
            for f in c.files:
                if watched(f):
                    changed.setdefault(f, []).append(c.hash)
    return out


def _stale(root, phases, in_history, ok_commits, present, where=()) -> list[dict]:
    """The stale verifications: `in_history` (`_changed`) for phases verified in the history read, one
    `git diff` of trees for a phase verified on a commit no longer in it (rebased, reset)."""
    out = []
    for ph in phases:
        v = ph.verified
        watched = _watched(ph)
        if not v or v not in present or watched is None:
            continue
        if ph.number in in_history:
            changed, rebased = in_history[ph.number], False
        else:
            changed = {}
            proc = _git(["diff", "-M", "--name-only", "-z", v, "HEAD", *(["--relative", "--", *where] if where else ["--"])], root)
            for f in (p for p in (proc.stdout or "").split("\0") if p):
                if watched(f):
                    changed.setdefault(f, [])
            rebased = True
        if not changed:
            continue
        n = ph.number
        at = "a commit no longer in this branch's history" if rebased else v[:12]
        out.append({"kind": "stale-verification", "phase": n, "verified_commit": v, "rebased": rebased,
                    "verification": ph.verification,
                    "files": sorted(changed), "commits": sorted({h for hs in changed.values() for h in hs}),
                    "command": f"/msd-verify-work {n}", "commands": [f"/msd-verify-work {n}", f"msd_run verify {n}"],
                    "message": f"phase {n} was verified on {at}; since then {len(changed)} of its files changed "
                               f"({', '.join(sorted(changed)[:3])}{', ...' if len(changed) > 3 else ''})"})
    return out


def _renames(history: list[Commit], moved: dict | None = None, deleted: dict | None = None
             ) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    """({old path: (new path, commit)}, {deleted path: commit}) over the history, oldest first, on top of
    the ones an older history gave (`moved`, `deleted`)."""
    moved = {} if moved is None else moved
    deleted = {} if deleted is None else deleted
    for c in reversed(history):
        for status, path, old in c.changes:
            if status == "R" and old:
                moved[old] = (path, c.hash)
                deleted.pop(path, None)
            elif status == "D":
                deleted[path] = c.hash
            elif status == "A":
                deleted.pop(path, None)
    return moved, deleted


def _follow(path: str, moved: dict) -> tuple[str | None, str | None]:
    seen, at, by = set(), path, None
    while at in moved and at not in seen:
        seen.add(at)
        at, by = moved[at]
    return (at, by) if at != path else (None, None)


def _missing(root, phases, moved, deleted, seen) -> list[dict]:
    out = []
    for ph in phases:
        for p in ph.plans:
            for f in p.files:
                if _exists(root, f, seen) or not (p.executed or f in deleted or f in moved):
                    continue
                new, by = _follow(f.rstrip("/"), moved) if not f.endswith("/") else _folder_move(f, moved)
                n = ph.number
                entry = {"kind": "missing-file", "phase": n, "plan": p.pid, "plan_file": p.rel, "path": f,
                         "command": f"/msd-plan-phase {n} --gaps", "commands": [f"/msd-plan-phase {n} --gaps"]}
                if new and _exists(root, new, seen):
                    entry.update({"renamed_to": new, "commit": by,
                                  "message": f"plan {p.pid} names {f}, renamed to {new} in {by[:12]}"})
                else:
                    gone_in = deleted.get(f)
                    if gone_in:
                        entry["commit"] = gone_in
                    entry["message"] = (f"plan {p.pid} names {f}, which no longer exists"
                                        + (f" (deleted in {gone_in[:12]})" if gone_in else ""))
                out.append(entry)
    return out


def _folder_move(folder: str, moved: dict) -> tuple[str | None, str | None]:
    for old, (new, by) in moved.items():
        if old.startswith(folder):
            rest = old[len(folder):]
            if new.endswith(rest):
                return new[: len(new) - len(rest)], by
    return None, None


def _present(root: Path, rel: str, moved: dict, seen: dict) -> bool:
    """`rel` exists, or a rename in the history leads to a path that exists."""
    if _exists(root, rel, seen):
        return True
    new, _by = _follow(rel, moved) if not rel.endswith("/") else _folder_move(rel, moved)
    return bool(new) and _exists(root, new, seen)


def _requirements_gone(root, phases, moved, seen) -> list[dict]:
    """A requirement is gone when every artifact mapped to it is gone: a renamed one is not."""
    out = []
    for ph in phases:
        for rid in ph.requirements:
            mapped = [f for p in ph.plans if rid in p.requirements and p.executed for f in p.artifacts]
            if mapped and not any(_present(root, f, moved, seen) for f in mapped):
                n = ph.number
                out.append({"kind": "requirement-gone", "phase": n, "requirement": rid, "artifacts": sorted(set(mapped)),
                            "command": f"/msd-plan-phase {n} --gaps", "commands": [f"/msd-plan-phase {n} --gaps"],
                            "message": f"requirement {rid} of phase {n}: every artifact mapped to it is gone"})
    return out


def text_lines(result: dict) -> str:
    lines = [f"{f['kind']} {f['message']} -> {f['command']}" for f in result["findings"]]
    lines.append(f"drift: {result['count']} finding{'s' * (result['count'] != 1)} "
                 f"({result['commits_read']} commits read, {result['accepted']} accepted)")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ accepting a commit


def accept(root: Path, commit: str, reason: str) -> dict:
    """Record `commit` (any name git resolves) with `reason` in `.planning/drift-accepted.md`."""
    from msd_core.files.atomic import atomic_write_text, lock_timeout_from_env, locked
    from msd_core.files.private_dir import ensure_private_dir

    why = " ".join((reason or "").split())
    if not why:
        raise UsageError("say why the commit is accepted", about="reason")
    if not re.fullmatch(r"[A-Za-z0-9._/~^-]{1,200}", commit or "") or commit.startswith("-"):
        raise UsageError(f"{commit!r} does not name a commit")
    from msd_core.git.runner import head

    if head(root) is None:  # not the argument's fault: there is no history to accept a commit of
        raise OperationFailed(f"{root} has no git commit to accept", hint="drift reads git's history")
    proc = _git(["rev-parse", "--verify", "-q", f"{commit}^{{commit}}"], root)
    full = (proc.stdout or "").strip()
    if proc.returncode != 0 or not _HASH.fullmatch(full):
        raise UsageError(f"{commit!r} names no commit of this repository")
    path = root / ".planning" / ACCEPTED_FILE
    rel = path.relative_to(root).as_posix()
    with locked(ensure_private_dir(root) / "drift.lock", lock_timeout_from_env(), what="the drift acceptance file"):
        known = accepted(root)
        if full in known:
            return {"commit": full, "accepted": False, "already": True, "reason": known[full], "file": rel}
        if path.exists():
            from msd_core.planning.project import read_text_file

            text = read_text_file(path, "drift acceptance file", MAX_ACCEPTED, strict_utf8=False)[1]
            text = text if text.endswith("\n") or not text else text + "\n"
        else:
            text = HEADER
        day = time.strftime("%Y-%m-%d", time.gmtime())
        text += f"- {full} {why} (accepted {day})\n"
        atomic_write_text(path, text)
    return {"commit": full, "accepted": True, "reason": why, "file": rel,
            "next": f'msd_run commit --files {rel} -m "docs(drift): accept {full[:12]}"'}
