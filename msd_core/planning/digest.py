"""history-digest: the project's SUMMARY facts in one compact structure.

  {"fields": "p=provides a=affects t=patterns d=decisions; one fact per line",
   "where": {MILESTONE: FOLDER},
   "phases": {KEY: {"name"?, "p"?, "a"?, "t"?, "d"?}},
   "tech_stack": "fact\\nfact...",
   "skipped": {REASON: count}?}                      # ? = only when there is one

Budget: the output is at most 10% of the SUMMARY bytes it reads over the corpus
(scripts/bench_planning.py measures it), while carrying every fact the peer's digest
carries. What that takes:
- Each field is one string, one fact per line (facts are whitespace-normalised, so a
  fact never holds a newline): one byte between facts instead of a JSON list's three.
- KEY is the phase folder, qualified by its milestone when archived (phase_ref.phase_key:
  `02-auth`, `v1.1/01-setup`): two milestones' phase 01 are two entries, never merged.
  Archived milestones come first, oldest first, then the current phases.
- `where` maps each milestone label ("" = current) to the folder holding its phase
  folders: a phase's summaries are `<where[m]>/<folder>/*-SUMMARY.md`.
- `name` only when the frontmatter name differs from the folder's words; a phase whose
  summaries declare no facts is left out; a fact is listed once per phase and field.
- Facts come from the summary contract's keys and their corpus spellings (provides,
  affects, patterns-established, key-decisions, tech-stack.added, dependency-graph);
  other keys (`decisions:` tables, requires, key-files) are in `msd_run memory`.
- A summary that gives no facts is counted under `skipped` by reason (no frontmatter,
  unterminated, not a mapping, unreadable, too large, symlink); `--skipped` (detail)
  lists the files instead, plus `lenient`: summaries PyYAML rejected that the line
  reader read.
- Filters: `phases` (references: `2`, `02`, `v1.1/2`, `02-auth`; a bare number matches
  that number in every milestone, each kept as its own entry) keeps those phases only;
  `affects` keeps summaries where the text occurs (case-insensitive) in an `affects`
  entry or equals the subsystem. tech_stack then comes from the kept summaries only.

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

from msd_core.planning.discovery import project_summaries
from msd_core.planning.phase_ref import key_matches, parse_ref, phase_key

CACHE_NAME = "digest-cache.json"
CACHE_VERSION = 5  # bump when the facts a summary yields change
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
            from msd_core.files.bounded import loads_json
            from msd_core.files.safe_read import read_regular

            raw = loads_json(read_regular(path, MAX_CACHE_BYTES, follow_symlinks=False), str(path))
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
            from msd_core.files.atomic import atomic_write_bytes
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

    facts = summary_facts(f, folder_phase=number, keys=DIGEST_KEYS, shown=rel)
    facts.file = rel
    out = facts.to_dict()
    if isinstance(facts, Skip):
        out["skip"] = True
    return out


def collect_facts(root: Path, *, cache: bool = True, skipped: list | None = None) -> list[tuple[object, dict]]:
    """(phase folder, facts dict) for every summary of the project at `root`.

    A facts dict is SummaryFacts.to_dict(), or {"skip": True, "file", "reason"}. `skipped`
    receives the folders where phases live that are no phase (discovery.phase_dirs).
    """
    planning = root / ".planning"
    store = FactCache(planning / ".msd" / CACHE_NAME if cache else None)
    out = []
    seen: set[str] = set()
    head = str(root).rstrip(os.sep) + os.sep
    for phase, f in project_summaries(planning, skipped):
        name = str(f)  # found below root/.planning: the name past root's is the relative path
        rel = name[len(head):].replace(os.sep, "/") if name.startswith(head) else f.relative_to(root).as_posix()
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


FIELDS = (("p", "provides"), ("a", "affects"), ("t", "patterns"), ("d", "decisions"))
LEGEND = "p=provides a=affects t=patterns d=decisions; one fact per line"


def build_digest(root: Path, *, phases: list[str] | None = None, affects: str | None = None, cache: bool = True,
                 detail: bool = False) -> dict:
    """The digest (format in the module docstring). `phases` are phase references
    (phase_ref.parse_ref); a bad one raises UsageError. `detail` adds the skipped and
    leniently read files by name."""
    wanted = [parse_ref(p) for p in phases] if phases else None
    lists: dict[str, dict[str, list]] = {}
    names: dict[str, str] = {}
    where: dict[str, str] = {}
    tech: list[str] = []
    skipped: dict[str, list[str]] = {}
    lenient: list[str] = []
    unread: list = []
    for phase, facts in collect_facts(root, cache=cache, skipped=unread):
        if wanted is not None and not any(key_matches(phase, w) for w in wanted):
            continue
        if facts.get("skip"):
            skipped.setdefault(facts["reason"], []).append(facts["file"])
            continue
        if affects and not _matches_affects(facts, affects):
            continue
        if facts.get("lenient"):
            lenient.append(facts["file"])
        key = phase_key(phase)
        entry = lists.setdefault(key, {})
        if facts.get("name") and facts["name"] != phase.slug:
            names.setdefault(key, facts["name"])
        for short, src in FIELDS:
            if facts.get(src):
                _add(entry.setdefault(short, []), facts[src])
        if entry:
            try:
                where.setdefault(phase.milestone or "", phase.path.parent.relative_to(root).as_posix())
            except ValueError:
                pass
        _add(tech, facts.get("tech_stack") or [])
    for s in unread:  # a folder holding summaries that no reader reads as a phase: the reason every reader gives
        if s.blocks and wanted is None:
            skipped.setdefault(s.reason, []).append(s.to_dict(root)["file"])
    out_phases: dict[str, dict] = {}
    for key, entry in lists.items():
        if not entry:
            continue  # a phase whose summaries declare no facts adds nothing to a digest of facts
        item = {"name": names[key]} if key in names else {}
        item.update((short, "\n".join(entry[short])) for short, _src in FIELDS if short in entry)
        out_phases[key] = item
    out: dict = {"fields": LEGEND, "where": where, "phases": out_phases, "tech_stack": "\n".join(tech)}
    if skipped:
        out["skipped"] = skipped if detail else {reason: len(files) for reason, files in skipped.items()}
    if detail and lenient:
        out["lenient"] = lenient
    return out
