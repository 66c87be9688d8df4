"""A Bash command read as the shell reads it, at the word level: the guards' view of a command.

parse(text) gives the simple commands in order, each with its words, its redirections and the
operator that ends it (`;`, `&&`, `||`, `|`, `&`, a newline, `(`, `)`), and the text of every
command substitution (`$(...)`, backticks, `<(...)`, `>(...)`, also inside double quotes and
unquoted here-documents), which the caller reads as commands of their own.

A word is a str when it is literal text alone (quotes and escapes removed; `$'...'` decoded),
else a tuple of parts: such a str, ("$", name) for a parameter (`$F`, `${F}`, `$1`), ("(", text)
for a command substitution and ("<(", text) for a process substitution. Glob characters stay
in the text (quoted or not: the caller expands). Keywords (`if`, `do`, `done`, `{`, ...) stay words: the caller skips them. Nothing is
expanded here. The scan is linear in the text (one pass, substitutions found by a balanced
scan) and never raises: an unclosed quote runs to the end of the text, as words.

Standard library only (no re, no shlex): it runs on the hook's hot path.
"""

from __future__ import annotations

SPACE = " \t\r"
OPERATORS = ";&|()"
PLAIN_STOP = frozenset(SPACE + OPERATORS + "\n#\\'\"$`<>")  # `#` only starts a comment at a word's start
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "v": "\v",
           "\\": "\\", "'": "'", '"': '"', "?": "?"}
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
SPECIAL_PARAMS = frozenset("@*#?-$!0123456789")


def text(word, values=None) -> str:
    """A word's text: parameters from `values` (else `$name`), substitutions as `$(...)`."""
    if isinstance(word, str):
        return word
    out = []
    for p in word:
        if isinstance(p, str):
            out.append(p)
        elif p[0] == "$":
            unknown = p[2] if len(p) > 2 else "$" + p[1]
            out.append(values.get(p[1], unknown) if values else unknown)
        else:
            out.append("$(...)")
    return "".join(out)


class TooSlow(Exception):
    """The text took longer to read than the caller's deadline."""


class Command:
    __slots__ = ("words", "redirects", "end")

    def __init__(self):
        self.words: list = []
        self.redirects: list = []  # (operator, target word)
        self.end = ";"


def _matching(text: str, i: int, open_: str = "(", close: str = ")") -> int:
    """Index just past the `close` that balances the `open_` before `i` (quotes respected; the end
    of the text when it never closes)."""
    depth, n = 1, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = text.find("'", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _ansi_c(text: str, i: int) -> tuple[str, int]:
    """`$'...'` from the character after the quote: (decoded text, index after the closing quote)."""
    out, n = [], len(text)
    while i < n and text[i] != "'":
        c = text[i]
        if c == "\\" and i + 1 < n:
            e = text[i + 1]
            if e in ESCAPES:
                out.append(ESCAPES[e])
                i += 2
            elif e in "xuU":
                size = {"x": 2, "u": 4, "U": 8}[e]
                j = i + 2
                while j < n and j < i + 2 + size and text[j] in "0123456789abcdefABCDEF":
                    j += 1
                out.append(chr(int(text[i + 2:j], 16)) if j > i + 2 and int(text[i + 2:j], 16) < 0x110000 else "\\" + e)
                i = j
            elif e in "01234567":
                j = i + 1
                while j < n and j < i + 4 and text[j] in "01234567":
                    j += 1
                out.append(chr(int(text[i + 1:j], 8) & 0xFF))
                i = j
            else:
                out.append("\\" + e)
                i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out), i + 1


def _dollar(text: str, i: int, parts: list, subs: list) -> int:
    """A `$` at `i` (not `$'` or `$"`): appends its part; returns the index after it."""
    n = len(text)
    nxt = text[i + 1] if i + 1 < n else ""
    if nxt == "(":
        if text.startswith("((", i + 1):  # arithmetic: a number, not a name
            end = _matching(text, i + 3)
            end = end + 1 if end < n and text[end] == ")" else end
            parts.append(("$", "(("))
            return end
        end = _matching(text, i + 2)
        inner = text[i + 2:end - 1] if end <= n and text[end - 1:end] == ")" else text[i + 2:end]
        parts.append(("(", inner))
        subs.append(inner)
        return end
    if nxt == "{":
        end = _matching(text, i + 2, "{", "}")
        body = text[i + 2:end - 1]
        j = 1 if body[:1] in ("#", "!") and len(body) > 1 else 0
        k = j
        while k < len(body) and body[k] in NAME_CHARS:
            k += 1
        name = body[j:k] or body[j:j + 1]
        if k < len(body) and body[k] in ":-=+?" and "$(" in body:
            subs.append(body[body.index("$(") + 2:body.rindex(")")] if ")" in body else body)
        rest = body[k:]
        for op in (":-", "-", ":=", "=", ":+", "+"):  # `${F:-default}`, `${F:+alternate}`: the word, F unknown
            if rest.startswith(op) and j == 0:
                parts.append(("$", name, rest[len(op):].strip("'\"")))
                return end
        parts.append(("$", name))
        return end
    if nxt and nxt in SPECIAL_PARAMS:
        parts.append(("$", nxt))
        return i + 2
    j = i + 1
    while j < n and text[j] in NAME_CHARS:
        j += 1
    if j == i + 1:
        parts.append("$")
        return j
    parts.append(("$", text[i + 1:j]))
    return j


def _backtick(text: str, i: int, parts: list, subs: list) -> int:
    n = len(text)
    j, inner = i + 1, []
    while j < n and text[j] != "`":
        if text[j] == "\\" and j + 1 < n and text[j + 1] in "`\\$":
            inner.append(text[j + 1])
            j += 2
            continue
        inner.append(text[j])
        j += 1
    body = "".join(inner)
    parts.append(("(", body))
    subs.append(body)
    return j + 1


