"""The tiny condition language of flow transitions, parsed safely (no eval).

Grammar (keywords are lower case):

    expr    := and ("or" and)*
    and     := not ("and" not)*
    not     := "not" not | atom
    atom    := "(" expr ")" | "exists(" STRING ")" | value [OP value]
    value   := NAME | NUMBER | STRING | true | false | null
    OP      := == != > >= < <=
    NAME    := root "." segment ("." segment)*      root: config | result | var | visits

- `config.workflow.research`  a project config value (.planning/config.json)
- `result.issues_found`       a field of the result the current step reported
- `var.phase`                 a flow variable (--var, or any field an earlier step reported)
- `visits.revise`             how many times a step has been entered in this run
- `exists(".planning/phases/<phase_dir>/<phase>-RESEARCH.md")`  a project file exists

A missing value is null. Ordering (> >= < <=) holds only between two numbers or two
strings; any other pair compares false. `true` never equals `1`.

Standard library only.
"""

from __future__ import annotations

import re

from msd_core.lean.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs import time on msd_run's hot path
    from typing import Any, Callable

ROOTS = ("config", "result", "var", "visits")
MAX_CONDITION_LEN = 500
MAX_DEPTH = 20

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<exists>exists\s*\()
  | (?P<op>==|!=|>=|<=|>|<)
  | (?P<lp>\()
  | (?P<rp>\))
  | (?P<num>-?\d+(?:\.\d+)?(?![A-Za-z0-9_.]))
  | (?P<str>"[^"\\\n]*")
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*)
    """,
    re.VERBOSE,
)
_SEGMENT_RE = re.compile(r"^[a-z_][a-z0-9_-]*$")
_KEYWORDS = {"and", "or", "not", "true", "false", "null"}


class ConditionError(ValueError):
    """A condition that does not parse; the message says where."""


@record(frozen=True)
class Condition:
    source: str
    tree: tuple

    def names(self) -> list[tuple[str, ...]]:
        """Every NAME the condition reads, as path tuples (root first)."""
        out: list[tuple[str, ...]] = []
        _collect(self.tree, out)
        return out

    def evaluate(self, lookup: Callable[[tuple[str, ...]], Any], exists: Callable[[str], bool]) -> bool:
        return _truthy(_eval(self.tree, lookup, exists))


def _collect(node: tuple, out: list) -> None:
    kind = node[0]
    if kind == "name":
        out.append(node[1])
    elif kind in ("and", "or"):
        for child in node[1]:
            _collect(child, out)
    elif kind == "not":
        _collect(node[1], out)
    elif kind == "cmp":
        _collect(node[2], out)
        _collect(node[3], out)


def _tokenize(text: str) -> list[tuple[str, str, int]]:
    tokens: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if not m:
            raise ConditionError(f"unexpected character {text[pos]!r} at column {pos + 1}")
        kind = m.lastgroup or ""
        if kind != "ws":
            tokens.append((kind, m.group(), pos + 1))
        pos = m.end()
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0
        self.depth = 0

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> tuple[str, str, int]:
        tok = self.peek()
        if tok is None:
            raise ConditionError("condition ends too early")
        self.i += 1
        return tok

    def is_word(self, word: str) -> bool:
        tok = self.peek()
        return tok is not None and tok[0] == "name" and tok[1] == word

    def parse(self) -> tuple:
        if not self.tokens:
            raise ConditionError("empty condition")
        tree = self.expr()
        tok = self.peek()
        if tok is not None:
            raise ConditionError(f"unexpected {tok[1]!r} at column {tok[2]}")
        return tree

    def expr(self) -> tuple:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ConditionError("condition nests too deeply")
        parts = [self.and_()]
        while self.is_word("or"):
            self.take()
            parts.append(self.and_())
        self.depth -= 1
        return parts[0] if len(parts) == 1 else ("or", tuple(parts))

    def and_(self) -> tuple:
        parts = [self.not_()]
        while self.is_word("and"):
            self.take()
            parts.append(self.not_())
        return parts[0] if len(parts) == 1 else ("and", tuple(parts))

    def not_(self) -> tuple:
        if self.is_word("not"):
            self.take()
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ConditionError("condition nests too deeply")
            inner = self.not_()
            self.depth -= 1
            return ("not", inner)
        return self.atom()

    def atom(self) -> tuple:
        tok = self.peek()
        if tok is None:
            raise ConditionError("condition ends too early")
        if tok[0] == "lp":
            self.take()
            inner = self.expr()
            close = self.take()
            if close[0] != "rp":
                raise ConditionError(f"expected ')' at column {close[2]}")
            return inner
        if tok[0] == "exists":
            self.take()
            arg = self.take()
            if arg[0] != "str":
                raise ConditionError(f"exists() takes one quoted path, at column {arg[2]}")
            close = self.take()
            if close[0] != "rp":
                raise ConditionError(f"expected ')' after the exists() path, at column {close[2]}")
            return ("exists", arg[1][1:-1])
        left = self.value()
        nxt = self.peek()
        if nxt is not None and nxt[0] == "op":
            self.take()
            right = self.value()
            return ("cmp", nxt[1], left, right)
        return left

    def value(self) -> tuple:
        tok = self.take()
        kind, text, col = tok
        if kind == "num":
            return ("lit", float(text) if "." in text else int(text))
        if kind == "str":
            return ("lit", text[1:-1])
        if kind == "name":
            if text == "true":
                return ("lit", True)
            if text == "false":
                return ("lit", False)
            if text == "null":
                return ("lit", None)
            if text in _KEYWORDS:
                raise ConditionError(f"unexpected {text!r} at column {col}")
            parts = tuple(text.split("."))
            if parts[0] not in ROOTS:
                raise ConditionError(
                    f"unknown name {text!r} at column {col} (names start with one of: {', '.join(ROOTS)})"
                )
            if len(parts) < 2:
                raise ConditionError(f"{text!r} at column {col} needs a field, e.g. {text}.something")
            for seg in parts[1:]:
                if not _SEGMENT_RE.match(seg):
                    raise ConditionError(f"bad name segment {seg!r} at column {col} (lower case, digits, _ and -)")
            return ("name", parts)
        raise ConditionError(f"unexpected {text!r} at column {col}")


def parse_condition(text: str) -> Condition:
    if not isinstance(text, str):
        raise ConditionError("a condition must be a string")
    if len(text) > MAX_CONDITION_LEN:
        raise ConditionError(f"condition longer than {MAX_CONDITION_LEN} characters")
    return Condition(text, _Parser(text).parse())


def _truthy(value: Any) -> bool:
    return bool(value)


def _eval(node: tuple, lookup, exists) -> Any:
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "name":
        return lookup(node[1])
    if kind == "exists":
        return bool(exists(node[1]))
    if kind == "not":
        return not _truthy(_eval(node[1], lookup, exists))
    if kind == "and":
        return all(_truthy(_eval(c, lookup, exists)) for c in node[1])
    if kind == "or":
        return any(_truthy(_eval(c, lookup, exists)) for c in node[1])
    if kind == "cmp":
        return _compare(node[1], _eval(node[2], lookup, exists), _eval(node[3], lookup, exists))
    raise ConditionError(f"unknown node {kind!r}")  # pragma: no cover - parser never builds one


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _compare(op: str, a: Any, b: Any) -> bool:
    if op in ("==", "!="):
        same_kind = (isinstance(a, bool) == isinstance(b, bool)) or a is None or b is None
        equal = same_kind and a == b
        return equal if op == "==" else not equal
    if not ((_is_number(a) and _is_number(b)) or (isinstance(a, str) and isinstance(b, str))):
        return False
    if op == ">":
        return a > b
    if op == ">=":
        return a >= b
    if op == "<":
        return a < b
    return a <= b
