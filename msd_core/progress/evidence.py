"""Whether a summarised plan is proven done: the evidence `lifecycle.executed` asks for, so a plan is not
called done on an agent's word.

A plan is complete when msd has seen all of:

1. its SUMMARY (the phase folder's `<plan>-SUMMARY.md`: lifecycle reads that);
2. at least one commit recorded for it by `msd_run commit --plan` (its run record,
   `.planning/.msd/runs/<phase-dir>__<plan-id>.json`, msd_core.execution.run_record, in the
   main checkout: a linked worktree's `.git` file leads there);
3. recorded commits that together touch every path its frontmatter `files_modified` declares
   (a declared folder `src/auth/` is touched by any file under it), or a recorded deviation
   (a commit made with `--deviation "<why>"`) saying why a declared path was left.

Which plans need it: every plan of a project msd wrote, from its first command, in every clone of it
(a project begun elsewhere has plans no commit of msd's recorded). The
marker `.planning/.msd/evidence.json` (`{"since": <epoch seconds>, "cutoff": {"<phase-dir>/<plan-id>":
"<sha256 of its SUMMARY>", ...}}`) is written once (`begin`), when msd creates the project (`msd init new-project`, or the
new-project flow's first `msd_run config set` that creates `.planning/config.json`), when a person
adopts an older project (`msd_run evidence adopt`), and, for a tree that came to msd neither way,
by its first `msd_run wave plan` or `msd_run commit --plan`. `cutoff` lists the plans summarised
when the marker was written, each with its SUMMARY's sha256 (of its text with LF line ends, so a clone
whose git checks it out with CRLF reads it the same): those, and only while their SUMMARY
is unchanged, are taken on their word; every other SUMMARY needs the evidence, whenever its file was
written, copied or checked out (a file's time is not asked). A marker without `cutoff`
(written by an older msd) exempts SUMMARYs written before `since`.

`.planning/.msd/` is git-ignored, so what a fresh clone knows comes from what is committed
(msd_core.progress.committed_evidence): creation and adoption also write the marker into
`.planning/config.json` as its `evidence` record, and, without one, msd's `Msd-Plan:` commits in
the history reachable from HEAD imply it (cutoff: the SUMMARYs in the tree before the oldest of
them, unchanged since). A clone's first `begin` copies that committed marker (never the plans
summarised then). Only a tree with none of these (msd never wrote it; a shallow clone cut at
msd's first commit with no record) is taken on its SUMMARYs: `msd_run evidence status` says which,
and from where (`source`: clone, config, history).

The run record is the evidence read first (a JSON read per plan, no git call: `next` stays
fast). A plan it does not prove is then looked up in git, once per process for all plans: the
commits reachable from HEAD whose `Msd-Plan: <phase-dir>/<plan-id>` trailer names it (and
`Msd-Deviation:`), as `msd_run commit --plan` writes them. Run records stay in the clone that
made them (`.planning/.msd/` is never committed), so a teammate's plan merged in is proven by
its commits, never sent back to be executed again. The same log tells a tree without a marker
whether msd wrote it (`Reading.asks`, read only when a SUMMARY is met; no git call per plan).
A plan renumbered since its commits (`msd_run phase reconcile`: `04-billing/04-01` became
`05-billing/05-01`) is proven by the commits its old name's trailer names, when only one name fits
(`renumbered`: same phase slug and plan number in its phase, one phase with that slug now) and git
traces the plan's PLAN from that name to this one (progress.plan_moves: moved, not removed and reused).
Undo and wave merge check each recorded commit against git itself (msd_core.execution.provenance).
Nothing here writes except `begin` (and `mark_since`, its quiet form, which with `publish` also
writes config.json's record). Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from msd_core import paths

SINCE_FILE = "evidence.json"
MAX_RECORD = 4 * 1024 * 1024  # a run record's size cap (msd_core.execution.run_record reads it from here)
MAX_MARKER = 1024 * 1024  # the evidence marker's cap (its cutoff lists every plan summarised before msd)
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_HASH = re.compile(r"[0-9a-f]{7,64}")


def main_root(root: Path) -> Path:
    """The project at `root` as the main checkout holds it (msd_core.git.repo_files.main_project)."""
    from msd_core.git.repo_files import main_project

    return main_project(root)


def _private(main: Path) -> dict | None:
    """This clone's own marker (`.planning/.msd/evidence.json`); None when absent, unreadable or damaged."""
    from msd_core.files.bounded import loads_json
    from msd_core.files.safe_read import read_regular
    from msd_core.progress.committed_evidence import parse

    try:
        data = loads_json(read_regular(paths.project_state_dir(main) / SINCE_FILE, MAX_MARKER, follow_symlinks=False),
                          "the evidence marker")
    except (OSError, ValueError):
        return None
    found = parse(data, need_cutoff=False)
    if found is not None:
        found["source"] = "clone"
    return found


