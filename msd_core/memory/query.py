"""Queries over the memory index, ranked with bm25.

Each hit: {"file", "phase", "plan", "field" | "section", "snippet", "score"}.
Structured queries match whole words in frontmatter facts first (what a phase *declared*),
then in section text; a symbol with upper-case letters matches case-sensitively, so
"User" finds the User model and not "user experience".
"""

from __future__ import annotations

import re
import sqlite3

SNIPPET_CHARS = 160
FACT_CHARS = 320  # a declared fact is short: return it whole up to this length
TYPE_FIELDS = {
    "file": ("key_files",),
    "model": ("provides", "requires", "key_files", "affects", "tech_stack"),
    "api": ("provides", "requires", "affects"),
    "lib": ("tech_stack", "requires"),
    "any": ("provides", "requires", "key_files", "affects", "tech_stack", "patterns", "decisions", "tags"),
}
PATTERN_FIELDS = ("patterns", "tech_stack")
PATTERN_HEADINGS = ("pattern", "convention", "approach", "architecture", "how")


def fts_query(text: str, any_term: bool = False) -> str | None:
    """A safe FTS5 MATCH expression: every word quoted (AND, or OR with any_term)."""
    words = re.findall(r"\w+", text, flags=re.UNICODE)
    if not words:
        return None
    joiner = " OR " if any_term else " "
    return joiner.join('"' + w.replace('"', '""') + '"' for w in words)


def word_re(symbol: str) -> re.Pattern:
    flags = 0 if any(c.isupper() for c in symbol) else re.IGNORECASE
    return re.compile(r"(?<![\w])" + re.escape(symbol) + r"(?![\w])", flags)


