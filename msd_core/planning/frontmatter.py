"""The tolerant frontmatter reader every planning command uses.

`split_frontmatter(text)` returns `(data, body, error)` and never raises:

- A leading BOM is ignored; `\\n` and `\\r\\n` line endings are both accepted; the body
  is returned with its original line endings.
- No frontmatter (the text does not start with a `---` line): `(None, text, None)`.
- An opening `---` without a closing `---` (or `...`) line: `(None, text, "unterminated frontmatter")`.
- The common form of frontmatter (simple_yaml.py) is read without PyYAML, giving what
  PyYAML would; any other block is read with PyYAML's safe loader (the C one when
  available), imported lazily.
  Timestamps are NOT converted: `completed: 2026-11-30` stays the string "2026-11-30",
  so every value is JSON-serialisable.
- Duplicate keys: the LAST occurrence wins (PyYAML's behaviour; the fallback does the same).
- When PyYAML rejects the block (unquoted backticks, `@` at the start of a scalar, a
  colon inside a flow list, ...), the block is read again with `read_lenient`, a
  line-based reader for the YAML subset planning files use: `key: value`, nested
  mappings by indentation, `- item` lists (an item may open a mapping), flow lists
  `[a, b]`, `|`/`>` block scalars. Every scalar is kept as its text (quotes removed).
  In that case `data` is the fallback's mapping and `error` says why YAML failed,
  prefixed with "yaml rejected". `data is None` only when nothing usable was found.
- A block that is valid YAML but not a mapping: `(None, body, "frontmatter is not a mapping")`.
- A block larger than MAX_BLOCK_CHARS, or whose parsed value holds more than MAX_NODES
  values once aliases are expanded (a "billion laughs" document), is refused:
  `(None, body, "... too large ...")`.

Standard library at import time.
"""

from __future__ import annotations

import re

_OPEN_RE = re.compile(r"---[ \t]*\r?\n")
_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)", re.M)

_loader_cls = None
_simple_yaml = None  # msd_core.lean.simple_yaml, imported for the first block read (not by `locate`)
MAX_BLOCK_CHARS = 512 * 1024
MAX_NODES = 20_000


def _loader():
    """A SafeLoader (C when available) that leaves timestamps as strings."""
    global _loader_cls
    if _loader_cls is None:
        import yaml  # lazy: 30+ ms to import

        base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

        class _Loader(base):  # type: ignore[misc, valid-type]
            pass

        _Loader.yaml_implicit_resolvers = {
            ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
            for ch, resolvers in base.yaml_implicit_resolvers.items()
        }
        _loader_cls = _Loader
    return _loader_cls


def _load_simple_yaml():
    global _simple_yaml
    from msd_core.lean import simple_yaml

    _simple_yaml = simple_yaml
    return simple_yaml


def locate(text: str) -> tuple[int, int, int] | None:
    """(start of YAML, end of YAML, start of body) offsets in `text` (BOM included), or None."""
    offset = 1 if text.startswith("\ufeff") else 0
    m = _OPEN_RE.match(text, offset)
    if not m:
        return None
    close = _CLOSE_RE.search(text, m.end())
    if not close:
        return (m.end(), -1, -1)
    return (m.end(), close.start(), close.end())


def split_frontmatter(text: str, keys: frozenset[str] | None = None) -> tuple[dict | None, str, str | None]:
    """See the module docstring. `keys`: read only these top-level keys (compared after
    lower-casing and `_` → `-`); the other top-level entries are dropped before parsing,
    which saves most of the YAML work when a caller needs a few keys of a long block."""
    try:
        return _split(text, keys)
    except Exception as exc:  # never raise: a reader of user files
        return None, text, f"frontmatter unreadable ({type(exc).__name__}: {exc})"


_TOP_KEY_RE = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:")


_COLUMN0_RE = re.compile(r"^[^ \t\n#-][^\n]*", re.M)