def marker(main: Path) -> dict | None:
    """The evidence marker in force: {"since": float, "cutoff": {"<phase-dir>/<plan-id>": SUMMARY sha256} or None
    (an older marker: SUMMARYs before `since` are exempt), "source": "clone" | "config"}: this clone's own, else
    the record committed in config.json (progress.committed_evidence); None when there is neither (a damaged one
    counts as none). The history's signal is read by `Reading` and `begin`, which may ask git."""
    from msd_core.progress.committed_evidence import recorded

    return _private(main) or recorded(main)


def since(main: Path) -> float | None:
    """When msd began asking this project for evidence (None: never, or the marker is unreadable or damaged)."""
    found = marker(main)
    return found["since"] if found else None


def _summary_bytes(path: Path) -> bytes | None:
    from msd_core.files.safe_read import read_regular

    try:
        return read_regular(path, MAX_RECORD, follow_symlinks=False)
    except (OSError, ValueError):
        return None


def summary_hash(path: Path) -> str | None:
    """The sha256 of a SUMMARY's text with LF line ends (None: not a regular file msd can read): the same in
    a clone whose git checks it out with CRLF (core.autocrlf, an eol rule). The file layer's sha256, which
    keeps hashlib off msd_run's hot path."""
    from msd_core.files.atomic import sha256_bytes

    data = _summary_bytes(path)
    return None if data is None else sha256_bytes(data.replace(b"\r\n", b"\n"))


def summary_kept(path: Path, kept: str) -> bool:
    """Whether the SUMMARY at `path` reads as it did when its cutoff entry `kept` was written: `summary_hash`,
    or, for an entry an older msd wrote from the file's bytes, the sha256 of its bytes, or of its text with
    CRLF line ends (an adopter whose git checked it out so)."""
    from msd_core.files.atomic import sha256_bytes

    data = _summary_bytes(path)
    if data is None:
        return False
    lf = data.replace(b"\r\n", b"\n")
    return any(sha256_bytes(form) == kept for form in dict.fromkeys((lf, data, lf.replace(b"\n", b"\r\n"))))


