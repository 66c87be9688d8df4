"""Which tests exercise a phase's requirements and must-haves, and where the gaps are.

The items of a phase (docs/CONTRACTS.md "msd_run validate"):
  requirement   each id the phase answers for (planning.requirements.phase_requirements) and each
                id a plan's frontmatter `requirements` names; its text from REQUIREMENTS.md
  truth         each `must_haves.truths` entry of each plan, id `<plan>#<n>` (1-based)
  artifact      each `must_haves.artifacts` path of each plan, id `<plan>:<path>`

A test (a block of a test file, execution.test_files) covers an item by one of these rules:
  id            requirement: the block names the id (`AUTH-01`, `AUTH_01`, any case)
  ref           truth: the block names the truth's id (`02-01#1`)
  text          truth: a named block holds the truth's text word for word (case, spacing and
                punctuation aside; at least MIN_TEXT_WORDS words): a truth of short or common words
                only ("Add works") has no key terms, and a test that says it covers it
  keywords      truth: the block holds at least KEYWORD_SHARE of the truth's key terms, and at
                least MIN_KEYWORDS of them (all of them when the truth has fewer); key terms are the
                truth's `backticked` spans and its words of 4+ letters not in STOPWORDS
  artifact      artifact: the test file is the artifact, or names its path, or imports it
A test file that imports a file a plan modified is `related` to that plan's truths and
requirements: listed, never coverage on its own.

The gate (execution.gate's records, read only): when its latest run failed or timed out the phase
has a `gate` finding (its tests do not pass); when the gate's command names paths of the project
(`pytest tests/unit`: folders or test files; a script it runs selects nothing), a test outside every one of them is not run by the gate and covers nothing.

Status: `covered` (at least one test) or `gap`. The report's `ok` is true when nothing is a gap
and there is no gate finding. Standard library only.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path

KEYWORD_SHARE = 0.6
MIN_KEYWORDS = 2
MIN_TEXT_WORDS = 2
MAX_PLAN_BYTES = 1024 * 1024
MAX_DOC_BYTES = 4 * 1024 * 1024
STOPWORDS = frozenset(
    "able about after again against also because been before being both does doing done each every from have "
    "having into just least more most must only other over same should some such than that their them then "
    "there these they this those through under until very were what when where which while will with within "
    "without would your user users given correct correctly works work working exists exist returns return "
    "shows show uses using used".split())
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]{3,}")
_TICK_RE = re.compile(r"`([^`\n]{2,80})`")


def _norm(word: str) -> str:
    from msd_core.execution.test_files import plural_dropped

    return plural_dropped(word.lower())


def key_terms(truth: str) -> list[str]:
    """The terms the keyword rule looks for (module docstring), each once, in order."""
    out: list[str] = []
    for span in _TICK_RE.findall(truth):
        term = span.strip().lower()
        if term and term not in out:
            out.append(term)
    for word in _WORD_RE.findall(_TICK_RE.sub(" ", truth)):
        term = _norm(word)
        if term not in STOPWORDS and word.lower() not in STOPWORDS and term not in out:
            out.append(term)
    return out


def keywords_match(truth_terms: list[str], block) -> bool:
    """Whether a test block (execution.test_files.TestBlock, or a text) holds enough of the terms."""
    if not truth_terms:
        return False
    if isinstance(block, str):
        from msd_core.execution.test_files import TestBlock

        block = TestBlock(None, block)
    words, low = block.words, block.low
    hit = sum(1 for t in truth_terms if (t in low if not t.replace("_", "").isalnum() else t in words))
    need = max(min(MIN_KEYWORDS, len(truth_terms)), math.ceil(KEYWORD_SHARE * len(truth_terms)))
    return hit >= need


@lru_cache(maxsize=4096)  # a block's text is met once per truth of the phase
def _words_of(text: str) -> str:
    """` word word ... `: lower-cased, every run of other characters one space (padded both sides)."""
    return " " + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + " "


def says_truth(truth: str, block) -> bool:
    """Whether a test block (execution.test_files.TestBlock) holds the truth's text word for word."""
    phrase = _words_of(truth)
    return len(phrase.split()) >= MIN_TEXT_WORDS and phrase in _words_of(block.low)


