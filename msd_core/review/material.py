"""Existing material brought in: a PRD, a spec or a docs folder turned into REQUIREMENTS.md,
each requirement citing where in the material it came from.

scan(source): the documents of `source` (a file, or a folder walked without following links;
DOC_EXTENSIONS, at most MAX_DOCS of at most MAX_DOC bytes each; hidden and dependency folders
skipped), each with its line count and headings (`line`, `text`), so the agent reads them
whole and cites lines.

requirements(root, source, draft): the agent's draft, JSON
`{"requirements": [{"id", "category", "text", "tier", "source", "reason"?}]}`, checked:
  id        `<CAT>-<NN>` (CAT: 2-10 capitals or digits, NN: 2-3 digits), unique
  category  a heading for the group (v1 and v2 only)
  text      one line, at most MAX_TEXT characters
  tier      v1 | v2 | out (out of scope: `reason` required)
  source    `<doc>:<line>` or `<doc>:<first>-<last>`: a document scan() lists (its path
            relative to the source folder, or the file's name) and lines inside it
Any fault is a usage error naming the requirement (exit 2). The checked draft is written as
`.planning/REQUIREMENTS.md` in the shipped template's sections (v1, v2, Out of Scope,
Traceability), each requirement with `(source: <doc>:<lines>)`, through the injection screen.
An existing REQUIREMENTS.md is replaced only with `replace` (else OperationFailed: nothing
is lost), and then only when the new text keeps every id ROADMAP.md maps (named anywhere, as an
out-of-scope row `| <id>: <text> | <reason> | ... |` names it): the planning write guard's rule.
What it replaced is kept in `.planning/.msd/backups/REQUIREMENTS-<UTC time>.md` (JSON `backup`).
Standard library only.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError

DOC_EXTENSIONS = (".md", ".markdown", ".txt", ".rst", ".adoc", ".org")
SKIP_DIRS = frozenset({"node_modules", "vendor", "dist", "build", "target", ".git", "__pycache__", "venv", ".venv"})
MAX_DOCS = 200
MAX_DOC = 2 * 1024 * 1024
MAX_REQS = 500
MAX_TEXT = 300
TIERS = ("v1", "v2", "out")
_ID = re.compile(r"^[A-Z][A-Z0-9]{1,9}-\d{2,3}$")
_SOURCE = re.compile(r"^(?P<doc>[^:\n]+):(?P<first>\d+)(?:-(?P<last>\d+))?$")


def _read(path: Path) -> str | None:
    from msd_core.files.safe_read import read_regular

    try:
        raw = read_regular(path, MAX_DOC, follow_symlinks=False)
    except OSError:
        return None
    if b"\0" in raw[:8192]:
        return None
    return raw.decode("utf-8", errors="replace")


def _documents(source: Path) -> tuple[dict[str, Path], list[dict]]:
    """({name as cited: path}, skipped)."""
    skipped: list[dict] = []
    if source.is_symlink():
        raise UsageError(f"{source} is a link; give the file or folder itself")
    if source.is_file():
        return {source.name: source}, skipped
    if not source.is_dir():
        raise UsageError(f"{source} does not exist")
    from msd_core.files.walk import walk

    found: dict[str, Path] = {}
    walker = walk(source, skip=lambda d: d.startswith(".") or d in SKIP_DIRS)
    for top, _dirs, files in walker:
        for name in files:
            path = Path(top) / name
            rel = path.relative_to(source).as_posix()
            if not name.lower().endswith(DOC_EXTENSIONS) or name.startswith("."):
                continue
            if path.is_symlink():
                skipped.append({"path": rel, "reason": "a link, not followed"})
                continue
            if len(found) >= MAX_DOCS:
                skipped.append({"path": rel, "reason": f"more than {MAX_DOCS} documents"})
                continue
            found[rel] = path
    for deep in walker.deep[:10]:
        skipped.append({"path": Path(deep).relative_to(source).as_posix(),
                        "reason": f"a folder nested more than {walker.max_depth} levels deep, not entered"})
    return found, skipped


def scan(source: Path) -> dict:
    docs, skipped = _documents(Path(source))
    out = []
    for rel, path in docs.items():
        text = _read(path)
        if text is None:
            skipped.append({"path": rel, "reason": f"unreadable, binary or larger than {MAX_DOC} bytes"})
            continue
        lines = text.splitlines()
        heads = [{"line": n, "text": l.lstrip("#").strip()[:120]} for n, l in enumerate(lines, 1)
                 if re.match(r"^#{1,4}\s", l)][:60]
        out.append({"path": rel, "lines": len(lines), "bytes": len(text.encode()), "headings": heads})
    if not out:
        raise OperationFailed(f"no readable document in {source} ({', '.join(DOC_EXTENSIONS)})")
    result = {"source": str(source), "documents": out}
    if skipped:
        result["skipped"] = skipped[:50]
    return result


def _bad(where: str, message: str) -> UsageError:
    return UsageError(f"{where}: {message}", hint="fix the draft and run it again")


def check_draft(raw: bytes, docs: dict[str, int]) -> list[dict]:
    """The draft's requirements, checked (module doc). `docs`: {cited name: line count}."""
    from msd_core.files.bounded import loads_json
    from msd_core.planning.outside_text import clean

    try:
        data = loads_json(raw, "the draft")
    except ValueError as exc:
        raise UsageError(f"the draft is not valid JSON ({str(exc)[:120]})", about="draft") from None
    if not isinstance(data, dict) or not isinstance(data.get("requirements"), list) or set(data) - {"requirements"}:
        raise UsageError("the draft must be a JSON object with a `requirements` list and nothing else", about="draft")
    items = data["requirements"]
    if not items:
        raise UsageError("the draft lists no requirement", about="draft")
    if len(items) > MAX_REQS:
        raise UsageError(f"the draft lists more than {MAX_REQS} requirements", about="draft")
    out, seen = [], set()
    for n, r in enumerate(items, 1):
        where = f"requirement {n}"
        if not isinstance(r, dict):
            raise _bad(where, "is not an object")
        rid = r.get("id")
        if not isinstance(rid, str) or not _ID.match(rid):
            raise _bad(where, f"`id` must look like AUTH-01 (got {str(rid)[:20]!r})")
        where = f"requirement {rid}"
        if rid in seen:
            raise _bad(where, "is listed twice")
        seen.add(rid)
        unknown = sorted(set(r) - {"id", "category", "text", "tier", "source", "reason"})
        if unknown:
            raise _bad(where, f"unknown field(s) {', '.join(unknown[:5])}")
        tier = r.get("tier")
        if tier not in TIERS:
            raise _bad(where, "`tier` must be v1, v2 or out")
        text = r.get("text")
        if not isinstance(text, str) or not text.strip():
            raise _bad(where, "`text` is missing or empty")
        text = " ".join(text.split())
        if len(text) > MAX_TEXT:
            raise _bad(where, f"`text` is longer than {MAX_TEXT} characters: split it")
        category = r.get("category")
        if tier != "out" and (not isinstance(category, str) or not category.strip()):
            raise _bad(where, "`category` is missing")
        reason = r.get("reason")
        if tier == "out" and (not isinstance(reason, str) or not reason.strip()):
            raise _bad(where, "an out-of-scope requirement needs a `reason`")
        src = r.get("source")
        m = _SOURCE.match(src.strip()) if isinstance(src, str) else None
        if m is None:
            raise _bad(where, "`source` must be <document>:<line> or <document>:<first>-<last>")
        doc, first = m.group("doc").strip(), int(m.group("first"))
        last = int(m.group("last") or first)
        if doc not in docs:
            raise _bad(where, f"`source` names {doc[:80]}, which is not a document of the material")
        if first < 1 or last < first or last > docs[doc]:
            raise _bad(where, f"`source` lines {first}-{last} are not inside {doc} ({docs[doc]} lines)")
        out.append({"id": rid, "tier": tier, "text": clean(text), "category": clean(" ".join(str(category or "").split()))[:80],
                    "reason": clean(" ".join(str(reason or "").split()))[:300],
                    "source": f"{doc}:{first}" + (f"-{last}" if last != first else "")})
    return out


