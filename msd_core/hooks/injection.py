"""Instructions aimed at the agent in text about to be saved into `.planning/`, and their quarantine.

Text an agent brings in (a fetched page, a search result, a README, a document the user points
to) can carry orders for whatever model reads it later; saved as a plan or research note, they
would be read as the project's own words. The screen looks for text *addressed to the agent*
(orders to drop its instructions, said plainly or in other words; text addressed to an AI
reader, in prose or in an HTML comment; "new instructions for the assistant"; role changes;
secrecy from the user; prompt leaks; exfiltration; chat-template turn markers and `<system>`
tags), not for words *about* such attacks: a match is let through when it is only mentioned
(_mentioned): inside fenced code (a fence left open shields nothing), inside inline code, inside
quotes within a sentence of its own, after words that discuss an attack earlier in its sentence
(CUES: "an attacker may ...", "payloads such as ..."), or just after a negation (NEGATIONS: "the
bot must never reveal ..."). None of that excuses a match the normalising below had to uncover.
Tested on every file of the real `.planning/` corpus and on the labelled cases of
tests/hooks/guard_corpus/injection.json (`scripts/bench_guards.py --accuracy` counts them).

Before matching, each line is normalised (normalise()): invisible characters (zero-width space,
joiners, word joiner, soft hyphen, BOM, bidirectional controls) removed, NFKC, look-alike
Cyrillic and Greek letters read as the Latin ones (CONFUSABLE); letters spaced out
(`i g n o r e  a l l`) are closed up and runs of blanks read as one; the lines of a paragraph are
matched together (an order split over two lines). A phrase that shows only once a paragraph's
letters are run together (a word split at a line's end, letters spaced out) is `obfuscated`;
long base64 runs are decoded (bounded: MAX_DECODED runs of at most MAX_RUN characters) and the
text screened (`encoded`). Hidden characters count on their own: Unicode tag characters outside
flag emoji, bidirectional overrides, and isolates or embeddings left open on their line (closed
isolates are ordinary i18n text).

Only the lines a write adds are screened (an Edit's new text, a Write's lines the file did not
have), so a file already holding such text can still be edited elsewhere. A hit is not saved:
the text goes to `.planning/.msd/quarantine/<time>-<path>.md` under a note saying what matched
and where, and the write is refused with that note. Standard library only; `re` patterns are
compiled only where a paragraph holds one of their anchors (ROWS, in injection_rows.py with
the rest of what the screen looks for).
"""

from __future__ import annotations

from msd_core.hooks.injection_rows import (
    _NOUNS,
    CONFUSABLE,
    CUES,
    ENCODED,
    HIDDEN,
    IMPERATIVE,
    INVISIBLE,
    MAX_DECODED,
    MAX_FINDINGS,
    MAX_RUN,
    MAX_SCREEN_CHARS,
    MIN_RUN,
    NEGATIONS,
    OBFUSCATED,
    ROWS,
    RUN_GATE,
    RUN_TOGETHER,
    SEPARATOR,
    STEALTH,
    WHAT,
)

_compiled: dict = {}  # row index -> compiled pattern
NEEDS: dict = {}  # row index -> what the text must hold for the row to be tried (its `where` after "+")
_helpers: dict = {}


def _row(i: int):
    got = _compiled.get(i)
    if got is None:
        import re  # only where a row's anchor is found: most writes compile nothing

        got = _compiled[i] = re.compile(ROWS[i][3], re.M)
    return got


def _helper(name: str):
    got = _helpers.get(name)
    if got is None:
        import re

        got = _helpers[name] = re.compile(HELPERS[name], re.M)
    return got


HELPERS = {
    "spaced": r"(?<![A-Za-z])(?:[A-Za-z] {1,3}){3,}[A-Za-z](?![A-Za-z])",
    "spaced-gate": r" [a-z] [a-z] [a-z] ",
    "base64": r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{%d,}={0,2}(?![A-Za-z0-9+/=_-])" % MIN_RUN,
    "letters": r"[^a-z]+",
    "cues": CUES,
    "negation": NEGATIONS,
    "quotes": r"\"[^\"\n]+\"|“[^”\n]+”|‘[^’\n]+’|«[^»\n]+»|(?<![\w'])'[^'\n]+'(?![\w'])",
    "code": r"`[^`\n]+`",
    "sentence": r"[.!?](?=\s)|\n(?=[\s>]*(?:[-*+]\s|\d+[.)]\s|#|\|))",
    "fence": r"^[\s>]*(```+|~~~+)",
    "noun-before": _NOUNS + r"\s+(?:that\s+)?$",
    "unusual": "[\u00ad\u034f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\U000e0000-\U000e007f]",
    "lookalike": "[\u0130\u0131\u0251\u0261\u0370-\u03ff\u0400-\u052f\u2113]",
}
_MARKS = " \t>*_#-+"