def id_pattern(rid: str):
    head, _, num = rid.rpartition("-")
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(head)}[-_]{re.escape(num)}(?![0-9])", re.I)


def ref_pattern(ref: str):
    return re.compile(rf"(?<![\w.-]){re.escape(ref)}(?![0-9])")


def _stem(path: str) -> str:
    base, ext = path.rsplit(".", 1) if "." in path.rsplit("/", 1)[-1] else (path, "")
    return base


def imports_file(targets: list[str], path: str) -> bool:
    """A test's import target names `path` when, as path components, it is a tail of the path
    without its extension (`auth` and `src/auth` both name `src/auth.py`; a package's
    `__init__.py` is named by its folder)."""
    stem = _stem(path).split("/")
    if stem[-1] in ("__init__", "index"):
        stem = stem[:-1]
    if not stem:
        return False
    for t in targets:
        parts = [p for p in t.split("/") if p]
        if parts and len(parts) <= len(stem) and stem[-len(parts):] == parts:
            return True
    return False


# ---------------------------------------------------------------------------------------- reading


def _read_text(path: Path, cap: int, what: str, skipped: list, root: Path) -> str | None:
    from msd_core.files.safe_read import read_regular

    try:
        return read_regular(path, cap, follow_symlinks=False).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except OSError as exc:
        skipped.append({"file": _rel(path, root), "reason": f"{what}: {exc.strerror or exc}"})
        return None


