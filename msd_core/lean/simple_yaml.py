r"""A reader for the common form of planning frontmatter, without importing PyYAML.

`parse_simple(block)` returns the mapping PyYAML's safe loader (timestamps left as text,
as frontmatter.py configures it) would return, or NOT_SIMPLE when the block uses anything
outside the form below; the caller then hands the block to PyYAML. It never guesses: a
value it cannot resolve exactly as YAML 1.1 would is a reason to decline, not to approximate.

The form it claims (indentation by spaces only):
  - `key: value` lines; a key is a plain scalar YAML reads as a string (words with
    spaces included), not a number, bool or null;
  - `key:` followed by deeper lines holding a nested mapping of the same form, or
    `- item` lines (a block list; at the key's indent or deeper); an item is a scalar or
    a flow list, or `key: value` opening a mapping whose other keys line up after `- `;
  - a value on one line: a plain scalar (a trailing ` # comment` is dropped), a single-
    or double-quoted scalar (double quotes with the escapes \\ \" \/ \n \t \r \0 only),
    a flow list `[a, b, 'c']` of such scalars (also over consecutive lines, each holding
    whole items), or `{}` / `[]`;
  - scalars YAML 1.1 resolves: null, bool (every spelling), decimal and 0-octal ints,
    floats with a decimal point; other strings stay strings;
  - full-line comments and blank lines.
Declined (NOT_SIMPLE): tabs, anchors/aliases/tags, block scalars (`|`, `>`), multi-line
plain scalars, other multi-line flow values, flow mappings, `: ` inside a value, hex/binary/sexagesimal numbers,
.inf/.nan, other escapes, non-printable characters.
Rejected (a `Rejected` whose `reason` says why): a value starting with `@` or a backtick,
which YAML reserves, or a plain value holding `: ` on its key's line, so PyYAML raises; the caller reads such a block with its lenient
line reader without importing PyYAML to be told so.

tests/planning/test_simple_yaml.py compares it with PyYAML over every frontmatter block of the
corpus: equal wherever it claims a block, and raising wherever it rejects one. Standard library only.
"""

from __future__ import annotations

import re

NOT_SIMPLE = object()

_BOOL = {
    "yes": True, "Yes": True, "YES": True, "true": True, "True": True, "TRUE": True, "on": True, "On": True, "ON": True,
    "no": False, "No": False, "NO": False, "false": False, "False": False, "FALSE": False,
    "off": False, "Off": False, "OFF": False,
}
_NULL = {"~", "null", "Null", "NULL"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")  # a key that is certainly a plain string
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9_]*)")
_OCTAL = re.compile(r"[-+]?0[0-7_]+")
_NOT_OCTAL = re.compile(r"[-+]?0[0-9_]*[89][0-9_]*")
_FLOAT = re.compile(r"[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?")
# A superset of what YAML 1.1 reads as an int or a float (binary, octal, hex, sexagesimal,
# underscores, exponents, .inf/.nan): _number reads the decimal, octal and decimal-point
# forms as YAML 1.1 does and declines the rest.
_NUMERIC = re.compile(
    r"[-+]?(?:0[bx]?[0-9a-fA-F_]*|[0-9][0-9_:]*(?:\.[0-9_]*)?(?:[eE][-+][0-9]+)?"
    r"|\.[0-9_]+(?:[eE][-+][0-9]+)?|\.(?:inf|Inf|INF|nan|NaN|NAN))"
)
_NUMBER_START = frozenset("+-.0123456789")  # every _NUMERIC match starts with one of these
_NUMBER_CHARS = frozenset("+-.0123456789_:bxabcdefABCDEFinfINFnaNA")  # and holds only these
_PLAIN_BAD_START = set("?:,[]{}#&*!|>'\"%<=")
_RESERVED = "@`"  # YAML reserves these: no token starts with them (PyYAML raises)
_FLOW_BAD = set("[]{},")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # ASCII characters YAML refuses


class _Decline(Exception):
    pass


class _Reject(Exception):
    """PyYAML raises on this block (a value starts with a reserved character)."""


class Rejected:
    """parse_simple's answer for a block PyYAML is certain to reject; `reason` says why."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason


_ESCAPES = {"\\": "\\", '"': '"', "/": "/", "n": "\n", "t": "\t", "r": "\r", "0": "\0", " ": " "}


def _unescape(inner: str) -> str:
    """A double-quoted scalar's text with the common escapes; others (and a bare `"`) decline."""
    out = []
    i, n = 0, len(inner)
    while i < n:
        ch = inner[i]
        if ch == '"':
            raise _Decline
        if ch == "\\":
            if i + 1 >= n or inner[i + 1] not in _ESCAPES:
                raise _Decline
            out.append(_ESCAPES[inner[i + 1]])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _digits(s: str):
    """A scalar of ASCII digits only, as _number reads it (without compiling its patterns):
    `0`-prefixed is octal when every digit is 0-7 (`010` is 8), else a string (`08`)."""
    if len(s) > 1 and s[0] == "0":
        return int(s, 8) if s.strip("01234567") == "" else s
    return int(s)