def _snippet(text: str, rx: re.Pattern | None = None) -> str:
    flat = " ".join(text.split())
    if len(flat) <= SNIPPET_CHARS:
        return flat
    if rx:
        m = rx.search(flat)
        if m:
            start = max(0, m.start() - SNIPPET_CHARS // 3)
            piece = flat[start:start + SNIPPET_CHARS]
            return ("…" if start else "") + piece + ("…" if start + SNIPPET_CHARS < len(flat) else "")
    return flat[:SNIPPET_CHARS] + ("…" if len(flat) > SNIPPET_CHARS else "")


def _fact(value: str, rx: re.Pattern | None = None) -> str:
    flat = " ".join(value.split())
    return flat if len(flat) <= FACT_CHARS else _snippet(flat, rx)


def _file_info(conn: sqlite3.Connection, file_id) -> tuple:
    return conn.execute("SELECT path, phase, plan, subsystem FROM files WHERE id = ?", (file_id,)).fetchone()


def search(conn: sqlite3.Connection, text: str, limit: int = 10) -> list[dict]:
    q = fts_query(text)
    if not q:
        return []
    hits = []
    for body, heading, path, file_id, score, snip in conn.execute(
        "SELECT body, heading, path, file_id, bm25(sections), snippet(sections, 0, '[', ']', '…', 24) "
        "FROM sections WHERE sections MATCH ? ORDER BY bm25(sections) LIMIT ?",
        (q, limit),
    ):
        info = _file_info(conn, file_id)
        hits.append({"file": path, "phase": info[1], "plan": info[2], "section": heading or "(top)",
                     "snippet": " ".join(snip.split()), "score": round(-score, 4)})
    for value, fname, file_id, score in conn.execute(
        "SELECT value, field, file_id, bm25(facts_fts) FROM facts_fts WHERE facts_fts MATCH ? ORDER BY bm25(facts_fts) LIMIT ?",
        (q, limit),
    ):
        info = _file_info(conn, file_id)
        hits.append({"file": info[0], "phase": info[1], "plan": info[2], "field": fname,
                     "snippet": _snippet(value), "score": round(-score, 4)})
    hits.sort(key=lambda h: -h["score"])
    return hits[:limit]


def _fact_hits(conn, q: str, fields: tuple, rx: re.Pattern, limit: int, bonus: float = 0.0) -> list[dict]:
    marks = ",".join("?" * len(fields))
    out = []
    for value, fname, file_id, score in conn.execute(
        f"SELECT value, field, file_id, bm25(facts_fts) FROM facts_fts WHERE facts_fts MATCH ? AND field IN ({marks}) "
        "ORDER BY bm25(facts_fts) LIMIT ?",
        (q, *fields, limit * 5),
    ):
        if not rx.search(value):
            continue
        info = _file_info(conn, file_id)
        out.append({"file": info[0], "phase": info[1], "plan": info[2], "field": fname,
                    "snippet": _fact(value, rx), "score": round(-score + bonus, 4)})
    return out


def _section_hits(conn, q: str, rx: re.Pattern, limit: int, headings: tuple = ()) -> list[dict]:
    out = []
    for body, heading, path, file_id, score in conn.execute(
        "SELECT body, heading, path, file_id, bm25(sections) FROM sections WHERE sections MATCH ? ORDER BY bm25(sections) LIMIT ?",
        (q, limit * 5),
    ):
        if headings and not any(h in (heading or "").lower() for h in headings):
            continue
        if not rx.search(body) and not rx.search(heading or ""):
            continue
        info = _file_info(conn, file_id)
        out.append({"file": path, "phase": info[1], "plan": info[2], "section": heading or "(top)",
                    "snippet": _snippet(body, rx), "score": round(-score, 4)})
    return out


def _dedupe(hits: list[dict], limit: int) -> list[dict]:
    seen, out = set(), []
    for h in sorted(hits, key=lambda h: -h["score"]):
        key = (h["file"], h.get("field"), h.get("section"), h["snippet"])
        if key not in seen:
            seen.add(key)
            out.append(h)
    return out[:limit]


def what_uses(conn: sqlite3.Connection, symbol: str, kind: str = "any", limit: int = 10) -> list[dict]:
    q = fts_query(symbol)
    if not q:
        return []
    rx = word_re(symbol)
    fields = TYPE_FIELDS.get(kind, TYPE_FIELDS["any"])
    hits = _fact_hits(conn, q, fields, rx, limit, bonus=100.0)  # declared facts rank above prose
    if kind != "file":
        hits += _section_hits(conn, q, rx, limit)
    return _dedupe(hits, limit)


def pattern_for(conn: sqlite3.Connection, domain: str, limit: int = 10) -> list[dict]:
    q = fts_query(domain, any_term=True)
    if not q:
        return []
    rx = re.compile("|".join(re.escape(w) for w in re.findall(r"\w+", domain)), re.IGNORECASE)
    hits = _fact_hits(conn, q, PATTERN_FIELDS, rx, limit, bonus=100.0)
    hits += _section_hits(conn, q, rx, limit, headings=PATTERN_HEADINGS)
    return _dedupe(hits, limit)


def decisions_affecting(conn: sqlite3.Connection, subsystem: str, limit: int = 20) -> list[dict]:
    """Decisions recorded by files whose subsystem, affects or tags name SUBSYSTEM, then decisions mentioning it."""
    rx = word_re(subsystem)
    rx_ci = re.compile(rx.pattern, re.IGNORECASE)
    owners = set()
    for file_id, sub in conn.execute("SELECT id, subsystem FROM files"):
        if sub and rx_ci.search(sub):
            owners.add(file_id)
    for file_id, value in conn.execute("SELECT file_id, value FROM facts WHERE field IN ('affects', 'tags', 'subsystem')"):
        if rx_ci.search(value):
            owners.add(file_id)
    hits = []
    for file_id, value in conn.execute("SELECT file_id, value FROM facts WHERE field = 'decisions' ORDER BY file_id"):
        info = _file_info(conn, file_id)
        if file_id in owners:
            score = 200.0
        elif rx_ci.search(value):
            score = 100.0
        else:
            continue
        hits.append({"file": info[0], "phase": info[1], "plan": info[2], "field": "decisions",
                     "subsystem": info[3], "snippet": _fact(value, rx_ci), "score": score})
    q = fts_query(subsystem)
    if q:
        hits += _section_hits(conn, q, rx_ci, limit, headings=("decision",))
    return _dedupe(hits, limit)
