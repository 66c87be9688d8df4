"""A reader for the TOML form msd's flow files use, without importing tomllib.

`parse_simple(text)` returns what `tomllib.loads(text)` returns, or NOT_SIMPLE when the
text uses anything outside the form below; the caller then hands it to tomllib (which
also reports every error). Importing tomllib costs msd_run's next-step and step-done
~5 ms on every call (tomllib, typing, datetime, string); the flow files need none of it.

The form it claims, one item per line:
  - blank lines and `# comments` (also after a value);
  - `[table]` and `[[array.of.tables]]` headers of bare keys (`[[steps.when]]` appends to
    the `when` array of the last `steps` element, as TOML defines);
  - `key = value` with a bare key (`A-Za-z0-9_-`);
  - values: basic strings `"..."` (escapes \\" \\\\ \\n \\t \\r \\b \\f \\uXXXX \\UXXXXXXXX),
    literal strings `'...'`, decimal integers, `true`/`false`, arrays `[...]` and inline
    tables `{ k = v, ... }` of such values, all on one line.
Declined: multi-line strings and arrays, dotted or quoted keys, floats, dates, any
redefinition of a key or table (tomllib's rules and messages decide those).

tests/flows/test_simple_toml.py compares it with tomllib over the shipped flows, the test
flows and hand-made cases. Standard library only.
"""

from __future__ import annotations

import re

NOT_SIMPLE = object()

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_WORD = re.compile(r"[^\s,\]}#]+")
_INT = re.compile(r"[+-]?(?:0|[1-9](?:_?[0-9])*)")
_ESC = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}


class _Decline(Exception):
    pass


class _Reader:
    """Values from one line, left to right."""

    __slots__ = ("s", "i")

    def __init__(self, s: str):
        self.s, self.i = s, 0

    def ws(self) -> None:
        s, i = self.s, self.i
        while i < len(s) and s[i] in " \t":
            i += 1
        self.i = i

    def value(self):
        self.ws()
        s, i = self.s, self.i
        if i >= len(s):
            raise _Decline
        ch = s[i]
        if ch == '"':
            return self.basic()
        if ch == "'":
            if s.startswith("'''", i):
                raise _Decline
            end = s.find("'", i + 1)
            if end < 0 or _control(s[i + 1:end]):
                raise _Decline
            self.i = end + 1
            return s[i + 1:end]
        if ch == "[":
            return self.array()
        if ch == "{":
            return self.table()
        m = _WORD.match(s, i)
        if not m:
            raise _Decline
        word = m.group()
        self.i = m.end()
        if word == "true":
            return True
        if word == "false":
            return False
        if _INT.fullmatch(word):
            return int(word.replace("_", ""))
        raise _Decline  # floats, dates, inf/nan, hex...: tomllib's to read

    def basic(self) -> str:
        s, i = self.s, self.i + 1
        if s.startswith('""', i):
            raise _Decline  # `"""` multi-line (or an empty string followed by a quote)
        out = []
        while True:
            run = _PLAIN.match(s, i).end()  # a run of ordinary characters in one step
            if run > i:
                out.append(s[i:run])
                i = run
            if i >= len(s):
                raise _Decline
            ch = s[i]
            if ch == '"':
                self.i = i + 1
                return "".join(out)
            if ch == "\\":
                nxt = s[i + 1: i + 2]
                if nxt in _ESC:
                    out.append(_ESC[nxt])
                    i += 2
                    continue
                if nxt in ("u", "U"):
                    n = 4 if nxt == "u" else 8
                    digits = s[i + 2: i + 2 + n]
                    if len(digits) != n or not all(c in "0123456789abcdefABCDEF" for c in digits):
                        raise _Decline
                    code = int(digits, 16)
                    if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
                        raise _Decline
                    out.append(chr(code))
                    i += 2 + n
                    continue
                raise _Decline
            raise _Decline  # a control character (all _PLAIN stops at besides `"` and `\\`): tomllib refuses it

    def array(self) -> list:
        self.i += 1
        out = []
        while True:
            self.ws()
            if self.s[self.i: self.i + 1] == "]":
                self.i += 1
                return out
            out.append(self.value())
            self.ws()
            nxt = self.s[self.i: self.i + 1]
            if nxt == ",":
                self.i += 1
            elif nxt != "]":
                raise _Decline

    def table(self) -> dict:
        self.i += 1
        out: dict = {}
        self.ws()
        if self.s[self.i: self.i + 1] == "}":
            self.i += 1
            return out
        while True:
            self.ws()
            m = _BARE.match(self.s, self.i)
            if not m:
                raise _Decline
            self.i = m.end()
            self.ws()
            if self.s[self.i: self.i + 1] != "=":
                raise _Decline
            self.i += 1
            key = m.group()
            if key in out:
                raise _Decline
            out[key] = self.value()
            self.ws()
            nxt = self.s[self.i: self.i + 1]
            if nxt == ",":
                self.i += 1
                continue
            if nxt == "}":
                self.i += 1
                return out
            raise _Decline

    def end(self) -> None:
        self.ws()
        rest = self.s[self.i:]
        if rest and not rest.startswith("#") or _control(rest):
            raise _Decline