def _starts(low: str, pos: int, where: str) -> bool:
    """Whether `pos` is where a row may match (ROWS: `where`)."""
    if where == "any":
        return True
    if where == "after-noun":  # "the rules you were given ...": a noun of _NOUNS just before
        return _helper("noun-before").search(low, max(0, pos - 48), pos) is not None
    if where == "imperative":
        head = max(low.rfind("\n", 0, pos), *(low.rfind(p, 0, pos) for p in (". ", "! ", "? ", ": ")), pos - 200) + 1
        sentence = low[head:pos]
        words = sentence.replace("*", " ").replace(">", " ").split()
        first = words[0] if words and words[0] not in ("-", "+") else (words[1] if len(words) > 1 else "")
        return first.strip("_") in IMPERATIVE or (any(w in sentence for w in STEALTH)
                                                  and any(w.strip("_,;") in IMPERATIVE for w in words))
    j = pos - 1
    while j >= 0 and low[j] in _MARKS:
        j -= 1
    if j < 0 or low[j] == "\n":
        return True
    return where == "sentence" and low[j] in ".!?:" and j < pos - 1


def _anchors() -> tuple[list, list]:
    """[(anchor, row indexes)] of the rows matched anywhere; {first two characters: [(anchor, row
    indexes)]} of those matched at a line's or sentence's start only."""
    got = _helpers.get("anchors")
    if got is None:
        anywhere: dict = {}
        at_start: dict = {}
        for i, row in enumerate(ROWS):
            for anchor in row[1]:
                (at_start if row[2] in ("line", "sentence") else anywhere).setdefault(anchor, []).append(i)
                if "+" in row[2]:
                    NEEDS[i] = tuple(row[2].split("+", 1)[1].split("|"))
        by_head: dict = {}  # the start-only anchors by their first two characters
        for anchor, rows in at_start.items():
            by_head.setdefault(anchor[:2], []).append((anchor, rows))
        got = _helpers["anchors"] = (list(anywhere.items()), by_head)
    return got


def _start_positions(low: str) -> list[int]:
    """Where the lines and sentences of `low` start, markdown marks skipped."""
    out = []
    for mark in ("\n", ". ", "! ", "? ", ": "):
        pos = low.find(mark)
        while pos >= 0:
            out.append(pos + len(mark))
            pos = low.find(mark, pos + 1)
    out.append(0)
    starts = []
    for pos in out:
        while pos < len(low) and low[pos] in _MARKS:
            pos += 1
        starts.append(pos)
    return starts


def _holds(low: str, i: int) -> bool:
    needs = NEEDS.get(i)
    return needs is None or any(n in low for n in needs)


def _word(low: str, pos: int, anchor: str) -> bool:
    """Whether `anchor` at `pos` stands on its own: a word (or "instruction", the start of
    "instructions"), a tag not glued to a name before it, or chat markup anywhere."""
    if anchor.startswith(("<|", "<!--", "[", "<<")):
        return True
    if anchor[0] == "<":  # a tag, not a type parameter (`Program<System>`)
        return not pos or not (low[pos - 1].isalnum() or low[pos - 1] in "$._")
    end = pos + len(anchor)
    return (not pos or not low[pos - 1].isalnum()) and (anchor == "instruction" or end >= len(low) or not low[end].isalnum())