def _number(s: str):
    """A scalar matching _NUMERIC: YAML 1.1's int (decimal, `0`-prefixed octal) or float
    (with a decimal point) value; any other numeric form is declined."""
    digits = s.replace("_", "")
    sign = -1 if digits[0] == "-" else 1
    bare = digits.lstrip("+-")
    if _OCTAL.fullmatch(s):
        return sign * int(bare, 8)
    if _DECIMAL.fullmatch(s):
        return sign * int(bare)
    if _FLOAT.fullmatch(s):
        return sign * float(bare)
    if _NOT_OCTAL.fullmatch(s):
        return s  # `08`, `09`: no YAML number form matches, so a string
    raise _Decline


def _scalar(s: str, flow: bool = False):
    """One scalar's value, exactly as YAML 1.1 resolves it, or _Decline."""
    if not s:
        return None
    q = s[0]
    if q in "'\"":
        inner = s[1:-1]
        if len(s) < 2 or s[-1] != q:
            raise _Decline
        if q == '"' and "\\" in inner:
            return _unescape(inner)
        if q in inner:
            raise _Decline
        return inner
    if " #" in s and not flow:  # a comment ends a plain scalar
        s = s[: s.index(" #")].rstrip(" ")
        if not s:
            raise _Decline
    if ": " in s and not flow:  # after `key: ` on one line: YAML allows no second mapping there
        raise _Reject(f"{s[:40]!r} holds ': ' after its key on the same line")
    if "\t" in s or ": " in s or s.endswith(":") or " #" in s or (flow and _FLOW_BAD & set(s)):
        raise _Decline
    if s in _NULL:
        return None
    if s in _BOOL:
        return _BOOL[s]
    if s.isdigit() and s.isascii():
        return _digits(s)
    if s[0] in _NUMBER_START and _NUMBER_CHARS.issuperset(s) and _NUMERIC.fullmatch(s):
        return _number(s)
    if s[0] in _RESERVED:
        raise _Reject(f"{s[:40]!r} starts with {s[0]!r}, which YAML reserves")
    if s[0] in _PLAIN_BAD_START or (s[0] == "-" and (len(s) == 1 or s[1] == " ")):
        raise _Decline
    return s


def _key(text: str):
    """(key, rest or None) when the line is `key: rest` / `key:` with a plain key YAML
    reads as a string; None when it holds no such `: `."""
    i = text.find(": ")
    if i < 0:
        if not text.endswith(":"):
            return None
        i = len(text) - 1
    if i == 0:
        return None
    raw = text[:i].rstrip(" ")
    if not raw or raw[0] in "'\"":
        return None
    if not (_IDENT.fullmatch(raw) and raw not in _BOOL and raw not in _NULL):
        key = _scalar(raw)
        if not isinstance(key, str) or key != raw:
            raise _Decline  # a key YAML reads as a number, bool or null, or with a comment
    rest = text[i + 1:].strip(" ")
    return raw, (rest or None)


def _value(raw: str):
    """The value after `key: ` (or `- `) on one line."""
    s = raw.strip(" ")
    if s.startswith("["):
        if not s.endswith("]"):
            raise _Decline
        inner = s[1:-1].strip(" ")
        if not inner:
            return []
        return [_scalar(item, flow=True) for item in _flow_items(inner)]
    if s == "{}":
        return {}
    if s in ("|", ">") or s[:1] in ("|", ">", "{"):
        raise _Decline
    return _scalar(s)


def _flow_items(inner: str) -> list[str]:
    """The items of a one-line flow list's inside, split at the commas outside quotes."""
    items = []
    i, n = 0, len(inner)
    while True:
        while i < n and inner[i] == " ":
            i += 1
        if i < n and inner[i] in "'\"":
            q, j = inner[i], i + 1
            while j < n and inner[j] != q:
                j += 2 if (q == '"' and inner[j] == "\\") else 1
            if j >= n:
                raise _Decline  # an unclosed quote
            end = inner.find(",", j + 1)
            end = n if end < 0 else end
            if inner[j + 1:end].strip(" "):
                raise _Decline  # text after the closing quote (or `''` inside single quotes)
        else:
            end = inner.find(",", i)
            end = n if end < 0 else end
        item = inner[i:end].strip(" ")
        if not item:
            raise _Decline  # `[a, , b]` or a trailing comma
        items.append(item)
        if end >= n:
            return items
        i = end + 1


class _Lines:
    """The block's lines that carry content: (indent, text) in `items`, their line numbers
    in `numbers` (blank and comment lines are skipped), and the read position `i`."""

    __slots__ = ("items", "numbers", "i")

    def __init__(self, block: str):
        if "\t" in block or "\r" in block:
            raise _Decline  # tabs, and line breaks other than \n
        items, numbers = [], []
        n = -1
        for line in block.split("\n"):
            n += 1
            body = line.lstrip(" ")
            if not body or body[0] == "#":
                continue
            items.append((len(line) - len(body), body.rstrip(" ")))
            numbers.append(n)
        self.items, self.numbers = items, numbers
        self.i = 0