def summarised(main: Path) -> dict[str, str]:
    """{"<phase-dir>/<plan-id>": its SUMMARY's sha256} of every plan summarised in the project's phase folders now."""
    from msd_core.planning.discovery import plan_id

    phases = Path(main) / ".planning" / "phases"
    out: dict[str, str] = {}
    try:
        folders = [e for e in os.scandir(phases) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return out
    for folder in sorted(folders, key=lambda e: e.name):
        try:
            names = sorted(e.name for e in os.scandir(folder.path) if e.is_file(follow_symlinks=False))
        except OSError:
            continue
        for name in names:
            if name.endswith("-SUMMARY.md") or name == "SUMMARY.md":
                digest = summary_hash(Path(folder.path) / name)
                if digest is not None:
                    out[f"{folder.name}/{plan_id(Path(folder.path) / name)}"] = digest
    return out


def implied(main: Path, log: tuple[dict, object] | None = None) -> dict | None:
    """The marker a tree with msd's commits in its history implies (progress.committed_evidence, signal 2):
    {"since", "cutoff": the plans summarised before msd's first commit, unchanged since, "source": "history"};
    None when the history holds no `Msd-Plan:` commit, or the tree before it cannot be read. `log`: the one
    `_git_log` already read."""
    from msd_core.progress.committed_evidence import PHASES, before_msd, shallow, unchanged

    _by_plan, first = log if log is not None else _git_log(main)
    if first is None:
        return None
    parents = getattr(first, "parents", [])
    if not parents and shallow(main):
        return None
    before = before_msd(main, parents[0]) if parents else {}
    if before is None:
        return None
    files = {plan: (f"{PHASES}{plan.split('/', 1)[0]}/{name}", blob) for plan, (name, blob) in before.items()}
    cutoff: dict[str, str] = {}
    for plan in sorted(unchanged(main, files)):
        digest = summary_hash(Path(main) / files[plan][0])
        if digest is not None:
            cutoff[plan] = digest
    return {"since": time.time(), "cutoff": cutoff, "source": "history"}


def begin(main: Path) -> dict:
    """Write this clone's marker unless it has one: from now on every SUMMARY needs its evidence, except those
    of the plans in its cutoff, while their SUMMARY reads as it does. The cutoff is the committed one when the
    tree says msd wrote it (config.json's record, else msd's commits in the history: a fresh clone asks what the
    project asked), else the plans summarised now. {"since", "cutoff": {plan: sha256}, "created": bool (a new
    marker: not the clone's, nor committed), "source"}; OSError when it cannot be written."""
    from msd_core.files.atomic import atomic_write_bytes
    from msd_core.files.private_dir import ensure_private_dir
    from msd_core.progress.committed_evidence import recorded

    target = paths.project_state_dir(main) / SINCE_FILE
    if os.path.lexists(target):
        found = _private(main)
        if found is not None:
            return {"since": found["since"], "cutoff": found["cutoff"], "created": False, "source": "clone"}
        raise OSError(f"{target} exists but is not an evidence marker; move it aside and run `msd_run evidence adopt`")
    found = recorded(main) or implied(main)
    if found is not None:
        now, cutoff, source = found["since"], found["cutoff"] or {}, found["source"]
    else:
        now, cutoff, source = time.time(), summarised(main), "clone"
    folder = ensure_private_dir(main)
    atomic_write_bytes(folder / SINCE_FILE, (json.dumps({"since": now, "cutoff": cutoff}, indent=1) + "\n").encode("utf-8"))
    return {"since": now, "cutoff": cutoff, "created": found is None, "source": source}


def mark_since(main: Path, publish: bool = False) -> None:
    """`begin`, best effort: a read-only project (or a damaged marker) is left as it is. `publish`: msd has just
    created the project's config.json (`msd init new-project`, the new-project flow): its record goes there too,
    so a clone of the project asks for evidence from its first command (progress.committed_evidence)."""
    from msd_core.errors import MsdError

    try:
        found = begin(main)
        if publish:
            from msd_core.progress.committed_evidence import publish as publish_record

            publish_record(main, found, create=False)
    except (OSError, MsdError):
        pass


def record_name(phase_dir: str, plan_id: str) -> str:
    """The file name of a plan's run record in `.planning/.msd/runs/` (the one rule for writer and readers)."""
    return f"{_SAFE.sub('_', phase_dir)}__{_SAFE.sub('_', plan_id)}.json"


def _record(main: Path, phase_dir: str, plan_id: str) -> tuple[dict | None, str | None]:
    """(the plan's run record or None, why it could not be read)."""
    from msd_core.files.bounded import loads_json
    from msd_core.files.safe_read import read_regular

    name = record_name(phase_dir, plan_id)
    path = paths.project_state_dir(main) / "runs" / name
    try:
        data = loads_json(read_regular(path, MAX_RECORD, follow_symlinks=False), f"run record {name}")
    except FileNotFoundError:
        return None, None
    except (OSError, ValueError) as exc:
        return None, f"its run record {name} cannot be read ({getattr(exc, 'strerror', None) or exc})"
    if not isinstance(data, dict) or not isinstance(data.get("commits", []), list):
        return None, f"its run record {name} is not a run record"
    return data, None


def declared(plan_text: str) -> list[str]:
    """The plan's frontmatter `files_modified`, normalised (tasks' `<files>` are not counted)."""
    from msd_core.planning.plan import normalize_declared, parse_plan, split_files

    plan = parse_plan(plan_text, frozenset({"files-modified"}))
    fm = plan.frontmatter
    return [normalize_declared(f) for f in split_files(fm.get("files_modified") or fm.get("files-modified")) if f.strip()]


def touched(path: str, files: set[str]) -> bool:
    return path in files or (path.endswith("/") and any(f.startswith(path) for f in files))


def _verdict(plan_id: str, commits: list[dict], plan_text: str | None, prefix: str = "") -> dict | None:
    """What `commits` (run-record entries: hash, files, deviation) leave the plan lacking; None when proven.
    `prefix`: the project's folder from the work tree's top ("services/api/"): git names files from the
    top, a plan from its project."""
    if not commits:
        return {"plan": plan_id, "step": "execute",
                "reason": f"plan {plan_id} has a SUMMARY but no commit recorded by `msd_run commit --plan`"}
    if plan_text is None:
        return None
    files = {f[len(prefix):] if prefix and f.startswith(prefix) else f
             for c in commits for f in c.get("files", []) if isinstance(f, str)}
    left = [d for d in declared(plan_text) if not touched(d, files)]
    if left and not any(isinstance(c.get("deviation"), str) and c["deviation"].strip() for c in commits):
        return {"plan": plan_id, "step": "execute", "untouched": left,
                "reason": f"plan {plan_id}'s recorded commits do not touch {', '.join(left[:3])}"
                          + (", ..." if len(left) > 3 else "") + " (declared in files_modified; no deviation recorded)"}
    return None



def _project_rel(main: Path) -> str:
    """The project's folder from the work tree's top ("services/api/"; "" at the top or outside git)."""
    from msd_core.lean.project_rule import work_tree_top

    top = work_tree_top(str(main))
    rel = os.path.relpath(main, top) if top else "."
    return "" if rel == "." or rel.startswith("..") else rel.replace(os.sep, "/") + "/"


def _git_log(main: Path, project_rel: str | None = None) -> tuple[dict[str, list[dict]], object]:
    """({"<phase-dir>/<plan-id>": the commits reachable from HEAD that `msd_run commit --plan` made for
    it, as run-record entries}, the oldest of them (a git.trailers.LoggedCommit) or None): one `git log`
    for every plan (({}, None) outside git, or when git fails or runs out of time). Only the plans of the
    root at `project_rel` (its folder from the work tree's top; None: worked out from `main`): another
    root's `01-setup/01-01` is not this one's (msd_core.git.trailers.plans_of)."""
    from msd_core.errors import MsdError
    from msd_core.git.trailers import DEVIATION_KEY, PLAN_KEY, ROOT_KEY, log, plans_of

    rel = (_project_rel(main) if project_rel is None else project_rel).rstrip("/")
    alone: list[bool] = []

    def only_root() -> bool:  # asked at most once, and only for a commit made before roots were named
        if not alone:
            from msd_core.progress.root_walk import only_root as walk

            alone.append(walk(main))
        return alone[0]

    by_plan: dict[str, list[dict]] = {}
    try:
        found = log(main, ["HEAD", "--no-merges", f"--grep=^{PLAN_KEY}: "], (PLAN_KEY, ROOT_KEY, DEVIATION_KEY)) or []
    except MsdError:
        found = []
    mine = []
    for c in found:
        named_plans = plans_of(c.trailers, rel, only_root)
        if not named_plans:
            continue
        mine.append(c)
        entry = {"hash": c.hash, "files": c.files, "deviation": "; ".join(c.trailers[DEVIATION_KEY]) or None}
        for named in named_plans:
            by_plan.setdefault(named, []).append(entry)
    return by_plan, (mine[-1] if mine else None)


def _identity(phase_dir: str, plan_id: str) -> tuple[str, str] | None:
    """What a renumber keeps of a plan's name: (the phase folder's slug, the plan's number in its phase);
    `04-billing/04-01` and `05-billing/05-01` are both ("billing", "01"). None: not msd's numbered form."""
    number, _, slug = phase_dir.partition("-")
    head, sep, tail = plan_id.partition("-")
    return (slug, tail) if slug and sep and tail and head == number else None


def renumbered(main: Path, by_plan: dict[str, list[dict]], phase_dir: str, plan_id: str, prefix: str = "") -> list[dict]:
    """The commits `msd_run commit --plan` recorded for this plan under the number it had before a renumber
    (`msd_run phase reconcile` moves `04-billing/04-01` to `05-billing/05-01`; the `Msd-Plan:` trailers in
    history keep the old name). Only when that is certain: exactly one phase folder now has this slug (so the
    old one is gone), exactly one old name in the log matches, and git traces the plan's PLAN from that name
    to this one (msd_core.progress.plan_moves: a phase removed and its slug reused by a new one lends its
    commits to nothing); else []. `prefix`: the project's folder from the work tree's top."""
    from msd_core.progress.plan_moves import moved

    ident = _identity(phase_dir, plan_id)
    if ident is None:
        return []
    try:
        folders = {e.name for e in os.scandir(Path(main) / ".planning" / "phases") if e.is_dir(follow_symlinks=False)}
    except OSError:
        return []
    if sum(1 for name in folders if name.partition("-")[2] == ident[0]) != 1:
        return []
    def same(name: str) -> bool:
        return "/" in name and _identity(*name.split("/", 1)) == ident

    olds = [key for key in by_plan if same(key)]
    if len(olds) != 1 or not moved(main, prefix, olds[0], f"{phase_dir}/{plan_id}", same):
        return []
    return by_plan[olds[0]]


class Reading:
    """One reading of the plans' evidence (lifecycle.where, `wave plan`): the project's main checkout,
    the marker in force (this clone's, else config.json's record), and git's log, read once for this
    reading and never for another (a long-lived process judges each reading by the commits there are
    then). Without a marker, msd's commits in that log say whether the tree is msd's (`asks`)."""

    __slots__ = ("main", "since", "cutoff", "_log", "_implied", "prefix")

    def __init__(self, main: Path):
        self.main = Path(main)
        self.prefix = _project_rel(self.main)
        found = marker(self.main)
        self.since = found["since"] if found else None
        self.cutoff = found["cutoff"] if found else None
        self._log: tuple[dict[str, list[dict]], object] | None = None
        self._implied: dict | None | bool = False  # False: not read yet

    def _read_log(self) -> tuple[dict[str, list[dict]], object]:
        if self._log is None:
            self._log = _git_log(self.main, self.prefix)
        return self._log

    def git_commits(self, phase_dir: str, plan_id: str) -> list[dict]:
        by_plan = self._read_log()[0]
        return by_plan.get(f"{phase_dir}/{plan_id}") or renumbered(self.main, by_plan, phase_dir, plan_id, self.prefix)

    def asks(self) -> bool:
        """Whether any SUMMARY may need its evidence: a marker is in force, or (read once, from the log the
        evidence reads anyway) the history holds msd's commits and the tree before them can be read."""
        if self.since is not None:
            return True
        if self._implied is False:
            self._implied = implied(self.main, self._read_log())
            if isinstance(self._implied, dict):
                self.cutoff = self._implied["cutoff"]
        return self._implied is not None

    def missing(self, phase_dir: str, plan_id: str, plan_text: str | None) -> dict | None:
        """What the plan lacks to count as complete: {"plan", "reason", "step"} or None when proven.
        `plan_text` None: the PLAN could not be read (its declared files are not checked)."""
        record, unreadable = _record(self.main, phase_dir, plan_id)
        commits = [c for c in (record or {}).get("commits", [])
                   if isinstance(c, dict) and isinstance(c.get("hash"), str) and _HASH.fullmatch(c["hash"])]
        lacking = _verdict(plan_id, commits, plan_text, self.prefix)
        if lacking is None:
            return None
        from_git = self.git_commits(phase_dir, plan_id)
        if from_git:  # a teammate's clone made them, or the record was lost: git says so itself
            known = {c["hash"] for c in commits}
            return _verdict(plan_id, commits + [c for c in from_git if c["hash"] not in known], plan_text, self.prefix)
        if unreadable:
            return {"plan": plan_id, "reason": f"plan {plan_id} has a SUMMARY but {unreadable}", "step": "execute"}
        return lacking

    def unproven(self, phase_folder: Path, plan_id: str, plan_text: str | None) -> dict | None:
        """`missing` for a summarised plan evidence is asked of: not in the cutoff (an older marker: a SUMMARY
        written at or after `since`); None when none is asked (no marker and no msd commit in the history,
        a plan summarised before msd)."""
        if not self.asks():
            return None
        if self.since is not None and self.cutoff is None:
            for name in (f"{plan_id}-SUMMARY.md", "SUMMARY.md"):
                try:
                    st = os.lstat(Path(phase_folder) / name)
                except OSError:
                    continue
                if st.st_mtime < self.since:
                    return None  # summarised before msd executed this project: taken on its SUMMARY
                return self.missing(Path(phase_folder).name, plan_id, plan_text)
            return None
        for name in (f"{plan_id}-SUMMARY.md", "SUMMARY.md"):
            path = Path(phase_folder) / name
            if not os.path.lexists(path):
                continue
            kept = (self.cutoff or {}).get(f"{Path(phase_folder).name}/{plan_id}")
            if kept is not None and summary_kept(path, kept):
                return None  # summarised before msd wrote this project, unchanged since: taken on its SUMMARY
            return self.missing(Path(phase_folder).name, plan_id, plan_text)
        return None