def _hits(low: str):
    """(name, start, end) of the rows' matches in the lowercased paragraph `low`."""
    anywhere, at_start = _anchors()
    for anchor, rows in anywhere:
        pos = low.find(anchor)
        while pos >= 0:
            if _word(low, pos, anchor):
                for i in rows:
                    if _starts(low, pos, ROWS[i][2].split("+")[0]) and _holds(low, i):
                        m = _row(i).match(low, pos)
                        if m and m.end() > pos:
                            yield ROWS[i][0], m.start(), m.end()
            pos = low.find(anchor, pos + 1)
    for pos in _start_positions(low):
        for anchor, rows in at_start.get(low[pos:pos + 2], ()):
            if low.startswith(anchor, pos) and _word(low, pos, anchor):
                for i in rows:
                    if _starts(low, pos, ROWS[i][2].split("+")[0]) and _holds(low, i):
                        m = _row(i).match(low, pos)
                        if m and m.end() > pos:
                            yield ROWS[i][0], m.start(), m.end()


def _hidden(line: str) -> bool:
    """Tag characters (U+E0000-E007F) outside a flag emoji sequence, bidirectional overrides, or
    an embedding or isolate not closed on its line (closed isolates are ordinary i18n text)."""
    opened: list[str] = []
    for i, ch in enumerate(line):
        o = ord(ch)
        if o in (0x202D, 0x202E):  # left-to-right and right-to-left overrides
            return True
        if o in (0x202A, 0x202B) or 0x2066 <= o <= 0x2068:
            opened.append("e" if o < 0x2066 else "i")
        elif o in (0x202C, 0x2069):
            if not opened or opened.pop() != ("e" if o == 0x202C else "i"):
                return True
        elif 0xE0000 <= o <= 0xE007F:
            j = i
            while j > 0 and 0xE0000 <= ord(line[j - 1]) <= 0xE007F:
                j -= 1
            if not (j > 0 and ord(line[j - 1]) == 0x1F3F4):  # 🏴 + tag letters + cancel tag: a subdivision flag
                return True
    return bool(opened)


def normalise(line: str) -> str:
    """The line as the screen reads it: invisible characters out, NFKC, look-alike letters read as
    Latin ones."""
    if line.isascii():
        return line
    if _helper("unusual").search(line):
        line = line.translate(INVISIBLE)
    import unicodedata

    if not unicodedata.is_normalized("NFKC", line):
        line = unicodedata.normalize("NFKC", line)
    if _helper("lookalike").search(line):
        line = line.translate(CONFUSABLE)
    return line


def _close_up(line: str) -> str:
    import re

    return _helper("spaced").sub(lambda m: " ".join(part.replace(" ", "") for part in re.split(r" {2,}", m.group(0))), line)


def _fenced(lines: list[str]) -> set[int]:
    """Indexes of the lines inside closed code fences (the fence lines too); a fence left open
    shields nothing."""
    out, start, mark = set(), None, ""
    fence = _helper("fence")
    for i, line in enumerate(lines):
        if "```" not in line and "~~~" not in line:
            continue
        m = fence.match(line)
        if not m:
            continue
        if start is None:
            start, mark = i, m.group(1)[0] * 3
        elif m.group(1).startswith(mark) and not line.strip().lstrip(">").strip().strip(mark[0]):
            out.update(range(start, i + 1))
            start = None
    return out


def _paragraphs(lines: list[str], added: list[bool], shielded: set[int]):
    """(text, [(offset, line index)]) of each paragraph holding an added line: consecutive
    non-blank lines outside fences, their blockquote marks dropped, joined by newlines."""
    block: list[int] = []
    for i in range(len(lines) + 1):
        if i < len(lines) and i not in shielded and lines[i].strip().lstrip(">").strip():
            block.append(i)
            continue
        if block and any(added[j] for j in block):
            parts, offsets, at = [], [], 0
            for j in block:
                text = lines[j].lstrip()
                while text.startswith(">"):
                    text = text[1:].lstrip()
                offsets.append((at, j))
                parts.append(text)
                at += len(text) + 1
            yield "\n".join(parts), offsets
        block = []


def _line_at(offsets, pos: int) -> int:
    found = offsets[0][1]
    for at, j in offsets:
        if at > pos:
            break
        found = j
    return found


