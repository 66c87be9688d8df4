"""Change a JSON file in place: only the changed members' bytes move, every other byte stays.

`rewrite(text, before, after)` turns `text` (which parses to `before`) into text that
parses to `after` by editing just the members that differ: a changed value is replaced
where it stands, a new member is added after the last one of its object (in the file's
indent, key separator and line endings), a removed member is cut with its comma. It
returns None when it cannot (the caller then writes the whole file); the result is
always checked to parse to `after`. Standard library only.
"""

from __future__ import annotations

import json
from json.decoder import scanstring

_WS = " \t\r\n"
_DECODER = json.JSONDecoder()


def indent_of(text: str, default: int | str = 2) -> int | str:
    """The indent a JSON text uses: the leading white space of its first indented line after the
    first ("\t" for a tab, else how many spaces); `default` when no such line is indented."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return default


class _Unsupported(Exception):
    pass


def _skip(s: str, i: int) -> int:
    while i < len(s) and s[i] in _WS:
        i += 1
    return i


class _Obj:
    """One JSON object in the text: where it opens and closes, and its members' spans."""

    __slots__ = ("open", "close", "members", "depth")

    def __init__(self, s: str, i: int, depth: int):
        if s[i] != "{":
            raise _Unsupported
        self.open, self.depth, self.members = i, depth, []  # (key, key_start, value_start, value_end)
        i = _skip(s, i + 1)
        if s[i] == "}":
            self.close = i
            return
        while True:
            if s[i] != '"':
                raise _Unsupported
            key, j = scanstring(s, i + 1)
            j = _skip(s, j)
            if s[j] != ":":
                raise _Unsupported
            j = _skip(s, j + 1)
            _, end = _DECODER.raw_decode(s, j)
            self.members.append((key, i, j, end))
            k = _skip(s, end)
            if s[k] == ",":
                i = _skip(s, k + 1)
            elif s[k] == "}":
                self.close = k
                return
            else:
                raise _Unsupported

    def find(self, key: str):
        hits = [m for m in self.members if m[0] == key]
        return hits[-1] if hits else None  # json.loads keeps the last duplicate


def _diff(old: dict, new: dict, path: tuple = ()) -> list[tuple]:
    ops: list[tuple] = []
    for k in old:
        if k not in new:
            ops.append(("del", path + (k,), None))
    for k, v in new.items():
        if k not in old:
            ops.append(("set", path + (k,), v))
        elif isinstance(v, dict) and isinstance(old[k], dict):
            ops.extend(_diff(old[k], v, path + (k,)))
        elif v != old[k] or type(v) is not type(old[k]):
            ops.append(("set", path + (k,), v))
    return ops


class _Style:
    """The file's newline, indent unit and key separator, read from its text."""

    def __init__(self, s: str):
        self.nl = "\r\n" if "\r\n" in s else "\n"
        self.multiline = "\n" in s.strip()
        self.unit = "  "
        for line in s.splitlines()[1:]:
            stripped = line.lstrip(" \t")
            if stripped and len(stripped) < len(line):
                self.unit = line[: len(line) - len(stripped)]
                break
        self.sep = ": "
        self.comma = ", "

    def dump(self, value, level: int) -> str:
        if not self.multiline or not isinstance(value, (dict, list)) or not value:
            return json.dumps(value, ensure_ascii=False, separators=(self.comma, self.sep))
        indent = "\t" if self.unit == "\t" else len(self.unit)
        text = json.dumps(value, ensure_ascii=False, indent=indent, separators=(",", self.sep))
        return text.replace("\n", self.nl + self.unit * level)


def _locate(s: str, top: int, path: tuple) -> _Obj:
    obj = _Obj(s, top, 0)
    for part in path:
        m = obj.find(part)
        if m is None:
            raise _Unsupported
        obj = _Obj(s, m[2], obj.depth + 1)
    return obj


def _apply(s: str, top: int, op: str, path: tuple, value, style: _Style) -> str:
    obj = _locate(s, top, path[:-1])
    key = path[-1]
    m = obj.find(key)
    if op == "del":
        if m is None:
            raise _Unsupported
        idx = obj.members.index(m)
        if idx > 0:
            start, end = obj.members[idx - 1][3], m[3]
        elif len(obj.members) > 1:
            start, end = m[1], obj.members[1][1]
        else:
            start, end = obj.open + 1, obj.close
        return s[:start] + s[end:]
    level = obj.depth + 1
    if m is not None:
        return s[: m[2]] + style.dump(value, level) + s[m[3]:]
    if obj.members:  # the key separator of the neighbour the new member goes after
        last = obj.members[-1]
        between = s[scanstring(s, last[1] + 1)[1]:last[2]]
        if between.strip() == ":" and "\n" not in between:
            style.sep = between
    member = json.dumps(key, ensure_ascii=False) + style.sep + style.dump(value, level)
    if obj.members:
        last = obj.members[-1]
        first = obj.members[0]
        line_start = s.rfind("\n", 0, first[1]) + 1
        own_line = line_start > obj.open and not s[line_start:first[1]].strip()
        lead = (style.nl + s[line_start:first[1]]) if own_line else style.comma[1:]
        return s[: last[3]] + "," + lead + member + s[last[3]:]
    if style.multiline:
        inner = style.nl + style.unit * level + member + style.nl + style.unit * obj.depth
        return s[: obj.open + 1] + inner + s[obj.close:]
    return s[: obj.open + 1] + member + s[obj.close:]


def rewrite(text: str, before: dict, after: dict) -> str | None:
    """`text` (parsing to `before`) minimally edited to parse to `after`; None if not possible."""
    try:
        top = _skip(text, 0)
        style = _Style(text)
        first = _Obj(text, top, 0)
        if first.members:
            k0 = first.members[0]
            key_end = scanstring(text, k0[1] + 1)[1]
            style.sep = text[key_end:k0[2]] if ":" in text[key_end:k0[2]] and "\n" not in text[key_end:k0[2]] else ": "
        if len(first.members) > 1 and not style.multiline:
            between = text[first.members[0][3]:first.members[1][1]]
            style.comma = between if between.strip() == "," else ", "
        out = text
        for op, path, value in _diff(before, after):
            out = _apply(out, top, op, path, value, style)
        return out if json.loads(out) == after else None
    except (_Unsupported, ValueError, IndexError, RecursionError):
        return None