def render(reqs: list[dict], source_label: str, project: str) -> str:
    def group(tier):
        cats: dict[str, list[dict]] = {}
        for r in reqs:
            if r["tier"] == tier:
                cats.setdefault(r["category"], []).append(r)
        return cats

    today = time.strftime("%Y-%m-%d", time.gmtime())
    lines = [f"# Requirements: {project}", "", f"Written {today}, imported from {source_label} (each requirement cites",
             "the document and lines it came from).", "",
             "IDs are `<CATEGORY>-<NN>`. Plans cite them in their `requirements:` frontmatter; the",
             "roadmap maps each one to exactly one phase.", "", "## v1 Requirements", ""]
    for cat, rs in group("v1").items():
        lines += [f"### {cat}", ""] + [f"- [ ] **{r['id']}**: {r['text']} (source: {r['source']})" for r in rs] + [""]
    lines += ["## v2 Requirements", "", "Acknowledged, not in this milestone.", ""]
    v2 = group("v2")
    lines += [f"- **{r['id']}**: {r['text']} (source: {r['source']})" for rs in v2.values() for r in rs] or ["None."]
    lines += ["", "## Out of Scope", "", "| Feature | Reason | Source |", "|---------|--------|--------|"]
    lines += [f"| {r['id']}: {r['text'].replace('|', '/')} | {r['reason'].replace('|', '/')} | {r['source']} |"
              for r in reqs if r["tier"] == "out"]
    lines += ["", "## Traceability", "", "| Requirement | Phase | Status |", "|-------------|-------|--------|"]
    lines += [f"| {r['id']} | - | Pending |" for r in reqs if r["tier"] == "v1"]
    v1 = sum(1 for r in reqs if r["tier"] == "v1")
    lines += ["", f"**Coverage:** 0 of {v1} v1 requirements mapped to a phase.", "", "---", f"*Last updated: {today}*", ""]
    return "\n".join(lines)


