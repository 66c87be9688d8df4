"""Rule `own-wording`: no sentence of the content stands near-verbatim in a peer project's text.

The content is written in our own words; the peer projects are test oracles and benchmarks,
never a source. Given a peer's text (`--peer DIR`, e.g. the folder npm installed the peer's
package into; repeatable), every prose sentence of ours is compared with the peer sentences
that share one of its rarer word pairs. A sentence fails when the words it shares, in order,
with one peer sentence (difflib's matching blocks over lower-cased words) are at least
MIN_MATCHED and at least RATIO of the longer of the two sentences: a copy with a few words
swapped ("X clarifies HOW ..., never WHETHER ..." kept, the middle reworded) still fails,
while a sentence that only shares a stock phrase ("the orchestrator commits") passes.

What counts as prose: not frontmatter, fenced code, inline code, table rows, `@` include
lines or `!` shell lines: those name files, commands and tools, which any two tools for the
same host share. Sentences end at `.`, `!` or `?` before a space, at a blank line, at a list
item and at a heading. Without a peer the rule has nothing to compare with and reports
nothing (the fast suite runs it against a fixture peer, tests/checks/test_wording.py; the
slow one against the real peers fetched with npm).
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from pathlib import Path

from msd_core.checks.model import CheckContext, Violation, split_lines

RULE = "own-wording"
MIN_MATCHED = 7
RATIO = 0.6
MIN_PEER_WORDS = 5
COMMON_PAIR = 2000      # a word pair in more peer sentences than this finds no candidates
CANDIDATES = 50         # peer sentences compared per sentence of ours (most shared pairs first)
PEER_SUFFIXES = (".md", ".txt")
PEER_FILE_CAP = 1_000_000

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_END = re.compile(r"(?<=[.!?])\s+")
_BLOCK_START = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|>\s?)")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def sentences(text: str) -> list[tuple[int, str, list[str]]]:
    """(1-based line of its start, the sentence, its lower-cased words) for every prose sentence."""
    lines = split_lines(text)
    start = 0
    if lines and lines[0].strip() == "---":  # frontmatter
        for i in range(1, len(lines)):
            if lines[i].strip() == "---":
                start = i + 1
                break
    out: list[tuple[int, str, list[str]]] = []
    para: list[tuple[int, str]] = []

    def flush() -> None:
        if not para:
            return
        joined = " ".join(text for _, text in para)
        first = para[0][0]
        for piece in _END.split(joined):
            words = _WORD.findall(piece.lower())
            if words:
                out.append((first, piece.strip(), words))
        para.clear()

    fence = None
    for i in range(start, len(lines)):
        line = lines[i]
        m = _FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            flush()
            fence = m.group(1)
            continue
        stripped = line.strip()
        if not stripped or stripped.startswith(("|", "@", "!")):
            flush()
            continue
        if _BLOCK_START.match(line):
            flush()
        para.append((i + 1, _CODE_SPAN.sub(" ", stripped)))
        if stripped.startswith("#"):
            flush()  # a heading is a sentence of its own
    flush()
    return out


def _pairs(words: list[str]) -> set[tuple[str, str]]:
    return set(zip(words, words[1:]))


class PeerText:
    """Every sentence of one or more peer trees, indexed by word pair."""

    def __init__(self, roots: list[Path]):
        self.sentences: list[tuple[str, str, list[str]]] = []  # (file, sentence, words)
        self.index: dict[tuple[str, str], list[int]] = defaultdict(list)
        for root in roots:
            for path in sorted(Path(root).rglob("*")):
                rel = path.relative_to(root)
                if "node_modules" in rel.parts[:-1] or path.suffix not in PEER_SUFFIXES or path.is_symlink() or not path.is_file():
                    continue
                try:
                    if path.stat().st_size > PEER_FILE_CAP:
                        continue
                    text = path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                for _, sentence, words in sentences(text):
                    if len(words) < MIN_PEER_WORDS:
                        continue
                    n = len(self.sentences)
                    self.sentences.append((f"{Path(root).name}/{rel.as_posix()}", sentence, words))
                    for pair in _pairs(words):
                        self.index[pair].append(n)

    def closest(self, words: list[str]) -> tuple[int, float, int] | None:
        """(words matched in order, that over the longer sentence, peer sentence index) of the
        closest peer sentence, or None when no candidate can reach the thresholds."""
        shared: dict[int, int] = defaultdict(int)
        for pair in _pairs(words):
            hits = self.index.get(pair, ())
            if len(hits) > COMMON_PAIR:
                continue
            for n in hits:
                shared[n] += 1
        best = None
        for n, _ in sorted(shared.items(), key=lambda kv: (-kv[1], kv[0]))[:CANDIDATES]:
            theirs = self.sentences[n][2]
            if min(len(words), len(theirs)) < RATIO * max(len(words), len(theirs)):
                continue  # too different in length to reach RATIO
            blocks = difflib.SequenceMatcher(None, words, theirs, autojunk=False).get_matching_blocks()
            matched = sum(b.size for b in blocks)
            score = matched / max(len(words), len(theirs))
            if best is None or (score, matched) > (best[1], best[0]):
                best = (matched, score, n)
        return best


def find(tree, peer: PeerText) -> list[Violation]:
    out = []
    for rel in tree.markdown_files():
        for line, _sentence, words in sentences(tree.text(rel) or ""):
            if len(words) < MIN_MATCHED:
                continue
            best = peer.closest(words)
            if best is None or best[0] < MIN_MATCHED or best[1] < RATIO:
                continue
            where, theirs, _ = peer.sentences[best[2]]
            shown = theirs if len(theirs) <= 160 else theirs[:157] + "..."
            out.append(Violation(rel, line, RULE,
                                 f"this sentence stands near-verbatim in {where} ({best[0]} words in order, {best[1]:.0%}): \"{shown}\"",
                                 "say it in our own words: a new sentence, not the peer's with words swapped"))
    return out


def check(ctx: CheckContext) -> list[Violation]:
    if not ctx.peers:
        return []
    return find(ctx.tree, PeerText(list(ctx.peers)))
