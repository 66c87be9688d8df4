"""Reading JSON, JSONC, TOML and YAML that another program or a person wrote, within bounds.

Every parser msd uses recurses once per nesting level (the json module, tomllib, PyYAML's
composer, msd's own jsonc_edit, simple_yaml and simple_toml readers), so a 50,000-deep
`[[[[…` ends in RecursionError; a huge file or a number with thousands of digits ends in
MemoryError or ValueError. Every reader of such a file goes through this module instead:

  `loads_json(data, what)`            json.loads within bounds (bytes or str; `bom=True` drops a BOM;
                                      the depth is read from the parsed value, see there)
  `loads_toml(text, what)`            tomllib.loads within bounds
  `parse(parser, text, syntax, what)` any other parser (jsonc, yaml, simple_yaml, simple_toml)
  `check(text, syntax, what)`         the bounds alone
  `read_json(path, what, max_bytes)`  a JSON file read through safe_read (regular files only) and parsed as above

Beyond the bounds (MAX_DEPTH levels of nesting, `max_bytes`), and wherever a parser still
recurses too deep or runs out of memory, they raise BoundedInputError: one line naming the
input (`what`), exit 2, and also a ValueError, so a reader that skips a malformed file
skips this one the same way. A malformed file raises what its parser raises, as before.

Nesting is counted without parsing: brackets outside strings and comments (json, jsonc, toml);
for YAML, flow brackets plus the number of distinct indentation widths (a block level needs an
indentation of its own). A text with fewer candidate characters than MAX_DEPTH is not scanned
at all, so the common small file costs a few `str.count` calls (msd_run's hot path reads
config.json and frontmatter through here). Standard library only.
"""

from __future__ import annotations

from msd_core.errors import UsageError

MAX_DEPTH = 100  # levels of nesting: far above any settings file, far below every parser's recursion limit
MAX_BYTES = 64 * 1024 * 1024  # a reader passes its own, smaller, cap where it has one
SYNTAXES = ("json", "jsonc", "toml", "yaml")

_patterns: dict = {}  # syntax -> compiled scanner, built on first use (re is not needed for small files)
_STR = r'"[^"\\]*(?:\\.[^"\\]*)*"'  # a double-quoted string with escapes
_SOURCES = {
    # a string or comment (matched whole, so its brackets are skipped), or one bracket
    "json": _STR + r"|[\[\]{}]",
    "jsonc": _STR + r"|//[^\n]*|/\*[\s\S]*?\*/|[\[\]{}]",
    "toml": r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]',
    # quotes on one line only (a plain scalar's apostrophe may pair with another: that under-counts,
    # and the parse's own recursion guard is the floor)
    "yaml": r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\n]*\'|[\[\]{}]',
}


class BoundedInputError(UsageError, ValueError):
    """Input beyond the bounds: exit 2 with one line; also a ValueError (a malformed-file skip applies)."""

    def __init__(self, what: str, reason: str, *, hint: str | None = None):
        super().__init__(f"{what} {reason}", hint=hint)
        self.what, self.reason = what, reason

    def naming(self, what: str) -> BoundedInputError:
        """The same refusal naming `what` (a caller that knows the file's path)."""
        return BoundedInputError(what, self.reason, hint=self.hint)


def _too_deep(what: str, max_depth: int) -> BoundedInputError:
    return BoundedInputError(what, f"is nested more than {max_depth} levels deep; msd does not read it",
                             hint="flatten it, or move it aside")


def _bracket_depth(text: str, syntax: str, limit: int) -> int:
    """The deepest bracket nesting outside strings and comments, counting stops past `limit`."""
    rx = _patterns.get(syntax)
    if rx is None:
        import re

        rx = _patterns[syntax] = re.compile(_SOURCES[syntax])
    depth = peak = 0
    for m in rx.finditer(text):
        c = m.group()
        if c == "[" or c == "{":
            depth += 1
            if depth > peak:
                peak = depth
                if peak > limit:
                    return peak
        elif c == "]" or c == "}":
            if depth:
                depth -= 1
    return peak


def _yaml_depth(text: str, limit: int) -> int:
    """Flow brackets outside quotes, plus the distinct indentation widths of the lines that hold something, plus the longest run
    of `- ` items opening one line (compact nested sequences)."""
    peak = _bracket_depth(text, "yaml", limit)
    widths = set()
    dashes = 0
    for line in text.split("\n"):
        body = line.lstrip(" \t")
        if not body or body[0] == "#":
            continue
        widths.add(len(line) - len(body))
        n = 0
        while body[:2] == "- " or body == "-":
            n += 1
            body = body[2:].lstrip(" ")
        dashes = max(dashes, n)
    return peak + len(widths) + dashes