def _mentioned(text: str, start: int, end: int, name: str) -> bool:
    """Whether the match text[start:end] is only mentioned: inside inline code; inside quotes with
    words of the paragraph's own around them; or (an order, not markup) after words that report or
    negate it in its sentence."""
    import re

    if any(s <= start and end <= e for s, e in (m.span() for m in _helper("code").finditer(text))):
        return True
    spans = [m.span() for m in _helper("quotes").finditer(text)]
    for s, e in spans:
        if s <= start and end <= e:
            outside = "".join(text[a:b] for a, b in zip([0] + [e2 for _s2, e2 in spans], [s2 for s2, _e2 in spans] + [len(text)]))
            if len(re.findall(r"[a-z]{2,}", outside)) >= 2:
                return True
    if name in ("chat-markup", "comment"):
        return False
    head = 0
    for m in _helper("sentence").finditer(text, 0, start):
        head = m.end()
    return (_helper("cues").search(text, head, start) is not None
            or _helper("negation").search(text, max(head, start - 40), start) is not None)


def _run_together(low: str) -> str | None:
    """The name of a RUN_TOGETHER phrase that shows only with the paragraph's letters run together."""
    import re

    squashed = _helper("letters").sub("", low)
    if not any(word in squashed for word in RUN_GATE):
        return None
    spaced = " " + _helper("letters").sub(" ", low) + " "
    for name, groups in RUN_TOGETHER:
        tight = "".join(f"(?:{alt.replace(' ', '')}){rep}" for alt, rep in groups)
        loose = "".join(f"(?: (?:{alt})){rep}" for alt, rep in groups)
        if len(re.findall(tight, squashed)) > len(re.findall(loose + "(?= )", spaced)):
            return name
    return None


def _split_word(low: str) -> bool:
    """Whether one of RUN_GATE's words shows only with the paragraph's lines glued together."""
    glued = low.replace("\n", "")
    return any(glued.count(word) > low.count(word) for word in RUN_GATE if word in glued)


def _decoded(text: str) -> list[tuple[int, str]]:
    """(offset, text) of the base64 runs in `text` that decode to UTF-8 prose (bounded)."""
    import binascii

    out = []
    tried = 0
    for m in _helper("base64").finditer(text):
        run = m.group(0)
        if len(run) > MAX_RUN or run.isalpha() or run.islower() or run.isupper():
            continue
        tried += 1
        if tried > MAX_DECODED:
            break
        body = run.rstrip("=").replace("-", "+").replace("_", "/")
        try:
            decoded = binascii.a2b_base64(body + "=" * (-len(body) % 4)).decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        if decoded.count(" ") >= 2 and sum(c.isprintable() or c in "\n\t" for c in decoded) >= 0.95 * len(decoded):
            out.append((m.start(), decoded))
    return out


