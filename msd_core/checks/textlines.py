"""Line-level text helpers shared by the rules: normalisation, triviality, code spans.

Whitespace normalisation: strip both ends, collapse every run of whitespace to one space.

A normalised line is TRIVIAL (ignored by the partition rules: it may repeat on both sides of
a split and a split may drop it) when it is
  1. blank;
  2. free of letters and digits (punctuation and markdown markers only: `---`, `|---|---|`,
     a bare fence, `- [ ]`, `>`, `}`);
  3. a code fence line with an info word only (```` ```bash ````, `~~~text`);
  4. a markdown heading whose text is shorter than HEADING_MIN (24) characters (`## Steps`);
  5. a lone XML-style tag without attributes (`<process>`, `</step>`);
  6. an msd marker comment alone (`<!-- msd:protected -->`, `<!-- msd:when tdd -->`);
  7. a line with fewer than MIN_ALNUM (5) letters and digits in all (`fi`, `done`, `1.`, `EOF`).
Everything else is non-trivial: it exists once, either in a spine or in one of its parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADING_MIN = 24
MIN_ALNUM = 5

_WS = re.compile(r"\s+")
_ALNUM = re.compile(r"[^\W_]")
_FENCE_ONLY = re.compile(r"^(`{3,}|~{3,})[\w+.-]*$")
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_LONE_TAG = re.compile(r"^</?[A-Za-z][\w.-]*\s*/?>$")
_MSD_MARKER = re.compile(r"^<!--\s*msd:[^>]*-->$")
FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})(.*)$")


def normalise(line: str) -> str:
    return _WS.sub(" ", line.strip())


def is_trivial(norm: str) -> bool:
    """Whether a normalised line is trivial (see the module docstring for the definition)."""
    if not norm:
        return True
    alnum = len(_ALNUM.findall(norm))
    if alnum == 0 or alnum < MIN_ALNUM:
        return True
    if _FENCE_ONLY.match(norm) or _LONE_TAG.match(norm) or _MSD_MARKER.match(norm):
        return True
    m = _HEADING.match(norm)
    if m and len(m.group(1).strip(" #")) < HEADING_MIN:
        return True
    return False


def nontrivial_lines(lines: list[str]) -> list[tuple[int, str]]:
    """(1-based line number, normalised text) of every non-trivial line."""
    out = []
    for i, line in enumerate(lines, 1):
        norm = normalise(line)
        if not is_trivial(norm):
            out.append((i, norm))
    return out


def short(text: str, limit: int = 80) -> str:
    text = normalise(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Segment:
    """A piece of code in markdown: one logical line of a fenced block, or one inline code span."""

    line: int
    text: str
    kind: str  # "fence" | "inline"
    fence_info: str = ""


_INLINE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def code_segments(lines: list[str]) -> list[Segment]:
    """Fenced code lines (backslash continuations joined) and inline code spans outside fences."""
    out: list[Segment] = []
    fence: str | None = None
    info = ""
    pending = ""
    pending_line = 0
    for i, line in enumerate(lines, 1):
        m = FENCE_RE.match(line)
        if fence is None:
            if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                fence, info = m.group(1), m.group(2).strip()
                continue
            for im in _INLINE.finditer(line):
                out.append(Segment(i, im.group(2).strip(), "inline"))
            continue
        if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
            if pending:
                out.append(Segment(pending_line, pending, "fence", info))
                pending = ""
            fence = None
            continue
        stripped = line.rstrip()
        if not pending:
            pending_line = i
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        out.append(Segment(pending_line, pending + line, "fence", info))
        pending = ""
    if pending:
        out.append(Segment(pending_line, pending, "fence", info))
    return out


def frontmatter(lines: list[str]) -> tuple[dict | None, str | None]:
    """(parsed YAML frontmatter or None when absent, error message when unreadable)."""
    if not lines or lines[0].strip() != "---":
        return None, None
    for j in range(1, len(lines)):
        if lines[j].strip() == "---":
            import yaml  # lazy: only checks read frontmatter

            from msd_core.files.bounded import BoundedInputError, parse

            try:
                data = parse(yaml.safe_load, "\n".join(lines[1:j]), "yaml", "the frontmatter") or {}
            except yaml.YAMLError as exc:
                return None, f"frontmatter is not valid YAML: {' '.join(str(exc).split())}"
            except BoundedInputError as exc:
                return None, exc.message
            if not isinstance(data, dict):
                return None, "frontmatter is not a mapping"
            return data, None
    return None, "frontmatter has no closing `---`"