def _rel(path: Path, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _gate(root: Path) -> dict | None:
    from msd_core.errors import MsdError
    from msd_core.execution import gate

    try:
        last = gate.last(root)
    except (MsdError, OSError):
        return None
    if not isinstance(last, dict):
        return None
    return {k: last.get(k) for k in ("label", "command", "status", "at") if k in last}


def gate_paths(command: str | None, root: Path) -> list[str]:
    """The paths of the project the gate's command selects: arguments that are folders there, or test
    files (a script it runs, `sh tests/run.sh`, selects nothing)."""
    import shlex

    from msd_core.execution.test_files import is_test_path

    if not command:
        return []
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    out = []
    for w in words[1:]:
        w = w.split("::", 1)[0].rstrip("/")
        while w.startswith("./"):
            w = w[2:]
        if not w or w.startswith("-") or "=" in w or w.startswith("/") or ".." in w.split("/"):
            continue
        p = root / w
        if p.is_symlink() or w in out:
            continue
        if p.is_dir() or (p.is_file() and is_test_path(tuple(w.split("/")))):  # a runner script selects nothing
            out.append(w)
    return out


# ---------------------------------------------------------------------------------------- deciding


class Item:
    __slots__ = ("kind", "id", "text", "plan", "tests", "related", "files")

    def __init__(self, kind: str, id: str, text: str, plan: str | None, files: list[str]):
        self.kind, self.id, self.text, self.plan, self.files = kind, id, text, plan, files
        self.tests: dict[str, dict] = {}
        self.related: list[str] = []

    def add(self, file: str, name: str | None, rule: str) -> None:
        entry = self.tests.setdefault(file, {"file": file, "names": [], "rules": []})
        if name and name not in entry["names"]:
            entry["names"].append(name)
        if rule not in entry["rules"]:
            entry["rules"].append(rule)


def _items(root: Path, phase, skipped: list) -> list[Item]:
    from msd_core.planning.discovery import plan_files, plan_id
    from msd_core.planning.plan import parse_plan
    from msd_core.planning.requirements import definitions, must_haves, phase_requirements, plan_requirements

    planning = root / ".planning"
    roadmap = _read_text(planning / "ROADMAP.md", MAX_DOC_BYTES, "ROADMAP.md not read", skipped, root) or ""
    reqs_text = _read_text(planning / "REQUIREMENTS.md", MAX_DOC_BYTES, "REQUIREMENTS.md not read", skipped, root) or ""
    texts = definitions(reqs_text)
    req_items: dict[str, Item] = {}
    for rid in phase_requirements(roadmap, reqs_text, phase.number):
        req_items[rid] = Item("requirement", rid, texts.get(rid, ""), None, [])
    plan_items: list[Item] = []
    for path in plan_files(phase.folder) if phase.folder else []:
        text = _read_text(path, MAX_PLAN_BYTES, "plan not read", skipped, root)
        if text is None:
            continue
        plan = parse_plan(text)
        pid = plan_id(path)
        if plan.frontmatter_error:
            skipped.append({"file": _rel(path, root), "reason": "plan frontmatter unreadable: its must-haves not read"})
            continue
        files = [f for f in plan.files if not f.endswith("/")]
        for rid in plan_requirements(plan.frontmatter):
            item = req_items.setdefault(rid, Item("requirement", rid, texts.get(rid, ""), None, []))
            item.files += [f for f in files if f not in item.files]
        truths, artifacts = must_haves(plan.frontmatter)
        for n, truth in enumerate(truths, start=1):
            plan_items.append(Item("truth", f"{pid}#{n}", truth, pid, files))
        for art in artifacts:
            plan_items.append(Item("artifact", f"{pid}:{art}", art, pid, files))
    return list(req_items.values()) + plan_items


def _match(item: Item, tests) -> None:
    from msd_core.planning.plan import normalize_declared

    if item.kind == "requirement":
        rx = id_pattern(item.id)
        for t in tests:
            for b in t.blocks:
                if rx.search(b.text):
                    item.add(t.rel, b.name, "id")
    elif item.kind == "truth":
        rx, terms = ref_pattern(item.id), key_terms(item.text)
        for t in tests:
            for b in t.blocks:
                if rx.search(b.text):
                    item.add(t.rel, b.name, "ref")
                elif b.name and says_truth(item.text, b):
                    item.add(t.rel, b.name, "text")
                elif b.name and keywords_match(terms, b):
                    item.add(t.rel, b.name, "keywords")
    else:
        path = normalize_declared(item.text)
        for t in tests:
            if t.rel == path and t.names:
                item.add(t.rel, None, "artifact")
            elif path in t.text or imports_file(t.imports, path):
                item.add(t.rel, None, "artifact")
    if item.kind != "artifact":
        code = [normalize_declared(f) for f in item.files]
        for t in tests:
            if t.rel not in item.tests and any(imports_file(t.imports, f) for f in code):
                item.related.append(t.rel)


def _inside(rel: str, paths: list[str]) -> bool:
    return any(rel == p or rel.startswith(p + "/") for p in paths)


def validate(root: Path, ref) -> dict:
    """The report of `msd_run validate` (docs/CONTRACTS.md). UsageError for an unknown phase."""
    from msd_core.execution.test_files import scan
    from msd_core.planning.phase_ref import resolve

    root = Path(root)
    phase = resolve(root / ".planning", ref)
    skipped: list[dict] = []
    items = _items(root, phase, skipped)
    tests, test_skipped = scan(root)
    gate = _gate(root)
    paths = gate_paths(gate.get("command") if gate else None, root)
    findings = []
    if gate and gate.get("status") in ("failed", "timeout"):
        findings.append({"code": "gate", "message": f"the gate's latest run {gate['status']} ({gate.get('label') or 'no label'}): "
                                                    "the tests that cover these items do not pass"})
    out_items = []
    for item in items:
        _match(item, tests)
        found = list(item.tests.values())
        outside = [e["file"] for e in found if paths and not _inside(e["file"], paths)]
        covering = [e for e in found if e["file"] not in outside]
        entry = {"kind": item.kind, "id": item.id, "text": item.text, "status": "covered" if covering else "gap",
                 "tests": covering}
        entry.update((k, v) for k, v in (("plan", item.plan), ("related", item.related), ("outside_gate", outside)) if v)
        if not covering:
            entry["reason"] = ("its tests are outside the paths the gate runs (" + ", ".join(paths) + ")" if outside
                               else "no test names it" if item.kind != "truth" else "no test names it or holds its key terms")
        out_items.append(entry)
    gaps = [e for e in out_items if e["status"] == "gap"]
    return {
        "ok": not gaps and not findings,
        "phase": phase.to_dict(root),
        "counts": {"items": len(out_items), "covered": len(out_items) - len(gaps), "gaps": len(gaps),
                   "test_files": len(tests)},
        "items": out_items,
        "gaps": [e["id"] for e in gaps],
        "findings": findings,
        "gate": {**gate, "paths": paths} if gate else None,
        "skipped": skipped + test_skipped,
    }
