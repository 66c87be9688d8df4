"""Exploration notes: questions about the codebase or an idea, answered into
`.planning/explorations/<slug>.md`, and nothing else (no plan, no phase, no STATE change).

What is checked before the note is saved:
  - the topic: one line, at most MAX_TOPIC characters; the slug: from the topic (or
    `--slug`), `-2`, `-3` on a clash, so an earlier note is never overwritten;
  - the note: text, not empty, at most MAX_NOTE bytes;
  - citations: every `path:line` in backticks must name a project file that exists and a line
    inside it (an answer about the code points at the code), else a usage error naming the
    first ones; a bare backticked path that does not exist is listed (`not_found`), not refused
    (an idea may name a file to be written);
  - the text goes through the injection screen (msd_core.planning.outside_text.save).
Standard library only.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError

MAX_TOPIC = 200
MAX_NOTE = 256 * 1024
MAX_CITES = 500
_CITE_RE = re.compile(r"`([A-Za-z0-9_.\-][A-Za-z0-9_.\-/]*/[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-]|[A-Za-z0-9_\-]+\.[A-Za-z0-9]{1,8})(?::(\d+)(?:-(\d+))?)?`")


def notes_dir(root: Path) -> Path:
    return Path(root) / ".planning" / "explorations"


def citations(root: Path, text: str) -> tuple[list[dict], list[str], list[str]]:
    """(cited [{path, line?}], bad `path:line` citations with why, bare paths not found)."""
    from msd_core.review.project_files import inside, read_text

    cited, bad, not_found, seen = [], [], [], set()
    for m in _CITE_RE.finditer(text):
        path, line, end = m.group(1).strip("/"), m.group(2), m.group(3)
        if "://" in m.group(0) or (path, line) in seen:
            continue
        seen.add((path, line))
        if len(seen) > MAX_CITES:
            break
        ok = inside(root, path) and (Path(root) / path).is_file() and not (Path(root) / path).is_symlink()
        if line is None:
            (cited.append({"path": path}) if ok else not_found.append(path))
            continue
        if not ok:
            bad.append(f"{path}:{line} (no such file)")
            continue
        body = read_text(root, path, 8 * 1024 * 1024)
        count = 0 if body is None else body.count("\n") + (0 if body.endswith("\n") or not body else 1)
        last = int(end) if end else int(line)
        if int(line) < 1 or last > count or last < int(line):
            bad.append(f"{path}:{line}{'-' + end if end else ''} (the file has {count} lines)")
            continue
        cited.append({"path": path, "line": int(line)})
    return cited, bad, not_found


def record(root: Path, topic: str, raw: bytes, slug: str | None = None, *, screen=None) -> dict:
    from msd_core.files.atomic import lock_timeout_from_env, locked
    from msd_core.files.private_dir import ensure_private_dir
    from msd_core.planning.outside_text import clean, save, yaml_str

    topic = " ".join((topic or "").split())
    if not topic:
        raise UsageError("the topic is empty: name what was explored", about="topic")
    if len(topic) > MAX_TOPIC:
        raise UsageError(f"the topic is longer than {MAX_TOPIC} characters", about="topic")
    if len(raw) > MAX_NOTE:
        raise UsageError(f"the note is larger than {MAX_NOTE} bytes")
    text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        raise UsageError("the note is empty")
    cited, bad, not_found = citations(root, text)
    if bad:
        raise UsageError(f"the note cites lines that are not there: {'; '.join(bad[:5])}"
                         + (f" and {len(bad) - 5} more" if len(bad) > 5 else ""),
                         hint="cite `path:line` as the file is now, or drop the line number")
    from msd_core.review.slugs import choose

    base = choose(topic, slug, 6, "note")
    folder = notes_dir(root)
    with locked(ensure_private_dir(root) / "explorations.lock", lock_timeout_from_env(), what="exploration notes"):
        name, n = base, 1
        while (folder / f"{name}.md").exists() or (folder / f"{name}.md").is_symlink():
            n += 1
            if n > 99:
                raise OperationFailed(f"99 notes named {base} already", hint="choose another slug", remedy="slug")
            name = f"{base}-{n}"
        lines = ["---", f"topic: {yaml_str(topic, MAX_TOPIC)}", f"written: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}",
                 "cites:" if cited else "cites: []"]
        lines += [f"  - {yaml_str(c['path'] + (':' + str(c['line']) if 'line' in c else ''), 300)}" for c in cited[:100]]
        lines.append("---")
        body = clean(text).strip()
        if not body.lstrip().startswith("#"):
            body = f"# {topic}\n\n{body}"
        path = folder / f"{name}.md"
        save(root, path, "\n".join(lines) + "\n" + body + "\n", screen=screen)
    rel = path.relative_to(root).as_posix()
    out = {"file": rel, "topic": topic, "cites": len(cited), "commit_files": [rel]}
    if not_found:
        out["not_found"] = not_found[:20]
    return out


def list_notes(root: Path) -> dict:
    from msd_core.files.safe_read import read_head
    from msd_core.planning.frontmatter import split_frontmatter

    folder = notes_dir(root)
    out = []
    for p in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        if p.is_symlink():
            continue
        try:
            data, _body, error = split_frontmatter(read_head(p, 64 * 1024, follow_symlinks=False).decode("utf-8", "replace"))
        except OSError:
            continue
        topic = data.get("topic") if isinstance(data, dict) and not error else None
        out.append({"file": p.relative_to(root).as_posix(), "topic": topic})
    return {"notes": out}