def select_top_keys(block: str, keys: frozenset[str]) -> str:
    """The top-level `key:` entries of a YAML block whose normalised key is in `keys`.

    An entry runs from its `key:` line to the next line that starts in column 0 with
    anything but `-` or `#` (a list at the key's own indent and comments stay with it)."""
    out: list[str] = []
    keep, start = False, 0
    for m in _COLUMN0_RE.finditer(block):
        if keep:
            out.append(block[start:m.start()])
        k = _TOP_KEY_RE.match(m.group())
        keep = bool(k) and k.group(1).lower().replace("_", "-") in keys
        start = m.start()
    if keep:  # the last entry runs to the end of the block
        out.append(block[start:])
        return "".join(out)
    kept = "".join(out)
    return kept[:-1] if kept.endswith("\n") else kept  # lines joined by "\n", as split() left them


def _split(text: str, keys: frozenset[str] | None = None) -> tuple[dict | None, str, str | None]:
    if not isinstance(text, str):
        return None, "", "not text"
    loc = locate(text)
    if loc is None:
        return None, text[1:] if text.startswith("\ufeff") else text, None
    start, end, body_start = loc
    if end < 0:
        return None, text, "unterminated frontmatter"
    block = text[start:end]
    body = text[body_start:]
    if not block.strip():
        return {}, body, None
    if len(block) > MAX_BLOCK_CHARS:
        return None, body, f"frontmatter too large (over {MAX_BLOCK_CHARS} characters)"
    block = block.replace("\r\n", "\n")
    if keys is not None:
        block = select_top_keys(block, keys)
        if not block.strip():
            return {}, body, None
    sy = _simple_yaml or _load_simple_yaml()
    from msd_core.files.bounded import BoundedInputError, parse

    try:  # the common form, read exactly as PyYAML would (simple_yaml.py), within msd's nesting bound
        data = parse(sy.parse_simple, block, "yaml", "the frontmatter", max_bytes=MAX_BLOCK_CHARS)
    except BoundedInputError as exc:
        return None, body, f"frontmatter {exc.reason}"
    if data is sy.NOT_SIMPLE or isinstance(data, sy.Rejected):
        try:
            if isinstance(data, sy.Rejected):  # PyYAML would raise: no need to import it
                raise ValueError(data.reason)
            import yaml

            data = yaml.load(block, Loader=_loader())
        except Exception as exc:  # YAMLError, RecursionError, ...
            reason = " ".join(str(exc).split())[:200]
            data = read_lenient(block)
            if not data:
                return None, body, f"yaml rejected the frontmatter ({reason}) and the line reader found no keys"
            return data, body, f"yaml rejected the frontmatter ({reason}); read with the line-based fallback"
    if data is None:
        return {}, body, None
    if not isinstance(data, dict):
        return None, body, "frontmatter is not a mapping"
    if not _within(data, MAX_NODES):
        return None, body, f"frontmatter too large (over {MAX_NODES} values once aliases are expanded)"
    return {str(k): v for k, v in data.items()}, body, None


def _within(data, limit: int) -> bool:
    """True when walking `data` (aliases expanded) visits at most `limit` values."""
    budget = limit
    stack = [data]
    while stack:
        item = stack.pop()
        budget -= 1
        if budget < 0:
            return False
        if isinstance(item, dict):
            stack.extend(item.values())
            budget -= len(item)
        elif isinstance(item, list):
            stack.extend(item)
    return True


# ---------------------------------------------------------------- lenient reader

_KEY_RE = re.compile(r"^([A-Za-z_][\w .\-]*?)\s*:(?:\s+(.*)|\s*)$")


def _scalar(raw: str):
    s = raw.strip()
    if not s or s in ("~", "null", "Null", "NULL"):
        return None if s else ""
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        return s[1:-1]
    return s


def _split_flow(inner: str) -> list[str]:
    items, depth, quote, cur = [], 0, "", []
    for ch in inner:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"" and not "".join(cur).strip():
            quote = ch
            cur.append(ch)
        elif ch in "[{(":
            depth += 1
            cur.append(ch)
        elif ch in "]})":
            depth -= 1
            cur.append(ch)
        elif ch == "," and depth <= 0:
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        items.append("".join(cur))
    return [x for x in (_scalar(i) for i in items) if x not in ("", None)]