def _value_at(lines: _Lines, raw: str):
    """_value of `raw`, the text after `key: ` or `- ` on the line before lines.i; a flow
    list continued on the next lines (at any indentation, as PyYAML reads flow content; no
    blank or comment line between; no item split across lines) is read as the one line
    YAML folds it into."""
    if not raw.startswith("[") or raw.endswith("]"):
        return _value(raw)
    parts = [raw]
    while not parts[-1].endswith("]"):
        if lines.i >= len(lines.items):
            raise _Decline
        _ind, text = lines.items[lines.i]  # PyYAML ignores indentation inside a flow list
        if lines.numbers[lines.i] != lines.numbers[lines.i - 1] + 1:
            raise _Decline
        parts.append(text)
        lines.i += 1
    for k, part in enumerate(parts):  # every line holds whole items
        inner = part[1:] if k == 0 else part
        inner = inner[:-1] if k == len(parts) - 1 else inner
        inner = inner.strip(" ")
        if k < len(parts) - 1 and inner and not inner.endswith(",") and not parts[k + 1].startswith("]"):
            raise _Decline
        if inner.rstrip(","):
            _flow_items(inner.rstrip(","))  # declines an item (or a quote) left open at the line's end
    return _value(" ".join(parts))


def _mapping(lines: _Lines, indent: int) -> dict:
    out: dict = {}
    items = lines.items
    while lines.i < len(items):
        ind, text = items[lines.i]
        if ind < indent:
            break
        if ind > indent or text.startswith("-"):
            raise _Decline
        kv = _key(text)
        if kv is None:
            raise _Decline
        lines.i += 1
        out[kv[0]] = _value_at(lines, kv[1]) if kv[1] else _child(lines, indent)
    return out


def _child(lines: _Lines, indent: int):
    """What follows `key:` with nothing after it: a nested mapping, a block list, or null."""
    if lines.i >= len(lines.items):
        return None
    ind, text = lines.items[lines.i]
    if text == "-" or text.startswith("- "):
        if ind < indent:
            return None
        return _sequence(lines, ind)
    if ind > indent:
        return _mapping(lines, ind)
    return None


def _sequence(lines: _Lines, indent: int) -> list:
    out = []
    items = lines.items
    while lines.i < len(items):
        ind, text = items[lines.i]
        if ind < indent:
            break
        if ind > indent or not text.startswith("- "):
            if ind == indent and not text.startswith("-"):
                break  # the next key of the enclosing mapping (list at the key's own indent)
            raise _Decline
        item = text[2:].lstrip(" ")
        inner = ind + len(text) - len(item)
        kv = _key(item)
        if kv is not None:
            lines.i += 1
            first = {kv[0]: _value_at(lines, kv[1]) if kv[1] else _child(lines, inner)}
            if lines.i < len(items) and items[lines.i][0] == inner:
                first.update(_mapping(lines, inner))
            elif lines.i < len(items) and items[lines.i][0] > indent and not (
                items[lines.i][0] == inner and items[lines.i][1].startswith("- ")
            ):
                raise _Decline
            out.append(first)
            continue
        if not item or item.startswith("- ") or item == "-":
            raise _Decline
        lines.i += 1
        out.append(_value_at(lines, item))
        if lines.i < len(items) and items[lines.i][0] > indent:
            raise _Decline  # a continuation line
    return out


def _printable(block: str) -> bool:
    """Only characters YAML allows in a document (PyYAML refuses the others), no BOM, and
    no line break other than `\\n` (YAML also breaks lines at U+0085, U+2028, U+2029).
    (One character class with these ranges costs ~3 ms to compile on every start.)"""
    if _CONTROL.search(block):
        return False
    if block.isascii():
        return True
    for ch in set(block):
        o = ord(ch)
        if o < 0x80 or (0xA0 <= o <= 0xD7FF and o not in (0x2028, 0x2029)) or 0x10000 <= o <= 0x10FFFF or (
            0xE000 <= o <= 0xFFFD and o != 0xFEFF
        ):
            continue  # (0x85, 0x2028 and 0x2029 are line breaks to YAML: declined)
        return False
    return True


def parse_simple(block: str):
    """The block's mapping (see the module docstring), or NOT_SIMPLE."""
    try:
        if not _printable(block):
            return NOT_SIMPLE
        lines = _Lines(block)
        if not lines.items:
            return NOT_SIMPLE
        if lines.items[0][0] != 0:
            return NOT_SIMPLE
        out = _mapping(lines, 0)
        if lines.i != len(lines.items):
            return NOT_SIMPLE
        return out
    except _Reject as exc:
        return Rejected(str(exc))
    except (_Decline, RecursionError):
        return NOT_SIMPLE