def check(text, syntax: str, what: str, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> None:
    """BoundedInputError when `text` (str or bytes) is larger than `max_bytes` or nested deeper than `max_depth`."""
    if len(text) > max_bytes:
        raise BoundedInputError(what, f"is larger than {max_bytes} bytes; msd does not read it", hint="move it aside")
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8", "replace")
    if syntax == "yaml":
        if text.count("\n") + text.count("[") + text.count("{") + text.count("- ") < max_depth:
            return
        if _yaml_depth(text, max_depth) > max_depth:
            raise _too_deep(what, max_depth)
        return
    if text.count("[") + text.count("{") <= max_depth:
        return
    if _bracket_depth(text, syntax, max_depth) > max_depth:
        raise _too_deep(what, max_depth)


def parse(parser, text, syntax: str, what: str, *, max_bytes: int = MAX_BYTES, max_depth: int | None = MAX_DEPTH):
    """`parser(text)` after `check` (`max_depth=None`: no pre-scan, the caller bounds the depth of
    what it parsed); a recursion or memory failure inside it is a BoundedInputError too.
    A number too long to convert (Python's int digit limit) is one as well; other errors pass through."""
    if max_depth is not None:
        check(text, syntax, what, max_bytes=max_bytes, max_depth=max_depth)
    try:
        return parser(text)
    except RecursionError:
        raise _too_deep(what, MAX_DEPTH if max_depth is None else max_depth) from None
    except MemoryError:
        raise BoundedInputError(what, "is too large to read in memory", hint="move it aside") from None
    except ValueError as exc:
        if "digits" in str(exc) and "limit" in str(exc):  # int(): "Exceeds the limit (4300 digits) ..."
            raise BoundedInputError(what, "holds a number with too many digits to read", hint="shorten it") from None
        raise


def _depth_over(value, limit: int) -> bool:
    """Whether a parsed JSON value nests deeper than `limit` (iterative: one step per container)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return False


class _Decoding:
    """What the C scanner reads from the json module's decoder: json.loads' own settings."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


_scan: list = []  # the C scanner, made on first use ([None]: this interpreter has none)
_SPACE = " \t\n\r"  # what json.loads skips around the value


def _json_loads(text: str):
    """json.loads(text), without importing the json module when the text is well formed.

    `import json` also imports re and compiles six patterns: a third of a guard hook's start
    (msd_core/hooks/, one process per guarded tool call). The json module's own C scanner
    (`_json.make_scanner`, the one json.loads runs) parses the value; anything it does not take
    whole (malformed JSON, a BOM, an interpreter without `_json`) is handed to json.loads, which
    raises exactly what it always raised."""
    if not _scan:
        try:
            import _json

            _scan.append(_json.make_scanner(_Decoding()))
        except (ImportError, AttributeError, TypeError):  # pragma: no cover - CPython has it
            _scan.append(None)
    scan = _scan[0]
    if scan is not None and isinstance(text, str):
        start = len(text) - len(text.lstrip(_SPACE))
        try:
            value, end = scan(text, start)
        except (StopIteration, ValueError, SystemError):  # malformed: json.loads says how, as it always did
            end = -1  # (SystemError: CPython 3.11's scanner cannot build its JSONDecodeError before json is imported)
        if end >= 0 and not text[end:].strip(_SPACE):
            return value
    import json

    return json.loads(text)


def loads_json(data, what: str, *, bom: bool = False, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH):
    """json.loads within the bounds. `data` is str or UTF-8 bytes (UnicodeDecodeError when not);
    `bom=True` drops a leading byte-order mark first. json.JSONDecodeError for malformed JSON.

    JSON is parsed first, by the json module's C decoder (it raises RecursionError cleanly, long
    before the interpreter's stack runs out), and the depth is then read from the parsed value:
    a transcript line with code in a string costs one parse and a walk over its few containers,
    not a scan of its text."""
    if len(data) > max_bytes:
        raise BoundedInputError(what, f"is larger than {max_bytes} bytes; msd does not read it", hint="move it aside")
    if isinstance(data, (bytes, bytearray)):
        data = (data[3:] if bom and data[:3] == b"\xef\xbb\xbf" else data).decode("utf-8")
    elif bom and data[:1] == "\ufeff":
        data = data[1:]
    value = parse(_json_loads, data, "json", what, max_bytes=max_bytes, max_depth=None)
    if isinstance(value, (dict, list)) and _depth_over(value, max_depth):
        raise _too_deep(what, max_depth)
    return value


def loads_toml(text: str, what: str, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> dict:
    """tomllib.loads within the bounds (tomllib.TOMLDecodeError for malformed TOML)."""
    from msd_core.files.tomlread import loads

    return parse(loads, text, "toml", what, max_bytes=max_bytes, max_depth=max_depth)


def read_json(path, what: str, max_bytes: int, *, bom: bool = False, max_depth: int = MAX_DEPTH,
              follow_symlinks: bool = True):
    """The JSON value of the regular file at `path`, read through the never-blocking reader
    (msd_core.files.safe_read) and parsed within the bounds: the one entry for a JSON file msd
    does not own. OSError when it cannot be read (absent, a FIFO, socket, device or folder, larger
    than `max_bytes`); ValueError when it is not UTF-8, not JSON, or beyond the bounds."""
    from msd_core.files.safe_read import read_regular

    raw = read_regular(path, max_bytes, follow_symlinks=follow_symlinks)
    return loads_json(raw, what, bom=bom, max_bytes=max_bytes, max_depth=max_depth)