def _header_path(inner: str) -> list[str]:
    parts = [p.strip(" \t") for p in inner.split(".")]
    if not all(_BARE.fullmatch(p) for p in parts):
        raise _Decline
    return parts


def _descend(root: dict, path: list[str], tables: set, arrays: set) -> dict:
    """The table a header's parent path names (through the last element of an array of
    tables). Only tables made by headers count: anything else is declined."""
    cur = root
    for part in path:
        nxt = cur.get(part)
        if isinstance(nxt, list) and id(nxt) in arrays:
            cur = nxt[-1]
        elif isinstance(nxt, dict) and id(nxt) in tables:
            cur = nxt
        else:
            raise _Decline
    return cur


def parse_simple(text: str):
    """The document's data (see the module docstring), or NOT_SIMPLE."""
    try:
        return _parse(text)
    except (_Decline, RecursionError, IndexError):
        return NOT_SIMPLE


# what a basic string holds verbatim: anything but `"`, `\\` and the control characters
# tomllib refuses (tab is allowed)
_PLAIN = re.compile(r'[^"\\\x00-\x08\x0a-\x1f\x7f]*')


_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _control(text: str) -> bool:
    """Whether `text` holds a control character other than tab (tomllib refuses them)."""
    return _CONTROL.search(text) is not None


def _parse(text: str) -> dict:
    if "\r" in text or "\ufeff" in text:
        raise _Decline
    root: dict = {}
    cur = root
    tables: set[int] = {id(root)}  # dicts made by [headers]
    arrays: set[int] = set()  # lists made by [[headers]]
    for line in text.split("\n"):
        stripped = line.strip(" \t")
        if not stripped or stripped.startswith("#"):
            if _control(stripped):
                raise _Decline
            continue
        if stripped.startswith("[["):
            end = stripped.find("]]")
            if end < 0:
                raise _Decline
            path = _header_path(stripped[2:end])
            _Reader(stripped[end + 2:]).end()
            parent = _descend(root, path[:-1], tables, arrays)
            arr = parent.get(path[-1])
            if arr is None:
                arr = parent[path[-1]] = []
                arrays.add(id(arr))
            elif id(arr) not in arrays:
                raise _Decline
            cur = {}
            tables.add(id(cur))
            arr.append(cur)
            continue
        if stripped.startswith("["):
            end = stripped.find("]")
            if end < 0:
                raise _Decline
            path = _header_path(stripped[1:end])
            _Reader(stripped[end + 1:]).end()
            parent = _descend(root, path[:-1], tables, arrays)
            if path[-1] in parent:
                raise _Decline  # a redefinition: tomllib's rules (and message) decide
            cur = parent[path[-1]] = {}
            tables.add(id(cur))
            continue
        m = _BARE.match(stripped)
        if not m:
            raise _Decline
        reader = _Reader(stripped)
        reader.i = m.end()
        reader.ws()
        if stripped[reader.i: reader.i + 1] != "=":
            raise _Decline
        reader.i += 1
        key = m.group()
        if key in cur:
            raise _Decline
        cur[key] = reader.value()
        reader.end()
    return root
