"""Facts from one SUMMARY.md, normalised over every frontmatter variant in the corpus.

Variants handled (keys are compared after lower-casing and turning `_` into `-`):
- `tech-stack` / `tech_stack` (`added` list of strings or `{name: …}` dicts; `patterns`),
  `key-files` / `key_files` (`created`, `modified`, or a plain list),
  `key-decisions` / `key_decisions` / `decisions`, `patterns-established` / `patterns_established`;
- provides / affects / requires at the top level, or nested under
  `dependency-graph` / `dependency_graph` / `dependencies` (both are merged);
- `requires` as strings or as `{phase, provides}` dicts;
- `phase` as a string (`02-auth`), an int or a float; missing → taken from the folder;
- a list item that YAML read as a mapping (`- Decision: because X`) is turned back into
  the text `Decision: because X`; nested lists are flattened; numbers become text.

`summary_facts(path)` returns SummaryFacts, or Skip(file, reason) when the file cannot
give facts (unreadable, no frontmatter, unterminated or non-mapping frontmatter).
Frontmatter PyYAML rejects is read by the line-based fallback (frontmatter.py) and the
facts carry `lenient=<reason>`. Never raises.

Standard library only.
"""

from __future__ import annotations

from pathlib import Path

from msd_core.planning.discovery import normalize_phase, plan_id
from msd_core.planning.frontmatter import locate, read_lenient, select_top_keys, split_frontmatter

MAX_SUMMARY_BYTES = 2 * 1024 * 1024  # a SUMMARY larger than this is skipped, not read


class Skip:
    """A summary that gave no facts, and why."""

    __slots__ = ("file", "reason")

    def __init__(self, file: str, reason: str):
        self.file = file
        self.reason = reason

    def to_dict(self) -> dict:
        return {"file": self.file, "reason": self.reason}

    def __eq__(self, other):
        return isinstance(other, Skip) and self.to_dict() == other.to_dict()

    def __repr__(self):
        return f"Skip({self.file!r}, {self.reason!r})"


class SummaryFacts:
    """Facts of one summary (plain class: no dataclasses import on msd_run's hot path)."""

    LISTS = ("tags", "provides", "affects", "requires", "patterns", "decisions", "tech_stack", "key_files")
    __slots__ = ("file", "phase", "plan", "subsystem", "name", "lenient") + LISTS

    def __init__(self, file: str, phase: str | None, plan: str, subsystem: str | None = None,
                 name: str | None = None, lenient: str | None = None, **lists):
        self.file, self.phase, self.plan = file, phase, plan
        self.subsystem, self.name, self.lenient = subsystem, name, lenient
        for key in self.LISTS:
            setattr(self, key, list(lists.pop(key, None) or []))
        if lists:
            raise TypeError(f"unknown fields {sorted(lists)}")

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__}

    def __eq__(self, other):
        return isinstance(other, SummaryFacts) and self.to_dict() == other.to_dict()

    def __repr__(self):
        return f"SummaryFacts({self.to_dict()!r})"


def text_of(value) -> str | None:
    """One fact as text: strings stripped, mappings as `k: v; k2: v2`, scalars via str()."""
    if value is None:
        return None
    if isinstance(value, str):
        s = " ".join(value.split())
        return s or None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            tv = text_of(v) if not isinstance(v, list) else ", ".join(x for x in (text_of(i) for i in v) if x)
            parts.append(f"{k}: {tv}" if tv else str(k))
        return "; ".join(parts) or None
    if isinstance(value, list):
        return ", ".join(x for x in (text_of(i) for i in value) if x) or None
    return str(value)


def fact_list(value) -> list[str]:
    """A frontmatter value as a de-duplicated list of fact strings (lists flattened)."""
    out: list[str] = []

    def add(v):
        if isinstance(v, list):
            for i in v:
                add(i)
            return
        t = text_of(v)
        if t and t.lower() not in ("none", "[]", "n/a", "null") and t not in out:
            out.append(t)

    add(value)
    return out


def _norm_keys(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        out[str(k).strip().lower().replace("_", "-").replace(" ", "-")] = v
    return out


def _sub(d: dict, key: str):
    v = d.get(key)
    return _norm_keys(v) if isinstance(v, dict) else {}


def _requires(value) -> list[str]:
    out = []
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, dict):
            nk = _norm_keys(item)
            if "phase" in nk and "provides" in nk:
                t = f"{text_of(nk['phase'])}: {text_of(nk['provides'])}"
            else:
                t = text_of(item)
        else:
            t = text_of(item)
        if t and t.lower() not in ("none", "[]") and t not in out:
            out.append(t)
    return out


