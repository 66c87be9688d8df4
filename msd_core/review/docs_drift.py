"""The docs a milestone left behind: which of the project's documents no longer match the code.

Documents: README*, CONTRIBUTING*, and every markdown file under `docs/` (at most MAX_DOCS,
links not followed). Changed: every file the current milestone's phases touched
(msd_core.review.scope: their plans' files and the commits msd recorded), `.planning/` left out.
Per document:
  broken    paths it names (in backticks or as a relative markdown link) that do not exist
  changed   changed files it names (by path, or by file name when that name is unique
            among the changed files)
A document is stale when it has a broken path, or names a changed file and was not itself
among the changed files. `check` (msd_run docs drift --check) exits 1 while one is stale.
Standard library only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

MAX_DOCS = 300
MAX_READ = 512 * 1024
_TICK = re.compile(r"`([A-Za-z0-9_.\-][A-Za-z0-9_.\-/]*\.[A-Za-z0-9]{1,8})(?::\d+(?:-\d+)?)?`")
_LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)\s#]+)(?:#[^)]*)?\)")


def documents(root: Path) -> list[str]:
    root = Path(root)
    out = []
    for e in sorted(os.scandir(root), key=lambda e: e.name) if root.is_dir() else []:
        if e.is_file(follow_symlinks=False) and re.match(r"^(README|CONTRIBUTING)(\.[a-z]+)?$", e.name, re.I):
            out.append(e.name)
    docs = root / "docs"
    if docs.is_dir() and not docs.is_symlink():
        from msd_core.files.walk import walk  # iterative, depth-capped (no RecursionError)

        for top, dirs, files in walk(docs):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if name.lower().endswith((".md", ".markdown", ".mdx")) and not (Path(top) / name).is_symlink():
                    out.append((Path(top) / name).relative_to(root).as_posix())
    return out[:MAX_DOCS]


def changed_files(root: Path) -> tuple[list[str], list[str]]:
    """(files the current milestone's phases touched, notes)."""
    from msd_core.errors import MsdError
    from msd_core.planning.discovery import phase_dirs
    from msd_core.review.scope import phase_scope

    files, notes = set(), []
    for d in phase_dirs(Path(root) / ".planning"):
        if d.milestone is not None or d.number is None:
            continue
        try:
            sc = phase_scope(root, d.name)
        except MsdError as exc:
            notes.append(f"{d.name}: {exc.message}")
            continue
        files.update(f["path"] for f in sc.files)
    return sorted(files), notes


def _named(text: str) -> set[str]:
    names = {m.group(1) for m in _TICK.finditer(text)}
    names |= {m.group(1) for m in _LINK.finditer(text)}
    return {n.lstrip("./") if n.startswith("./") else n for n in names if "://" not in n}


def drift(root: Path) -> dict:
    from msd_core.review.project_files import inside, read_text

    root = Path(root)
    changed, notes = changed_files(root)
    by_name: dict[str, list[str]] = {}
    for c in changed:
        by_name.setdefault(c.rsplit("/", 1)[-1], []).append(c)
    out = []
    for doc in documents(root):
        text = read_text(root, doc, MAX_READ)
        if text is None:
            continue
        base = Path(doc).parent
        broken, hits = [], []
        for name in sorted(_named(text)):
            candidates = [name] if "/" in name else [name]
            if base != Path("."):
                candidates.append((base / name).as_posix())
            norm = [os.path.normpath(c).replace(os.sep, "/") for c in candidates]
            exists = any(inside(root, c) and (root / c).exists() for c in norm)
            if name in changed or any(c in changed for c in norm):
                hits.append(next(c for c in [name, *norm] if c in changed))
            elif "/" not in name and len(by_name.get(name, [])) == 1:
                hits.append(by_name[name][0])
            if not exists and "/" in name and not any(c in changed for c in norm):
                broken.append(name)
        touched = doc in changed
        stale = bool(broken) or (bool(hits) and not touched)
        if stale or hits:
            out.append({"path": doc, "stale": stale, "broken": broken[:20], "changed": sorted(set(hits))[:20],
                        "updated_in_milestone": touched})
    result = {"documents": len(documents(root)), "changed_files": len(changed), "stale": [d for d in out if d["stale"]],
              "current": [d["path"] for d in out if not d["stale"]]}
    if notes:
        result["notes"] = notes[:20]
    return result
