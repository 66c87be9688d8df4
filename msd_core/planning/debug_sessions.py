"""Debug sessions: `.planning/debug/<slug>.md`, the file msd-debugger keeps its method in.

A session survives context resets because everything is in the file: frontmatter
`status`, `slug`, `created`, `updated`, `mode`, then Symptom, Evidence, Hypotheses,
Eliminated, Next step, Root Cause, Fix. The agent writes the sections; this module
decides the file's life:

- start: a new file with a unique slug (2-5 words of the symptom; `-2`, `-3` on a clash),
  status `investigating`.
- list / resume: open sessions (those in `.planning/debug/`, not in `resolved/`), most
  recently updated first; resume picks the named one or the newest.
- close: `resolved` only when the status says the root cause was found
  (root_cause_found, fixing, resolved) and Root Cause is filled in; `abandoned` always.
  The file moves to `.planning/debug/resolved/<slug>.md` with its status set.

Writes are atomic under `.planning/.msd/debug.lock`. Standard library only.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError

STATUSES = ("investigating", "root_cause_found", "fixing", "resolved", "blocked", "abandoned")
FOUND = ("root_cause_found", "fixing", "resolved")
MAX_BYTES = 512 * 1024
_SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,59}$")
_FM_LINE = re.compile(r"^(status|slug|created|updated|mode|source):[ \t]*(.*?)[ \t]*$")
PLACEHOLDER = "(filled when proven)"


def debug_dir(root: Path) -> Path:
    return root / ".planning" / "debug"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def slug_for(symptom: str) -> str:
    words = re.findall(r"[a-z0-9]+", symptom.lower())
    return "-".join(words[:5])[:50].strip("-") or "session"


def _check_slug(slug: str) -> str:
    if not _SLUG_RE.match(slug or ""):
        raise UsageError(f"{slug!r} is not a session slug (lower-case words joined by -)")
    return slug


def _read(path: Path) -> str:
    from msd_core.files.safe_read import read_regular

    try:
        return read_regular(path, MAX_BYTES, follow_symlinks=False).decode("utf-8", errors="replace")
    except FileNotFoundError:
        raise OperationFailed(f"no debug session {path.stem!r}", hint="`msd_run debug list` shows the open ones") from None
    except OSError as exc:
        raise OperationFailed(f"cannot read {path}: {exc.strerror or exc}") from None


def meta(text: str) -> dict:
    out: dict[str, str] = {}
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return out
    for line in lines[1:60]:
        if line.strip() == "---":
            break
        m = _FM_LINE.match(line)
        if m:
            out[m.group(1)] = m.group(2).strip("'\"")
    return out


def section(text: str, title: str) -> str:
    m = re.search(rf"^## {re.escape(title)}[ \t]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return m.group(1).strip() if m else ""


def _set_meta(text: str, **values: str) -> str:
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise OperationFailed("the session file has no frontmatter; fix it by hand")
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise OperationFailed("the session file's frontmatter has no closing ---")
    for key, value in values.items():
        for i in range(1, end):
            if lines[i].startswith(f"{key}:"):
                lines[i] = f"{key}: {value}\n"
                break
        else:
            lines.insert(end, f"{key}: {value}\n")
            end += 1
    return "".join(lines)


def _summary(path: Path, root: Path) -> dict:
    text = _read(path)
    m = meta(text)
    status = m.get("status", "")
    return {"slug": path.stem, "status": status if status in STATUSES else f"unknown:{status[:30]}",
            "updated": m.get("updated", ""), "mode": m.get("mode", "diagnose"),
            "file": path.relative_to(root).as_posix(), "next_step": section(text, "Next step")[:300],
            "symptom": section(text, "Symptom")[:300]}


def _sessions(folder: Path) -> list[Path]:
    try:
        return [Path(e.path) for e in os.scandir(folder)
                if e.name.endswith(".md") and e.is_file(follow_symlinks=False) and not e.name.startswith(".")]
    except FileNotFoundError:
        return []


def list_sessions(root: Path, include_closed: bool = False) -> list[dict]:
    found = [_summary(p, root) for p in _sessions(debug_dir(root))]
    if include_closed:
        found += [dict(_summary(p, root), closed=True) for p in _sessions(debug_dir(root) / "resolved")]
    return sorted(found, key=lambda s: s["updated"], reverse=True)


def _lock(root: Path):
    from msd_core.files.atomic import lock_timeout_from_env, locked
    from msd_core.files.private_dir import ensure_private_dir

    return locked(ensure_private_dir(root) / "debug.lock", lock_timeout_from_env(), what="debug sessions")


def start(root: Path, symptom: str, slug: str | None = None, mode: str = "diagnose", source: str | None = None) -> dict:
    from msd_core.files.atomic import atomic_write_text

    symptom = " ".join((symptom or "").split())
    if not symptom:
        raise UsageError("describe the symptom: msd_run debug start \"<what goes wrong>\"")
    if mode not in ("diagnose", "fix"):
        raise UsageError(f"{mode!r} is not a mode: diagnose or fix", about="mode")
    base = _check_slug(slug) if slug else slug_for(symptom)
    folder = debug_dir(root)
    with _lock(root):
        taken = {p.stem for p in _sessions(folder)} | {p.stem for p in _sessions(folder / "resolved")}
        name, n = base, 2
        while name in taken:
            name, n = f"{base}-{n}", n + 1
        now = _now()
        src = f"source: {' '.join(source.split())[:200]}\n" if source else ""
        body = (f"---\nstatus: investigating\nslug: {name}\ncreated: {now}\nupdated: {now}\nmode: {mode}\n{src}---\n"
                f"# Debug: {name}\n\n## Symptom\n{symptom}\n\n## Evidence\n\n## Hypotheses\n\n## Eliminated\n\n"
                f"## Next step\nReproduce the symptom.\n\n## Root Cause\n{PLACEHOLDER}\n\n## Fix\n")
        path = folder / f"{name}.md"
        atomic_write_text(path, body, anchor=root)
    return {"created": True, **_summary(path, root)}


def resume(root: Path, slug: str | None = None) -> dict:
    if slug:
        return _summary(debug_dir(root) / f"{_check_slug(slug)}.md", root)
    open_ = list_sessions(root)
    if not open_:
        raise OperationFailed("no open debug session", hint="start one: /msd-debug <symptom>")
    return open_[0]


def close(root: Path, slug: str, outcome: str) -> dict:
    from msd_core.files.atomic import atomic_write_text

    if outcome not in ("resolved", "abandoned"):
        raise UsageError(f"{outcome!r} is not an outcome: resolved or abandoned", about="outcome")
    path = debug_dir(root) / f"{_check_slug(slug)}.md"
    with _lock(root):
        text = _read(path)
        status = meta(text).get("status", "")
        if outcome == "resolved":
            cause = section(text, "Root Cause")
            if status not in FOUND or not cause or cause == PLACEHOLDER:
                raise OperationFailed(f"session {slug} has status {status or 'none'} and no proven root cause;"
                                      " it cannot close as resolved",
                                      hint=f"close it as abandoned (`msd_run debug close {slug} --as abandoned`), or finish it")
        new = _set_meta(text, status=outcome, updated=_now())
        dest = debug_dir(root) / "resolved" / path.name
        if dest.exists():
            raise OperationFailed(f"{dest.relative_to(root)} already exists; rename the session first")
        atomic_write_text(dest, new, anchor=root)
        path.unlink()
    return {"closed": True, **_summary(dest, root)}