def screen(text: str, old: str | None = None, _depth: int = 0) -> list[tuple[int, str, str, str]]:
    """[(line number, pattern name, what it is, the line)] of the lines `text` adds to `old`."""
    if not isinstance(text, str) or not text:
        return []
    text = text[:MAX_SCREEN_CHARS]
    raw = text.splitlines()
    kept = set(old.splitlines()) if isinstance(old, str) and old else set()
    added = [bool(line.strip()) and line not in kept for line in raw]
    if not any(added):
        return []
    found: dict[int, tuple[str, str]] = {}
    lines = raw
    changed: set[int] = set()  # lines the normalising changed: what matches there is not "only mentioned"
    if not text.isascii():
        lines = []
        for i, line in enumerate(raw):
            if added[i] and not line.isascii() and _helper("unusual").search(line) and _hidden(line):
                found[i] = ("hidden", HIDDEN)
            lines.append(normalise(line))
            if lines[-1] != line:
                changed.add(i)
    flat = " " + text.lower().replace("\n", " ") + " "
    # letters spaced out hold a lone letter that English prose seldom has alone (the regex, and
    # `re` itself, only then)
    spaced = any(f" {c} " in flat for c in "eortns") and _helper("spaced-gate").search(flat) is not None
    before = lines  # as normalised, letters spaced out still apart: what _run_together reads
    if spaced:
        closed = [_close_up(line) for line in lines]
        changed.update(i for i, (a, b) in enumerate(zip(lines, closed)) if a != b)
        lines = closed
    lines = [" ".join(line.split()) if "  " in line or "\t" in line else line for line in lines]  # blanks read as one space
    shielded = _fenced(lines) if ("```" in text or "~~~" in text) else set()
    paras = list(_paragraphs(lines, added, shielded))
    if not paras:
        return _listed(found, raw)
    # the paragraphs as one lowercased text (SEPARATOR between them, which no pattern crosses): each
    # anchor is looked for once per write, not once per paragraph
    heads, at = [], 0
    for para, _offsets in paras:
        heads.append(at)
        at += len(para) + len(SEPARATOR)
    doc = SEPARATOR.join(para for para, _offsets in paras).lower()
    import bisect

    for name, start, end in _hits(doc):
        k = bisect.bisect_right(heads, start) - 1
        head, offsets = heads[k], paras[k][1]
        first, last = _line_at(offsets, start - head), _line_at(offsets, max(start, end - 1) - head)
        span = range(first, last + 1)
        hit = next((j for j in span if added[j]), None)
        if hit is None or hit in found:
            continue
        if not any(j in changed for j in span) and _mentioned(doc[head:head + len(paras[k][0])], start - head, end - head, name):
            continue
        found[hit] = (name, WHAT[name])
    for k, (para, offsets) in enumerate(paras):
        if len(found) >= MAX_FINDINGS:
            break
        if any(j in found for _at, j in offsets):
            continue
        low = doc[heads[k]:heads[k] + len(para)]
        if any(j in changed for _at, j in offsets) or "\n" in low and _split_word(low):
            name = _run_together("\n".join(before[j] for _at, j in offsets).lower() if spaced else low)
            if name:
                found[next(j for _at, j in offsets if added[j])] = ("obfuscated", f"{OBFUSCATED}: {name}")
                continue
        if _depth == 0 and max(map(len, para.split()), default=0) >= MIN_RUN:
            for at, decoded in _decoded(para):
                inner = screen(decoded, None, _depth + 1)
                j = _line_at(offsets, at)
                if inner and added[j]:
                    found[j] = ("encoded", f"{ENCODED} ({inner[0][2]})")
                    break
    return _listed(found, raw)


def _listed(found: dict, raw: list[str]) -> list[tuple[int, str, str, str]]:
    return [(i + 1, name, what, raw[i].strip()) for i, (name, what) in sorted(found.items())][:MAX_FINDINGS]


def describe(findings: list) -> str:
    parts = []
    for n, name, what, line in findings[:3]:
        shown = line if len(line) <= 100 else line[:97] + "..."
        parts.append(f"line {n}: {what} ({name}): {shown!r}")
    more = f" (and {len(findings) - 3} more)" if len(findings) > 3 else ""
    return "; ".join(parts) + more


def quarantine(planning: str, rel: str, text: str, findings: list, session: str | None, agent: str | None) -> str | None:
    """Keep the refused text for the user: `.planning/.msd/quarantine/<UTC time>-<path>.md`, a
    note on top. Returns its path relative to the project, or None when it cannot be written."""
    import os
    import re
    import time

    from msd_core.files.atomic import write_new_file

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    flat = re.sub(r"[^A-Za-z0-9._-]+", "_", rel.replace("/", "__"))[:120]
    folder = os.path.join(planning, ".msd", "quarantine")
    stem = f"{stamp}-{flat}"
    stem = stem[:-3] if stem.endswith(".md") else stem
    note = ["<!-- msd quarantine: this text was NOT saved where the agent meant to save it -->",
            f"- target: .planning/{rel}", f"- when: {stamp}"]
    if session:
        note.append(f"- session: {session}" + (f" (subagent {agent})" if agent else ""))
    note.append("- why: it holds instructions aimed at an AI agent, which msd does not save as planning text:")
    for n, pname, what, line in findings:
        note.append(f"  - line {n}: {what} ({pname}): {line[:200]}")
    note += ["- to keep it anyway: check it, then copy what you want yourself, or run "
             f"`msd guard allow .planning/{rel}` and ask the agent to write it again", "", "---", ""]
    try:
        from pathlib import Path

        # a new name for each refusal: two in the same second keep both texts (`<stem>-2.md`)
        name = write_new_file(Path(folder), stem, ".md", ("\n".join(note) + text).encode("utf-8"),
                              anchor=Path(planning).parent)
    except Exception:  # noqa: BLE001 - a read-only project: the write is still refused, with no copy
        return None
    return f".planning/.msd/quarantine/{name}"