def _heredoc_subs(body: str, subs: list) -> None:
    """Command substitutions an unquoted here-document's body runs."""
    i, n, scratch = 0, len(body), []
    while i < n:
        c = body[i]
        if c == "\\":
            i += 2
        elif c == "$" and body[i + 1:i + 2] == "(":
            i = _dollar(body, i, scratch, subs)
        elif c == "`":
            i = _backtick(body, i, scratch, subs)
        else:
            i += 1


def parse(text: str, deadline: float | None = None) -> tuple[list[Command], list[str]]:
    """(the simple commands of `text` in order, the text of each command substitution in it).
    TooSlow when time.monotonic() passes `deadline` while reading."""
    commands: list[Command] = []
    subs: list[str] = []
    cmd = Command()
    parts: list = []
    started = quoted = False
    ticks = 0
    pending: str | None = None  # a redirection operator waiting for its target
    heredocs: list = []  # (delimiter, quoted, strip tabs, its command, the redirection's index)
    i, n = 0, len(text)

    def end_word():
        nonlocal parts, started, quoted, pending
        if started:
            w = parts[0] if len(parts) == 1 and isinstance(parts[0], str) else \
                ("".join(parts) if all(isinstance(p, str) for p in parts) else tuple(parts))
            if pending is not None:
                if pending in ("<<", "<<-"):
                    heredocs.append(("".join(p for p in parts if isinstance(p, str)), quoted, pending == "<<-", cmd,
                                     len(cmd.redirects)))
                cmd.redirects.append((pending, w))
                pending = None
            else:
                cmd.words.append(w)
        parts, started, quoted = [], False, False

    def end_command(op: str):
        nonlocal cmd
        end_word()
        if cmd.words or cmd.redirects:
            cmd.end = op
            commands.append(cmd)
        cmd = Command()

    while i < n:
        ticks += 1
        if deadline is not None and not ticks & 4095:
            import time

            if time.monotonic() > deadline:
                raise TooSlow
        c = text[i]
        if c in SPACE:
            end_word()
            i += 1
        elif c == "\n":
            end_command("\n")
            i += 1
            for delim, quoted, strip, owner, at in heredocs:  # the bodies, up to their delimiter lines
                start = i
                while i < n:
                    eol = text.find("\n", i)
                    line = text[i:n if eol < 0 else eol]
                    i = n if eol < 0 else eol + 1
                    if (line.lstrip("\t") if strip else line) == delim:
                        break
                body = text[start:i].rsplit(delim, 1)[0] if text[start:i].rstrip("\n").endswith(delim) else text[start:i]
                owner.redirects[at] = ("<<", body)  # the body is the command's input
                if not quoted:
                    _heredoc_subs(body, subs)
            heredocs = []
        elif c == "#" and not started:
            eol = text.find("\n", i)
            i = n if eol < 0 else eol
        elif c == "\\":
            if text.startswith("\n", i + 1):
                i += 2
                continue
            parts.append(text[i + 1:i + 2])
            started = True
            i += 2
        elif c == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            parts.append(text[i + 1:j])
            started = quoted = True
            i = j + 1
        elif c == '"':
            started = quoted = True
            i += 1
            buf = []
            while i < n and text[i] != '"':
                d = text[i]
                if d == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
                    if text[i + 1] != "\n":
                        buf.append(text[i + 1])
                    i += 2
                elif d == "$" and i + 1 < n and (text[i + 1] in "({" or text[i + 1] in NAME_CHARS or text[i + 1] in SPECIAL_PARAMS):
                    parts.append("".join(buf))
                    buf = []
                    i = _dollar(text, i, parts, subs)
                elif d == "`":
                    parts.append("".join(buf))
                    buf = []
                    i = _backtick(text, i, parts, subs)
                else:
                    buf.append(d)
                    i += 1
            parts.append("".join(buf))
            i += 1
        elif c == "$":
            started = True
            nxt = text[i + 1:i + 2]
            if nxt == "'":
                decoded, i = _ansi_c(text, i + 2)
                parts.append(decoded)
                quoted = True
            elif nxt == '"':
                i += 1  # `$"..."`: read as "..." on the next turn
            else:
                i = _dollar(text, i, parts, subs)
        elif c == "`":
            started = True
            i = _backtick(text, i, parts, subs)
        elif c in "<>":
            if c in "<>" and text.startswith("(", i + 1):  # process substitution: a word
                end = _matching(text, i + 2)
                inner = text[i + 2:end - 1]
                parts.append(("<(", inner))
                subs.append(inner)
                started = True
                i = end
                continue
            fd = "".join(p for p in parts if isinstance(p, str)) if started and all(isinstance(p, str) for p in parts) else None
            if fd is not None and fd.isdigit() and not quoted:
                parts, started = [], False  # `2>`: the descriptor is part of the operator
            else:
                end_word()
            for op in ("<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&", "<", ">"):
                if text.startswith(op, i):
                    break
            pending = op
            i += len(op)
        elif c in OPERATORS:
            if c == "&" and text.startswith(">", i + 1):
                end_word()
                op = "&>>" if text.startswith(">>", i + 1) else "&>"
                pending = op[1:]  # `&>>` appends, as `>>` does
                i += len(op)
                continue
            two = text[i:i + 2]
            op = two if two in ("&&", "||", "|&", ";;", ";&") else c
            end_command("|" if op == "|&" else op)
            i += len(op)
        else:
            j = i + 1
            while j < n and text[j] not in PLAIN_STOP:
                j += 1
            parts.append(text[i:j])
            started = True
            i = j
    end_command(";")
    return commands, subs
