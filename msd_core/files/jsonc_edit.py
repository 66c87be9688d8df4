"""Add or remove one entry in a user's JSON/JSONC config file without touching any other byte.

The file is scanned (strings, `//` and `/* */` comments, trailing commas) only to find where
an object's members are; the edit is a text insertion right after an object's opening brace,
and removal takes out exactly the text inserted. So everything outside our entry stays byte
for byte what the user wrote (comments, order, spacing). Standard library only.
"""

from __future__ import annotations

import json


class JsoncError(ValueError):
    pass


class _Obj:
    def __init__(self, open_at: int):
        self.open_at = open_at  # index of '{'
        self.members: dict[str, tuple[int, int, object]] = {}  # key -> (value start, value end, parsed node)


class _Scanner:
    def __init__(self, text: str):
        self.s = text
        self.i = 0

    def ws(self) -> None:
        s, n = self.s, len(self.s)
        while self.i < n:
            c = s[self.i]
            if c in " \t\r\n\ufeff":
                self.i += 1
            elif s.startswith("//", self.i):
                j = s.find("\n", self.i)
                self.i = n if j < 0 else j + 1
            elif s.startswith("/*", self.i):
                j = s.find("*/", self.i + 2)
                if j < 0:
                    raise JsoncError("unterminated comment")
                self.i = j + 2
            else:
                return

    def value(self):
        self.ws()
        if self.i >= len(self.s):
            raise JsoncError("unexpected end of file")
        c = self.s[self.i]
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c == '"':
            return self.string()
        j = self.i
        while j < len(self.s) and self.s[j] not in ",}] \t\r\n/":
            j += 1
        word = self.s[self.i:j]
        try:
            val = json.loads(word)
        except ValueError:
            raise JsoncError(f"unexpected {word[:20]!r} at offset {self.i}") from None
        self.i = j
        return val

    def string(self) -> str:
        j = self.i + 1
        while True:
            if j >= len(self.s):
                raise JsoncError("unterminated string")
            c = self.s[j]
            if c == "\\":
                j += 2
                continue
            if c == '"':
                break
            j += 1
        out = json.loads(self.s[self.i:j + 1])
        self.i = j + 1
        return out

    def obj(self) -> _Obj:
        node = _Obj(self.i)
        self.i += 1
        while True:
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == "}":
                self.i += 1
                return node
            if self.i >= len(self.s) or self.s[self.i] != '"':
                raise JsoncError(f"expected a key at offset {self.i}")
            key = self.string()
            self.ws()
            if self.i >= len(self.s) or self.s[self.i] != ":":
                raise JsoncError(f"expected ':' at offset {self.i}")
            self.i += 1
            self.ws()
            start = self.i
            val = self.value()
            node.members[key] = (start, self.i, val)
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == ",":
                self.i += 1
            elif self.i < len(self.s) and self.s[self.i] == "}":
                continue
            else:
                raise JsoncError(f"expected ',' or '}}' at offset {self.i}")

    def arr(self) -> list:
        self.i += 1
        out = []
        while True:
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == "]":
                self.i += 1
                return out
            out.append(self.value())
            self.ws()
            if self.i < len(self.s) and self.s[self.i] == ",":
                self.i += 1
            elif self.i < len(self.s) and self.s[self.i] == "]":
                continue
            else:
                raise JsoncError(f"expected ',' or ']' at offset {self.i}")


def _parse(text: str):
    sc = _Scanner(text)
    node = sc.value()
    sc.ws()
    if sc.i != len(text):
        raise JsoncError(f"unexpected text after the document at offset {sc.i}")
    return node


def parse(text: str, what: str = "the JSONC document"):
    """The document's top-level node (an _Obj for an object). JsoncError when malformed;
    BoundedInputError (exit 2) when nested too deep or too large (msd_core.files.bounded)."""
    from msd_core.files.bounded import parse as bounded_parse

    return bounded_parse(_parse, text, "jsonc", what)


def lookup(node, path: tuple[str, ...]):
    """The node at `path` (keys), or None."""
    for key in path:
        if not isinstance(node, _Obj) or key not in node.members:
            return None
        node = node.members[key][2]
    return node


def insert_entry(text: str, path: tuple[str, ...], key: str, value, what: str = "the JSONC document") -> tuple[str, str] | str:
    """Insert `"key": value` into the object at `path`, creating missing objects on the way.
    Returns (new text, inserted snippet), or a string saying why nothing was inserted."""
    root = parse(text, what)
    if not isinstance(root, _Obj):
        return "the file is not a JSON object"
    node, depth = root, 0
    for depth, k in enumerate(path):
        child = node.members.get(k)
        if child is None:
            break
        if not isinstance(child[2], _Obj):
            return f"'{'.'.join(path[:depth + 1])}' is not an object"
        node = child[2]
    else:
        depth = len(path)
        if key in node.members:
            return "present"
    entry: object = value
    for k in reversed(((*path[depth:], key))[1:] if depth < len(path) else ()):
        entry = {k: entry}
    first_key = path[depth] if depth < len(path) else key
    snippet = json.dumps({first_key: entry}, ensure_ascii=False)[1:-1]
    after = node.open_at + 1
    snippet += "," if node.members else ""
    new = text[:after] + snippet + text[after:]
    return new, snippet


def remove_snippet(text: str, snippet: str) -> str | None:
    """`text` without the one occurrence of `snippet`; None when it is not there exactly once."""
    if not snippet or text.count(snippet) != 1:
        return None
    return text.replace(snippet, "", 1)
