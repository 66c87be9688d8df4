"""The text `msd_run resolve STEM --emit` prints for the host to insert into a skill.

compact off: each verified part in reading order, preceded by a marker line
  `<!-- msd:part msd-core/workflows/<stem>/detail/NN-x.md -->`.
compact on: one line saying the workflow runs on its spine.
over budget: the longest prefix of parts that fits is inlined; the rest are listed by
  absolute path under one instruction line. The whole output stays within max_chars
  (default 28,000, under the host's 30,000-character shell-output limit).
failure: one notice line, never unverified text (see notice()).
"""

from __future__ import annotations

DEFAULT_MAX_CHARS = 28000
MIN_MAX_CHARS = 200
MAX_MAX_CHARS = 10_000_000  # larger budgets are a usage error (the host caps output far below)
NOTICE_MAX = 300


def marker(relpath: str) -> str:
    return f"<!-- msd:part {relpath} -->"


def compact_line(stem: str) -> str:
    return (f"<!-- msd:compact --> Compact content is on for this project: run the {stem} workflow "
            "on the spine above alone; no detail parts are loaded.")


def _clean(text: str, limit: int) -> str:
    clean = "".join(ch if ch.isprintable() else " " for ch in str(text))
    clean = " ".join(clean.split())
    return clean[: limit - 3] + "..." if len(clean) > limit else clean


def notice(reason: str, fix: str | None = None) -> str:
    """One line: what failed, that the skill runs on its spine, and the failure's own fix (the
    exact repair command for a damaged install; nothing for, say, a bad argument).
    Control characters removed."""
    line = (f"<!-- msd:notice --> Detail parts not loaded ({_clean(reason, NOTICE_MAX)}); "
            "run this workflow on the spine above.")
    if fix:
        fixed = _clean(fix, NOTICE_MAX)
        line += " To fix: " + fixed[0].upper() + fixed[1:] + "."
    return line


def fallback_block(paths: list[str]) -> str:
    head = ("<!-- msd:parts-by-path --> These detail parts did not fit here: Read each file below "
            "before the step that needs it.")
    return "\n".join([head, *paths]) + "\n"


def _chunk(relpath: str, text: str) -> str:
    body = text if text.endswith("\n") else text + "\n"
    return marker(relpath) + "\n" + body


def render(resolved, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """The emit text for a Resolved (msd_core.resolve.parts) within `max_chars` characters."""
    if resolved.compact:
        return compact_line(resolved.stem) + "\n"
    chunks = [_chunk(p.relpath, p.data.decode("utf-8")) for p in resolved.parts]
    paths = [p.path for p in resolved.parts]
    total = sum(len(c) for c in chunks)
    if total <= max_chars:
        return "".join(chunks)
    # the longest prefix of inlined parts that leaves room for the list of the others
    used = 0
    best = 0
    for k in range(len(chunks) + 1):
        rest = fallback_block(paths[k:]) if k < len(chunks) else ""
        if used + len(rest) <= max_chars:
            best = k
        if k < len(chunks):
            used += len(chunks[k])
            if used > max_chars:
                break
    return "".join(chunks[:best]) + fallback_block(paths[best:])
