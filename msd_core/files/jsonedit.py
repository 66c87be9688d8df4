"""The one byte-level editor for JSON and JSONC files other programs own (and msd's own config).

`rewrite(text, before, after)` turns `text` (which parses to `before`) into text that parses to
`after` by editing only the bytes of what differs: a changed value is replaced where it stands,
a new member goes after the last member of its object (a new item after the last item of its
array) in that container's own style (its line indent or its inline separators, the file's
newline), a removed member or item is cut together with the comma and line break it came with.
Every other byte stays: formatting, CRLF, number spellings, escapes, duplicate keys (the last
one, the one a JSON reader keeps, is edited; a removed key loses every copy), inline objects,
`//` and `/* */` comments and trailing commas (JSONC, e.g. opencode.json). A removal is the exact
inverse of the insertion that added the same thing, so an install followed by an uninstall gives
the file back byte for byte. The result is checked to parse to `after`; None when no such edit
is possible.

`edit_bytes(data, change)` is the whole round for a file's bytes: the BOM kept, `change(obj)`
applied to a copy of what the file holds, the bytes edited in place; a file that does not
exist yet gets Claude Code's own layout (indent 2) and a final newline.

Standard library only (msd_run's config writes use it).
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring

_WS = " \t\r\n"
_DECODER = json.JSONDecoder()
BOM = b"\xef\xbb\xbf"
MAX_DEPTH = 200  # containers a path may descend; deeper input is refused, never a RecursionError

_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\r\n]*|/\*[\s\S]*?\*/')
_STRING_OR_TRAILING_COMMA = re.compile(r'"(?:[^"\\]|\\.)*"|,(?=[ \t\r\n]*[}\]])')
_NOT_NEWLINE = re.compile(r"[^\r\n]")


class EditError(ValueError):
    """The text cannot be edited in place (it does not parse, or the edit is not expressible)."""


def blank_jsonc(text: str) -> str:
    """`text` with comments and trailing commas turned into spaces: the same length and the same
    positions, so strict JSON tools find every member where it is in the original."""
    if "/" in text:
        text = _STRING_OR_COMMENT.sub(lambda m: m.group(0) if m.group(0)[0] == '"' else _NOT_NEWLINE.sub(" ", m.group(0)), text)
    if "," in text:
        text = _STRING_OR_TRAILING_COMMA.sub(lambda m: m.group(0) if m.group(0)[0] == '"' else " ", text)
    return text


def loads(text: str, what: str = "the JSON file"):
    """Parse JSON or JSONC text (comments, trailing commas). ValueError when it does not parse;
    BoundedInputError (a ValueError, exit 2) when it is nested too deep or too large
    (msd_core.files.bounded: the bound every reader of another program's file keeps)."""
    from msd_core.files.bounded import loads_json

    return loads_json(blank_jsonc(text), what)


def indent_of(text: str, default: int | str = 2) -> int | str:
    """The indent a JSON text uses: the leading white space of its first indented line after the
    first ("\t" for a tab, else how many spaces); `default` when no such line is indented."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return default


def _skip(s: str, i: int) -> int:
    n = len(s)
    while i < n and s[i] in _WS:
        i += 1
    return i


def _value_end(b: str, i: int) -> int:
    try:
        return _DECODER.raw_decode(b, i)[1]
    except (ValueError, RecursionError):
        raise EditError(f"no JSON value at offset {i}") from None


class _Box:
    """One object or array in the (blanked) text: where it opens and closes, and its entries.

    An entry is (key or None, start, value_start, value_end): `start` is where the key (or the
    item) begins."""

    __slots__ = ("open", "close", "entries", "is_obj")

    def __init__(self, b: str, i: int):
        if i >= len(b) or b[i] not in "{[":
            raise EditError("not an object or array")
        self.open, self.is_obj, self.entries = i, b[i] == "{", []
        end = "}" if self.is_obj else "]"
        i = _skip(b, i + 1)
        if i < len(b) and b[i] == end:
            self.close = i
            return
        while True:
            if self.is_obj:
                if i >= len(b) or b[i] != '"':
                    raise EditError(f"expected a key at offset {i}")
                key, j = scanstring(b, i + 1)
                j = _skip(b, j)
                if j >= len(b) or b[j] != ":":
                    raise EditError(f"expected ':' at offset {j}")
                j = _skip(b, j + 1)
            else:
                key, j = None, i
            end_at = _value_end(b, j)
            self.entries.append((key, i, j, end_at))
            k = _skip(b, end_at)
            if k < len(b) and b[k] == ",":
                i = _skip(b, k + 1)
            elif k < len(b) and b[k] == end:
                self.close = k
                return
            else:
                raise EditError(f"expected ',' or '{end}' at offset {k}")

    def find(self, key) -> int | None:
        """Index of the entry `key` names: the last copy of a duplicated key (what readers keep)."""
        if not self.is_obj:
            return key if isinstance(key, int) and 0 <= key < len(self.entries) else None
        hits = [n for n, e in enumerate(self.entries) if e[0] == key]
        return hits[-1] if hits else None


class _Style:
    """How the file writes JSON: its newline, indent unit and key separator."""

    def __init__(self, s: str):
        self.nl = "\r\n" if "\r\n" in s else "\n"
        unit = indent_of(s, 2)
        self.unit = "\t" if unit == "\t" else " " * unit
        self.sep = ": "
        self.comma = ", "


def _line_start(s: str, at: int) -> int:
    return max(s.rfind("\n", 0, at), s.rfind("\r", 0, at)) + 1


def _line_indent(s: str, at: int) -> str | None:
    """The white space from the start of `at`'s line up to `at`, or None when other text precedes it."""
    lead = s[_line_start(s, at):at]
    return lead if not lead.strip(" \t") else None


def _lead_of_line(s: str, at: int) -> str:
    """The leading white space of the line holding `at`."""
    line = s[_line_start(s, at):at]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _has_newline(piece: str) -> bool:
    return "\n" in piece or "\r" in piece


class _Writer:
    """Where and how a new entry goes into one container, and how one comes out again."""

    def __init__(self, s: str, box: _Box, style: _Style):
        self.s, self.box, self.style = s, box, style
        inner = s[box.open + 1:box.close]
        # inline: the container sits on one line (an empty `{}` too: it stays one line, so that
        # taking the entry out again gives back exactly `{}`, and `{\n}` exactly `{\n}`)
        self.inline = not _has_newline(inner)
        self.sep = style.sep
        if box.is_obj and box.entries:
            start, vstart = box.entries[-1][1], box.entries[-1][2]
            between = s[scanstring(s, start + 1)[1]:vstart]
            if between.strip(" \t") == ":":
                self.sep = between
        self.comma = style.comma  # the text between two inline entries
        if self.inline and len(box.entries) > 1:
            between = s[box.entries[-2][3]:box.entries[-1][1]]
            if between.strip(" \t") == ",":
                self.comma = between
        self.own_indent = _lead_of_line(s, box.open)
        indent = None
        for entry in reversed(box.entries):
            indent = _line_indent(s, entry[1])
            if indent is not None:
                break
        self.indent = indent if indent is not None else self.own_indent + style.unit

    def dump(self, value) -> str:
        if self.inline or not isinstance(value, (dict, list)) or not value:
            return json.dumps(value, ensure_ascii=False, separators=(self.comma, self.sep))
        unit = self.style.unit
        text = json.dumps(value, ensure_ascii=False, indent="\t" if unit == "\t" else len(unit), separators=(",", self.sep))
        return text.replace("\n", self.style.nl + self.indent)

    def insert(self, key, value) -> str:
        s, box, nl = self.s, self.box, self.style.nl
        piece = (json.dumps(key, ensure_ascii=False) + self.sep if box.is_obj else "") + self.dump(value)
        if box.entries:
            last_end = box.entries[-1][3]
            if self.inline or _line_indent(s, box.entries[-1][1]) is None:
                pre, post = self.comma.split(",", 1)
                return s[:last_end] + pre + "," + post + piece + s[last_end:]
            return s[:last_end] + "," + nl + self.indent + piece + s[last_end:]
        if self.inline:
            return s[:box.close] + piece + s[box.close:]
        return s[:box.open + 1] + nl + self.indent + piece + s[box.open + 1:]

    def remove(self, n: int) -> str:
        """Entry `n` cut out: with the comma and line break before it (the inverse of `insert`),
        the first one with the comma after it, the only one with the line break it sat on."""
        s, box = self.s, self.box
        _, start, _, end = box.entries[n]
        if n > 0:
            return s[:box.entries[n - 1][3]] + s[end:]
        if len(box.entries) > 1:
            return s[:start] + s[box.entries[1][1]:]
        if not _has_newline(s[box.open + 1:start]):
            return s[:start] + s[end:]
        return s[:box.open + 1] + s[end:]


def _locate(s: str, b: str, top: int, path: tuple) -> _Box:
    if len(path) > MAX_DEPTH:
        raise EditError(f"nested deeper than {MAX_DEPTH} levels")
    box = _Box(b, top)
    for part in path:
        n = box.find(part)
        if n is None:
            raise EditError(f"no {part!r} to descend into")
        box = _Box(b, box.entries[n][2])
    return box


def _same(a, b) -> bool:
    return a is b or (type(a) is type(b) and a == b)


def _diff(old, new, path: tuple = ()) -> list[tuple]:
    """The edits that turn `old` into `new`: ("set", path, value) and ("del", path, None)."""
    if isinstance(old, dict) and isinstance(new, dict):
        ops = [("del", path + (k,), None) for k in old if k not in new]
        for k, v in new.items():
            if k not in old:
                ops.append(("set", path + (k,), v))
            else:
                ops.extend(_diff(old[k], v, path + (k,)))
        return ops
    if isinstance(old, list) and isinstance(new, list):
        return _list_diff(old, new, path)
    return [] if _same(old, new) else [("set", path, new)]


def _list_diff(old: list, new: list, path: tuple) -> list[tuple]:
    if len(new) > len(old) and new[:len(old)] == old:  # items appended
        return [("set", path + (len(old) + n,), v) for n, v in enumerate(new[len(old):])]
    if len(new) < len(old):  # items removed, the rest unchanged and in order
        kept, j = set(), 0
        for i, a in enumerate(old):
            if j < len(new) and new[j] == a:
                kept.add(i)
                j += 1
        if j == len(new):
            return [("del", path + (i,), None) for i in reversed(range(len(old))) if i not in kept]
    if len(new) == len(old):
        return [op for i, (a, b) in enumerate(zip(old, new)) for op in _diff(a, b, path + (i,))]
    return [("set", path, new)]


def _apply(s: str, top: int, op: str, path: tuple, value, style: _Style) -> str:
    b = blank_jsonc(s)
    if not path:  # the whole document replaced: not an edit of bytes
        raise EditError("the document itself would be replaced")
    box = _locate(s, b, top, path[:-1])
    key = path[-1]
    writer = _Writer(s, box, style)
    if op == "del":
        hits = [n for n, e in enumerate(box.entries) if (e[0] == key if box.is_obj else n == key)]
        if not hits:
            raise EditError(f"no {key!r} to remove")
        for n in reversed(hits):  # every copy of a duplicated key
            s = _Writer(s, _locate(s, blank_jsonc(s), top, path[:-1]), style).remove(n)
        return s
    n = box.find(key)
    if n is not None:
        _, _, vstart, vend = box.entries[n]
        return s[:vstart] + writer.dump(value) + s[vend:]
    if not box.is_obj and key != len(box.entries):
        raise EditError(f"item {key} is past the end of the array")
    return writer.insert(key, value)


def _canon(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def rewrite(text: str, before, after) -> str | None:
    """`text` (parsing to `before`) minimally edited to parse to `after`; None if not possible."""
    try:
        top = _skip(blank_jsonc(text), 0)
        style = _Style(text)
        if isinstance(before, dict):
            box = _Box(blank_jsonc(text), top)
            if box.entries:
                k0 = box.entries[0]
                between = text[scanstring(text, k0[1] + 1)[1]:k0[2]]
                style.sep = between if between.strip(" \t") == ":" else ": "
            if len(box.entries) > 1:
                between = text[box.entries[0][3]:box.entries[1][1]]
                style.comma = between if between.strip(" \t") == "," else ", "
        out = text
        for op, path, value in _diff(before, after):
            out = _apply(out, top, op, path, value, style)
        return out if _canon(loads(out)) == _canon(after) else None
    except (EditError, ValueError, TypeError, IndexError, RecursionError):
        return None


def fresh_bytes(obj) -> bytes:
    """A new file holding `obj`, laid out as Claude Code writes its settings (indent 2, final newline)."""
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def decode(data: bytes) -> tuple[str, bool]:
    """(text, had a BOM); UnicodeDecodeError for bytes that are not UTF-8."""
    if data.startswith(BOM):
        return data[3:].decode("utf-8"), True
    return data.decode("utf-8"), False


def edit_bytes(data: bytes | None, before, after) -> bytes:
    """The file's bytes edited from `before` to `after` (what it holds and what it must hold),
    BOM and every untouched byte kept; a new file when `data` is None or blank. EditError when
    the file cannot be edited in place (it is then left as it is)."""
    if data is None or not data.strip(b" \t\r\n" + BOM):
        return fresh_bytes(after)
    try:
        text, bom = decode(data)
    except UnicodeDecodeError as exc:
        raise EditError(f"not UTF-8 (byte {exc.start})") from None
    out = rewrite(text, before, after)
    if out is None:
        raise EditError("the edit cannot be made without rewriting the rest of the file")
    return (BOM if bom else b"") + out.encode("utf-8")


# ------------------------------------------------------------------ entries msd owns inside a document


class NotAContainer(ValueError):
    """A key on the way to msd's entry holds something else (the user's choice): left as it is."""


def reach(obj: dict, path: tuple[str, ...], leaf: type) -> tuple[dict | list, list[str]]:
    """The container at `path` in `obj` (objects on the way, `leaf` -- dict or list -- at the end),
    made where missing; returns it and the dotted names of the containers this made (what a
    later `prune` may take out again). NotAContainer naming the key that holds something else."""
    node, created = obj, []
    for depth, key in enumerate(path):
        want = leaf if depth == len(path) - 1 else dict
        name = ".".join(path[:depth + 1])
        if key not in node:
            node[key] = want()
            created.append(name)
        elif not isinstance(node[key], want):
            raise NotAContainer(f"'{name}' is not {'a list' if want is list else 'an object'}")
        node = node[key]
    return node, created


def peek_at(obj, path: tuple[str, ...]):
    """The value at `path`, or None when a key on the way is missing or no object."""
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return None
        obj = obj[key]
    return obj


def prune(obj: dict, path: tuple[str, ...], created) -> None:
    """Take out the containers on `path` that msd made (dotted names in `created`) and that are
    empty now, deepest first; every other one stays, empty or not."""
    for depth in range(len(path), 0, -1):
        parent = peek_at(obj, path[:depth - 1])
        key = path[depth - 1]
        if not isinstance(parent, dict) or ".".join(path[:depth]) not in created or parent.get(key) not in ({}, []):
            return
        del parent[key]


# ------------------------------------------------------------------ taking one writer's edit back out


_ABSENT = object()


def revert(before, written, current):
    """`current` with the edit that turned `before` into `written` taken back out, where the file's
    other writer left that edit as it was: a member msd added and still there unchanged goes (an
    object msd added keeps what another writer put in it), a value msd changed and still msd's gets
    its old value, a member msd removed and still absent returns. Everything else in `current`
    (what the other writer did since) stays. Objects only; any other value is compared whole."""
    if not (isinstance(written, dict) and isinstance(current, dict)):
        return before if current == written and before is not _ABSENT else current
    old = before if isinstance(before, dict) else {}
    out = dict(current)
    for key in [*written, *(k for k in old if k not in written)]:
        mine, was = written.get(key, _ABSENT), old.get(key, _ABSENT)
        if mine is not _ABSENT and was is not _ABSENT and _same(mine, was):
            continue  # not msd's edit
        if mine is _ABSENT:  # msd removed it
            if key not in out:
                out[key] = was
            continue
        if key not in out:
            continue  # the other writer removed it since: theirs to keep removed
        if _same(out[key], mine):
            if was is _ABSENT:
                del out[key]
            else:
                out[key] = was
        elif isinstance(out[key], dict) and isinstance(mine, dict):
            inner = revert(was, mine, out[key])
            if inner == {} and was is _ABSENT:
                del out[key]  # an object msd made, empty again
            else:
                out[key] = inner
    return out


def revert_bytes(before: bytes | None, written: bytes | None, current: bytes) -> bytes | None:
    """`current` (a JSON object file) edited so that the change from `before` to `written` is taken
    back out (`revert`), every other byte kept; None when nothing is to change or it cannot be
    done (a file that does not parse: left as it is)."""
    try:
        b = _load_obj(before)
        w = _load_obj(written)
        c = _load_obj(current)
        if c is None:
            return None
        after = revert(b if b is not None else _ABSENT, w if w is not None else {}, c)
        if after == c:
            return None
        return edit_bytes(current, c, after)
    except ValueError:
        return None


def _load_obj(data: bytes | None):
    if data is None or not data.strip(b" \t\r\n" + BOM):
        return None if data is None else {}
    text, _bom = decode(data)
    obj = loads(text)
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    return obj