BACKUPS = (".msd", "backups")


def _replacing(root: Path, target: Path, text: str) -> str:
    """Before `text` replaces REQUIREMENTS.md: refuse when it drops an id ROADMAP.md maps (the
    planning write guard refuses the same loss), else keep the old file in `.planning/.msd/backups/`
    and return that path (relative to the project)."""
    from msd_core.files.atomic import atomic_write_bytes
    from msd_core.planning.requirements import mapped_lost

    old = _read(target)
    if old is None:
        raise OperationFailed(".planning/REQUIREMENTS.md cannot be read (a link, a folder or binary); not replaced",
                              hint="move it aside by hand, then import again")
    lost = mapped_lost(old, text, _read(root / ".planning" / "ROADMAP.md") or "")
    if lost:
        shown = ", ".join(lost[:12]) + (f" and {len(lost) - 12} more" if len(lost) > 12 else "")
        raise OperationFailed(f"the draft drops {shown}, which ROADMAP.md maps to phases; REQUIREMENTS.md was not replaced",
                              hint="keep each id in the draft (a requirement no longer wanted goes in with tier \"out\" and "
                                   "its reason), or take it off its phase first (`msd_run phase remove <n>` for a whole phase)")
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    folder = root / ".planning" / Path(*BACKUPS)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"REQUIREMENTS-{stamp}.md"
    n = 1
    while path.exists():
        n += 1
        path = folder / f"REQUIREMENTS-{stamp}-{n}.md"
    atomic_write_bytes(path, old.encode("utf-8"), anchor=root)
    return path.relative_to(root).as_posix()


def requirements(root: Path, source: Path, raw: bytes, *, replace: bool = False, screen=None) -> dict:
    from msd_core.files.atomic import lock_timeout_from_env, locked
    from msd_core.files.private_dir import ensure_private_dir
    from msd_core.planning.outside_text import save

    root, source = Path(root), Path(source)
    docs, _skipped = _documents(source)
    counts = {}
    for rel, path in docs.items():
        text = _read(path)
        if text is not None:
            counts[rel] = len(text.splitlines())
    reqs = check_draft(raw, counts)
    target = root / ".planning" / "REQUIREMENTS.md"
    project = root.name
    head = _read(root / ".planning" / "PROJECT.md") or ""
    m = re.search(r"^#\s+(.+)$", head, re.M)
    if m:
        project = m.group(1).strip()[:80]
    with locked(ensure_private_dir(root) / "requirements.lock", lock_timeout_from_env(), what="REQUIREMENTS.md"):
        if (target.exists() or target.is_symlink()) and not replace:
            raise OperationFailed(".planning/REQUIREMENTS.md exists; not replaced",
                                  hint="merge by hand, or replace it once the person agreed", remedy="replace")
        text = render(reqs, source.name, project)
        backup = _replacing(root, target, text) if target.exists() or target.is_symlink() else None
        save(root, target, text, screen=screen)
    extra = {"backup": backup} if backup else {}
    return {"file": ".planning/REQUIREMENTS.md", **extra, "v1": sum(r["tier"] == "v1" for r in reqs),
            "v2": sum(r["tier"] == "v2" for r in reqs), "out": sum(r["tier"] == "out" for r in reqs),
            "documents_cited": len({r["source"].split(":")[0] for r in reqs}), "commit_files": [".planning/REQUIREMENTS.md"]}
