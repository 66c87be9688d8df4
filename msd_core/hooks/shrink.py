"""How much of a `.planning/` document a write would leave, against a reference that outlives the session.

What counts is text, not bytes (`measure`): the non-whitespace characters of the document's distinct
lines, and the characters of its distinct words. A write keeps the smaller of the two shares: blanking
every line to spaces keeps none of either, the same line repeated keeps one line's worth, and words
replaced by filler keep only the filler's few distinct words. A rewrite that says the same in other
words keeps both shares near what it had.

The reference (`reference`) is the largest of, measure by measure:
- the document as it is now;
- its last committed version, `git show HEAD:./<path>` through msd's git launcher (one process, only
  for a write that loses text): a commit is the checkpoint a person can see and return to;
- the guard's record in `.planning/.msd/guard/references.json` `{path: {"lines", "words", "bytes",
  "committed", "at"}}`, written on the first losing write and kept across sessions, so three
  sessions each cutting a document to 55 % are measured against where the first one started.
  The record lapses when the document's committed version changes (the new commit is the reference
  now) and when a person lets one write through (`msd guard allow`: pre_tool_use calls `forget`).

A document whose reference is under `min_bytes` bytes is not measured. msd_run's own writes do not
move the record (a document msd_run shrank may meet its old reference on the agent's next cut:
`msd guard allow` once). Standard library only; nothing is written for a write that loses nothing.
"""

from __future__ import annotations

import time

RECORD = "references.json"
MAX_RECORDS = 512
_PUNCT = "#*-_|`:.,;()[]{}<>\"'!?=+/\\~>"


def measure(text: str) -> tuple[int, int]:
    """(characters of the distinct lines without whitespace, characters of the distinct words)."""
    lines: set[str] = set()
    words: set[str] = set()
    line_chars = 0
    for line in text.splitlines():
        parts = line.split()
        key = "".join(parts)
        if key and key not in lines:
            lines.add(key)
            line_chars += len(key)
        for w in parts:
            w = w.strip(_PUNCT).lower()
            if w:
                words.add(w)
    return line_chars, sum(len(w) for w in words)


def _committed(planning: str, rel: str) -> str | None:
    """The document's text in HEAD (None: no repository, no commit, or git does not track it)."""
    from msd_core.errors import MsdError
    from msd_core.git.runner import git

    try:
        proc = git(["show", f"HEAD:./{rel}"], planning, check=False, timeout=5)
    except (MsdError, OSError):
        return None
    out = proc.stdout if proc.returncode == 0 else None
    return out if isinstance(out, str) else None


def _digest(text: str | None) -> str | None:
    if text is None:
        return None
    import hashlib

    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def _entry(planning: str, rel: str) -> dict | None:
    from msd_core.hooks.guard_memory import read_record

    value = read_record(planning, RECORD).get(rel)
    ok = isinstance(value, dict) and all(isinstance(value.get(k), int) and not isinstance(value.get(k), bool)
                                         for k in ("lines", "words", "bytes"))
    return value if ok else None


def _keep(planning: str, rel: str, ref: dict) -> None:
    from msd_core.hooks.guard_memory import held

    try:
        with held(planning) as h:
            doc = h.read(RECORD)
            doc[rel] = ref
            if len(doc) > MAX_RECORDS:
                newest = sorted(doc, key=lambda k: doc[k].get("at", 0) if isinstance(doc[k], dict) else 0)[-MAX_RECORDS:]
                doc = {k: doc[k] for k in newest}
            h.write(RECORD, doc)
    except Exception:  # noqa: BLE001 - a read-only project or a held lock: no memory this time
        pass


def forget(planning: str, rel: str) -> None:
    """Drop the record of `rel` (a person let a write through: what it leaves is the new start)."""
    from msd_core.hooks.guard_memory import held

    if _entry(planning, rel) is None:
        return
    try:
        with held(planning) as h:
            doc = h.read(RECORD)
            if doc.pop(rel, None) is not None:
                h.write(RECORD, doc)
    except Exception:  # noqa: BLE001
        pass


def reference(planning: str, rel: str, old: str, old_measure: tuple[int, int], min_bytes: int = 0) -> dict:
    """{"lines", "words", "bytes"} the write is measured against (recorded when new and at least `min_bytes`)."""
    committed = _committed(planning, rel)
    digest = _digest(committed)
    ref = {"lines": old_measure[0], "words": old_measure[1], "bytes": len(old.encode("utf-8"))}
    if committed is not None:
        c = measure(committed)
        ref = {"lines": max(ref["lines"], c[0]), "words": max(ref["words"], c[1]),
               "bytes": max(ref["bytes"], len(committed.encode("utf-8")))}
    kept = _entry(planning, rel)
    if kept is not None and kept.get("committed") == digest:
        return {k: max(ref[k], kept[k]) for k in ("lines", "words", "bytes")}
    if ref["bytes"] >= min_bytes:
        _keep(planning, rel, {**ref, "committed": digest, "at": time.time()})
    return ref


def findings(planning: str, rel: str, old: str, new: str, percent: int, min_bytes: int) -> list[str]:
    before, after = measure(old), measure(new)
    if after[0] >= before[0] and after[1] >= before[1]:
        return []  # loses no text
    ref = reference(planning, rel, old, before, min_bytes)
    if ref["bytes"] < min_bytes:
        return []
    shares = [100 * a // r if r else 100 for a, r in zip(after, (ref["lines"], ref["words"]))]
    kept = min(shares)
    if kept >= percent:
        return []
    since = ""
    if (ref["lines"], ref["words"]) != before:
        since = " (its reference is the larger of the document's last committed version and where the guard first saw it cut)"
    return [f"it would keep {kept}% of the document's text{since}: under the {percent}% a write may leave (text counts "
            f"without whitespace, repeated lines or repeated words: {after[0]:,} of {ref['lines']:,} characters of "
            f"distinct lines, {after[1]:,} of {ref['words']:,} of distinct words). A Write replaces the whole file: "
            "write all of it, or change a part with Edit"]
