"""A plan's `must_haves`, read from its frontmatter (docs/CONTRACTS.md, "Must-haves and key links").

    must_haves:
      truths: ["A user can log in"]
      artifacts:
        - src/auth.py                                   # a path, or
        - {path: src/api.py, min_lines: 20, contains: "def login"}
      key_links:
        - {from: src/app.py, to: src/auth.py, pattern: 'from .auth import|auth\\.login'}

(Quote a pattern with single quotes: YAML keeps its backslashes as written.)

`read(frontmatter)` returns a MustHaves: `present` (the key is there), `truths`, `artifacts`
(Artifact: path, min_lines, contains: a literal text the file must hold), `key_links` (KeyLink: from, to, via, pattern),
`links_declared` (the `key_links` key is there, even as `[]`: a plan that wires nothing says
so), and `problems`: one line per entry code cannot use (no path, a pattern that is not a
regular expression, a `min_lines` that is not a number). Never raises.
"""

from __future__ import annotations

import re

from msd_core.lean.record import field, record

MAX_PATTERN = 500
# a quantified group holding a quantifier (`(a+)+`, `(\w*x)*`): backtracking can take exponential
# time on a file that almost matches, and Python's `re` has no time limit
_NESTED_QUANTIFIER = re.compile(r"\((?:[^()\\]|\\.)*[+*](?:[^()\\]|\\.)*\)\s*(?:[+*]|\{\d*,)")


@record
class Artifact:
    path: str
    min_lines: int = 1
    contains: str = ""


@record
class KeyLink:
    source: str  # `from`: the linking file, where the pattern must match
    target: str  # `to`: the file it links to
    pattern: str
    via: str = ""


@record
class MustHaves:
    present: bool = False
    truths: list = field(default_factory=list)
    artifacts: list = field(default_factory=list)
    key_links: list = field(default_factory=list)
    links_declared: bool = False
    problems: list = field(default_factory=list)


def as_list(value) -> list:
    """A frontmatter value as a list: a list as is, `a, b` or `[a, b]` split (quotes removed), None → []."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        items = (v.strip().strip("'\"") for v in value.strip().strip("[]").split(","))
        return [v for v in items if v]
    return [value]


def _text(value) -> str:
    return value.strip() if isinstance(value, str) else ("" if value is None else str(value).strip())


def pattern_error(pattern: str) -> str | None:
    if not pattern:
        return "no pattern"
    if len(pattern) > MAX_PATTERN:
        return f"pattern longer than {MAX_PATTERN} characters"
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"pattern {pattern[:60]!r} is not a regular expression ({exc})"
    if _NESTED_QUANTIFIER.search(pattern):
        return f"pattern {pattern[:60]!r} repeats a group that holds a repeat (it can take exponential time); write it without"
    return None


def read(frontmatter: dict) -> MustHaves:
    raw = frontmatter.get("must_haves", frontmatter.get("must-haves")) if isinstance(frontmatter, dict) else None
    out = MustHaves(present=isinstance(raw, dict))
    if not isinstance(raw, dict):
        if raw not in (None, ""):
            out.problems.append("must_haves is not a mapping (truths, artifacts, key_links)")
        return out
    out.truths = [_text(t) for t in as_list(raw.get("truths")) if _text(t)]
    for i, item in enumerate(as_list(raw.get("artifacts")), start=1):
        if isinstance(item, dict):
            path = _text(item.get("path"))
            if not path:
                out.problems.append(f"artifact {i} has no path")
                continue
            min_lines = item.get("min_lines", 1)
            if isinstance(min_lines, str) and min_lines.strip().isdigit():
                min_lines = int(min_lines.strip())
            if isinstance(min_lines, bool) or not isinstance(min_lines, int) or min_lines < 0:
                out.problems.append(f"artifact {path}: min_lines {min_lines!r} is not a whole number")
                min_lines = 1
            contains = _text(item.get("contains"))  # a literal text, not a pattern
            out.artifacts.append(Artifact(path, min_lines, contains))
        elif _text(item).startswith("{"):
            out.problems.append(f"artifact {i} ({_text(item)[:40]}) could not be read as a mapping (quote patterns with '...')")
        elif _text(item):
            out.artifacts.append(Artifact(_text(item)))
    out.links_declared = "key_links" in raw or "key-links" in raw
    for i, item in enumerate(as_list(raw.get("key_links", raw.get("key-links"))), start=1):
        if not isinstance(item, dict):
            out.problems.append(f"key link {i} is not a mapping (from, to, pattern)")
            continue
        source, target, pattern = _text(item.get("from")), _text(item.get("to")), _text(item.get("pattern"))
        if not source or not target:
            out.problems.append(f"key link {i} needs both `from` and `to`")
            continue
        err = pattern_error(pattern)
        if err:
            out.problems.append(f"key link {i} ({source} -> {target}): {err}")
            continue
        out.key_links.append(KeyLink(source, target, pattern, _text(item.get("via"))))
    return out