def facts_from_frontmatter(data: dict, file: str, folder_phase: str | None, plan: str) -> SummaryFacts:
    fm = _norm_keys(data)
    graph = {}
    for key in ("dependency-graph", "dependencies"):
        graph.update(_sub(fm, key))
    stack = _sub(fm, "tech-stack")
    files = fm.get("key-files")
    raw_phase = fm.get("phase")
    # YAML reads `phase: 3.10` as the float 3.1: the folder name is more faithful then.
    phase = folder_phase if isinstance(raw_phase, float) and folder_phase else normalize_phase(raw_phase) or folder_phase

    def merged(key: str) -> list[str]:
        out = fact_list(fm.get(key))
        for x in fact_list(graph.get(key)):
            if x not in out:
                out.append(x)
        return out

    decisions = fact_list(fm.get("key-decisions"))
    for x in fact_list(fm.get("decisions")):
        if x not in decisions:
            decisions.append(x)
    key_files: list[str] = []
    if isinstance(files, dict):
        nf = _norm_keys(files)
        key_files = fact_list([nf.get("created"), nf.get("modified")])
    else:
        key_files = fact_list(files)
    added = stack.get("added") if stack else fm.get("tech-stack") if isinstance(fm.get("tech-stack"), list) else None
    tech = []
    for item in added if isinstance(added, list) else fact_list(added):
        if isinstance(item, dict):
            nk = _norm_keys(item)
            t = text_of(nk.get("name")) if "name" in nk else text_of(item)
        else:
            t = text_of(item)
        if t and t.lower() not in ("none", "[]") and t not in tech:
            tech.append(t)
    requires = _requires(fm.get("requires")) + [r for r in _requires(graph.get("requires")) if r]
    return SummaryFacts(
        file=file,
        phase=phase,
        plan=plan,
        subsystem=text_of(fm.get("subsystem")),
        tags=fact_list(fm.get("tags")),
        provides=merged("provides"),
        affects=merged("affects"),
        requires=list(dict.fromkeys(requires)),
        patterns=fact_list(fm.get("patterns-established")),
        decisions=decisions,
        tech_stack=tech,
        key_files=key_files,
        name=text_of(fm.get("name")) if isinstance(fm.get("name"), str) else None,
    )


DIGEST_KEYS = frozenset({
    "phase", "plan", "name", "subsystem", "provides", "affects", "dependency-graph", "dependencies",
    "tech-stack", "key-decisions", "patterns-established",
})


def summary_facts(path: Path, *, relative_to: Path | None = None, folder_phase: str | None = None,
                  keys: frozenset[str] | None = None, shown: str | None = None, raw: bytes | None = None) -> SummaryFacts | Skip:
    """Facts of one SUMMARY file; `relative_to` shortens the reported path (`shown`: the
    path to report, when the caller has it already). `raw`: the file's bytes as the caller
    read them (a caller that uses the text too reads the file once: two reads of a file being
    rewritten would give facts of one version and text of another).

    `keys` (e.g. DIGEST_KEYS) limits parsing to those top-level keys: facts from other
    keys (tags, requires, key_files) are then left empty. Default: every key."""
    path = Path(path)
    if shown is None:
        try:
            shown = str(path.relative_to(relative_to)) if relative_to else str(path)
        except ValueError:
            shown = str(path)
    try:
        if raw is None:
            if path.is_symlink():
                return Skip(shown, "symlink (not followed)")
            from msd_core.files.safe_read import FileTooLarge, read_regular

            raw = read_regular(path, MAX_SUMMARY_BYTES, follow_symlinks=False)
        elif len(raw) > MAX_SUMMARY_BYTES:
            return Skip(shown, f"larger than {MAX_SUMMARY_BYTES} bytes")
    except FileTooLarge:
        return Skip(shown, f"larger than {MAX_SUMMARY_BYTES} bytes")
    except OSError as exc:
        return Skip(shown, f"unreadable ({exc.strerror or exc})")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
    return facts_from_text(text, shown, folder_phase if folder_phase is not None else normalize_phase(path.parent.name),
                           plan_id(path), keys=keys)


def facts_from_text(text: str, file: str, folder_phase: str | None, plan: str,
                    keys: frozenset[str] | None = None) -> SummaryFacts | Skip:
    data, _body, error = split_frontmatter(text, keys)
    if data is None:
        return Skip(file, error or "no frontmatter")
    if not data:
        loc = locate(text)
        if keys is None or (loc and not text[loc[0]:loc[1]].strip()):
            return Skip(file, "empty frontmatter")
    try:
        facts = facts_from_frontmatter(data, file, folder_phase, plan)
    except Exception as exc:  # defensive: odd shapes must not stop a digest
        return Skip(file, f"frontmatter has an unexpected shape ({type(exc).__name__})")
    facts.lenient = error
    if error is None and " #" in text[: 64 * 1024]:
        _restore_hash_text(text, facts, file, folder_phase, plan, keys)
    return facts


_LIST_FIELDS = SummaryFacts.LISTS


def _restore_hash_text(text: str, facts: SummaryFacts, file: str, folder_phase: str | None, plan: str,
                       keys: frozenset[str] | None = None) -> None:
    """YAML drops ` #…` from an unquoted value as a comment; authors mean text (`Bug #12`).

    Where the line reader's item is the YAML item followed by ` #…`, the longer text wins.
    """
    loc = locate(text)
    if not loc or loc[1] < 0:
        return
    block = text[loc[0]: loc[1]].replace("\r\n", "\n")
    if " #" not in block:
        return
    data = read_lenient(select_top_keys(block, keys) if keys is not None else block)
    if not data:
        return
    try:
        other = facts_from_frontmatter(data, file, folder_phase, plan)
    except Exception:
        return
    for name in _LIST_FIELDS:
        longer = getattr(other, name)
        items = getattr(facts, name)
        for idx, item in enumerate(items):
            for cand in longer:
                if len(cand) > len(item) and cand.startswith(item) and cand[len(item):].lstrip().startswith("#"):
                    items[idx] = cand
                    break
