"""history-digest: the project's SUMMARY facts in one compact structure.

  {"phases": {PHASE: {"name", "plans", "provides", "affects", "patterns"}},
   "decisions": [{"phase", "decision"}], "tech_stack": [...],
   "skipped": [{"file", "reason"}], "lenient": [file, ...]   # only when non-empty}

- PHASE is the normalised phase id (discovery.normalize_phase: `02` → `2`, `03.3` → `3.3`).
  Archived milestone phases come first; a phase id seen in several folders is merged.
- `name`: the frontmatter `name` if any, else the phase folder's words (`02-user-auth` → `user auth`).
- `plans`: plan ids from the summary file names (`02-01`), every summary found, skipped or not.
- Lists keep first-seen order without duplicates.
- A summary that gives no facts is listed in `skipped` with the reason (no frontmatter,
  unterminated, not a mapping, unreadable, too large, symlink). `lenient` names the
  summaries whose frontmatter PyYAML rejected and the line reader read instead.
- Filters: `phases` (normalised ids) keeps those phases only; `affects` keeps summaries
  where the text occurs (case-insensitive) in an `affects` entry or equals the subsystem.
  Decisions and tech_stack then come from the kept summaries only.

Per-file facts are cached in `.planning/.msd/digest-cache.json`, keyed by each file's
(size, mtime_ns, ctime_ns, inode): a warm run parses nothing and does not import PyYAML.
The cache is an optimisation only: unreadable or stale entries are recomputed; it is
written atomically and never holds a lock (concurrent writers write equivalent data).

Standard library only (PyYAML is imported by frontmatter.py only when a file is parsed).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from msd_core.planning.discovery import normalize_phase, plan_id, project_summaries

CACHE_NAME = "digest-cache.json"
CACHE_VERSION = 4  # bump when the facts a summary yields change
MAX_CACHE_BYTES = 64 << 20  # a larger cache is ignored (rebuilt)


def _key(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


class FactCache:
    """Per-file facts as plain dicts ({"skip": true, "file", "reason"} or SummaryFacts.to_dict())."""

    def __init__(self, path: Path | None):
        if path is not None and (os.path.islink(path.parent) or os.path.islink(path.parent.parent)):
            path = None  # a symlinked private or planning folder: no cache read or written through it
        self.path = path
        self.entries: dict = {}
        self.dirty = False
        if path is None:
            return
        try:
            from msd_core.safe_read import read_regular

            raw = json.loads(read_regular(path, MAX_CACHE_BYTES, follow_symlinks=False))
            if isinstance(raw, dict) and raw.get("version") == CACHE_VERSION and isinstance(raw.get("files"), dict):
                self.entries = raw["files"]
        except (OSError, ValueError):
            pass

    def get(self, rel: str, key: list[int]) -> dict | None:
        hit = self.entries.get(rel)
        if isinstance(hit, dict) and hit.get("k") == key and isinstance(hit.get("v"), dict):
            return hit["v"]
        return None

    def put(self, rel: str, key: list[int], value: dict) -> None:
        if self.path is None:
            return
        self.entries[rel] = {"k": key, "v": value}
        self.dirty = True

    def save(self, keep: set[str]) -> None:
        if self.path is None:
            return
        stale = set(self.entries) - keep
        if not (self.dirty or stale):
            return
        for rel in stale:
            del self.entries[rel]
        try:
            from msd_core.fsutil import atomic_write_bytes
            from msd_core.planning.project import private_dir

            root = self.path.parent.parent.parent  # <root>/.planning/.msd/<cache>
            private_dir(root)
            atomic_write_bytes(
                self.path, json.dumps({"version": CACHE_VERSION, "files": self.entries}, separators=(",", ":")).encode(),
                anchor=root,
            )
        except Exception:  # OSError, or the private folder refused: the digest is still printed
            pass  # a read-only project still gets its digest


def _fresh(f: Path, root: Path, number: str | None, rel: str) -> dict:
    from msd_core.planning.summary import DIGEST_KEYS, Skip, summary_facts  # parsing only on a cache miss

    facts = summary_facts(f, relative_to=root, folder_phase=number, keys=DIGEST_KEYS)
    facts.file = rel
    out = facts.to_dict()
    if isinstance(facts, Skip):
        out["skip"] = True
    return out


def collect_facts(root: Path, *, cache: bool = True) -> list[tuple[object, dict]]:
    """(phase folder, facts dict) for every summary of the project at `root`.

    A facts dict is SummaryFacts.to_dict(), or {"skip": True, "file", "reason"}.
    """
    planning = root / ".planning"
    store = FactCache(planning / ".msd" / CACHE_NAME if cache else None)
    out = []
    seen: set[str] = set()
    for phase, f in project_summaries(planning):
        rel = f.relative_to(root).as_posix()
        seen.add(rel)
        try:
            key = _key(os.lstat(f))
        except OSError:
            key = None
        facts = store.get(rel, key) if key else None
        if facts is None:
            facts = _fresh(f, root, phase.number, rel)
            if key:
                store.put(rel, key, facts)
        out.append((phase, facts))
    store.save(seen)
    return out


def _add(target: list, items) -> None:
    for x in items:
        if x not in target:
            target.append(x)


def _matches_affects(facts: dict, needle: str) -> bool:
    n = needle.lower()
    return any(n in a.lower() for a in facts.get("affects") or []) or (facts.get("subsystem") or "").lower() == n


def build_digest(root: Path, *, phases: list[str] | None = None, affects: str | None = None, cache: bool = True) -> dict:
    wanted = {normalize_phase(p) for p in phases} if phases else None
    digest_phases: dict[str, dict] = {}
    decisions: list[dict] = []
    tech: list[str] = []
    skipped: list[dict] = []
    lenient: list[str] = []
    for phase, facts in collect_facts(root, cache=cache):
        skip = bool(facts.get("skip"))
        pid = (None if skip else facts.get("phase")) or phase.number or phase.name
        if wanted is not None and pid not in wanted:
            continue
        if skip:
            skipped.append({"file": facts["file"], "reason": facts["reason"]})
            if affects:
                continue
        elif affects and not _matches_affects(facts, affects):
            continue
        entry = digest_phases.get(pid)
        if entry is None:
            name = (None if skip else facts.get("name")) or phase.slug or phase.name
            entry = digest_phases[pid] = {"name": name, "plans": [], "provides": [], "affects": [], "patterns": []}
        _add(entry["plans"], [plan_id(Path(facts["file"])) if skip else facts["plan"]])
        if skip:
            continue
        if facts.get("lenient"):
            lenient.append(facts["file"])
        _add(entry["provides"], facts.get("provides") or [])
        _add(entry["affects"], facts.get("affects") or [])
        _add(entry["patterns"], facts.get("patterns") or [])
        for d in facts.get("decisions") or []:
            item = {"phase": pid, "decision": d}
            if item not in decisions:
                decisions.append(item)
        _add(tech, facts.get("tech_stack") or [])
    out = {"phases": digest_phases, "decisions": decisions, "tech_stack": tech, "skipped": skipped}
    if lenient:
        out["lenient"] = lenient
    return out