def _value(raw: str):
    s = raw.strip()
    if s.startswith("[") and s.endswith("]"):
        return _split_flow(s[1:-1])
    if s == "{}":
        return {}
    return _scalar(s)


class _Lines:
    def __init__(self, block: str):
        self.items: list[tuple[int, str]] = []
        for line in block.split("\n"):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            self.items.append((len(line) - len(line.lstrip(" ")), stripped))
        self.i = 0

    def peek(self):
        return self.items[self.i] if self.i < len(self.items) else None


def read_lenient(block: str) -> dict:
    """Line-based reader for the frontmatter subset; never raises, last duplicate key wins."""
    try:
        lines = _Lines(block.replace("\r\n", "\n"))
        out = _mapping(lines, 0)
        return out if isinstance(out, dict) else {}
    except Exception:
        return {}


def _block_scalar(lines: _Lines, indent: int, fold: bool) -> str:
    parts = []
    while (nxt := lines.peek()) and nxt[0] > indent:
        parts.append(nxt[1])
        lines.i += 1
    return (" " if fold else "\n").join(parts)


def _continuation(lines: _Lines, indent: int, text: str) -> str:
    """Plain multi-line scalars: deeper lines that are neither keys nor list items."""
    while (nxt := lines.peek()) and nxt[0] > indent and not nxt[1].startswith("- ") and not _KEY_RE.match(nxt[1]):
        text = f"{text} {nxt[1]}"
        lines.i += 1
    return text


def _nested(lines: _Lines, indent: int):
    nxt = lines.peek()
    if nxt is None:
        return None
    if nxt[0] > indent or (nxt[0] == indent and (nxt[1].startswith("- ") or nxt[1] == "-")):
        if nxt[1].startswith("- ") or nxt[1] == "-":
            return _sequence(lines, nxt[0])
        return _mapping(lines, nxt[0])
    return None


def _after_key(lines: _Lines, indent: int, rest: str | None):
    if rest is None or rest.strip() == "":
        return _nested(lines, indent)
    r = rest.strip()
    if r in ("|", "|-", "|+", ">", ">-", ">+"):
        return _block_scalar(lines, indent, r.startswith(">"))
    if r.startswith("[") and not r.endswith("]"):  # flow list continued on later lines
        while (nxt := lines.peek()) and nxt[0] > indent and not r.endswith("]"):
            r = f"{r} {nxt[1]}"
            lines.i += 1
    if r.startswith("[") and r.endswith("]"):
        return _value(r)
    return _scalar(_continuation(lines, indent, r))


def _mapping(lines: _Lines, indent: int) -> dict:
    out: dict = {}
    while (cur := lines.peek()) is not None:
        ind, text = cur
        if ind < indent:
            break
        if ind > indent:  # stray deeper line: skip it
            lines.i += 1
            continue
        if text.startswith("- ") or text == "-":
            break
        m = _KEY_RE.match(text)
        lines.i += 1
        if not m:
            continue
        out[m.group(1).strip()] = _after_key(lines, indent, m.group(2))
    return out


def _sequence(lines: _Lines, indent: int) -> list:
    out: list = []
    while (cur := lines.peek()) is not None:
        ind, text = cur
        if ind != indent or not (text.startswith("- ") or text == "-"):
            if ind > indent:
                lines.i += 1
                continue
            break
        lines.i += 1
        item = text[1:].strip()
        if not item:
            out.append(_nested(lines, indent))
            continue
        m = _KEY_RE.match(item)
        if m and not item.startswith(("'", '"')):
            child_indent = indent + 2
            first = {m.group(1).strip(): _after_key(lines, child_indent, m.group(2))}
            nxt = lines.peek()
            if nxt and nxt[0] > indent and _KEY_RE.match(nxt[1]):
                first.update(_mapping(lines, nxt[0]))
            out.append(first)
            continue
        if item.startswith("[") and item.endswith("]"):
            out.append(_value(item))
            continue
        out.append(_scalar(_continuation(lines, indent, item)))
    return out
