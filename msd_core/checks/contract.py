"""Rule `contract`: every `msd_run ...` invocation in the content parses with msd_run's parser.

Where: code in markdown content (inline code spans, fenced code lines with `\\` continuations
joined; shell context `` !`...` `` is an inline span too) and in the flows' step prompts
(inline code spans of each line, TOML's escaped quotes undone): a prompt reaches the agent
through `msd_run next-step` and is followed like any spine. Each `msd_run` word that starts a
command (at the start, or after whitespace, `;&|(`$!"'/`) begins an invocation, unless it
follows `command -v`, `which` or `type` (a PATH probe). A bare `msd_run` with nothing after it
names the tool and is skipped.

Placeholder convention (docs/CONTRACTS.md): `<like-this>` (a word of lower-case letters,
digits, hyphens in angle brackets) stands for a run-time value, and so does a whole-token shell expansion
(`$PHASE`, `"${PLAN}"`, `$(...)`, `$ARGUMENTS`, `$1`). Each is replaced by a neutral value
before parsing: first "1" (valid for numbers and text), then "x" when that fails.
A placeholder with an upper-case letter (`<NN>`, `<PLAN>`) inside an invocation is a
violation of its own: the agent cannot tell it from a literal, and the flows substitute
only lower-case names.

The invocation ends at the first unquoted `||`, `&&`, `|`, `;`, `&`, redirection (`>`, `<`,
`2>`), backtick, or `)` closing an enclosing `$(`. The rest is split with shlex and parsed by
msd_core.run.dispatch.build_command_parser(<command>) with abbreviations off, so every option
is one the command really has (argparse would take `--stat` for `--status`); a command not in
msd_run's table, or whose module is missing, is "unknown msd_run command".
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex

from msd_core.checks.model import FLOW_RE, CheckContext, Violation
from msd_core.checks.textlines import code_segments, short

RULE = "contract"
PLACEHOLDER = re.compile(r"<[A-Za-z][A-Za-z0-9_-]*>")
MARK = "__msd_placeholder__"
NEUTRALS = ("1", "x")
_START = re.compile(r"(?:^|(?<=[\s;&|(`$!\"'/]))msd_run(?![\w-])")
_PROBE = re.compile(r"(?:command\s+-v|which|type)\s+$")
_EXPANSION = re.compile(r"^\$(?:\w+|\{[^}]*\}|\(.*\))$")
_GLOBAL_FLAGS = {"--json-errors"}


def cut_invocation(rest: str) -> str:
    """The text of one invocation: `rest` up to the first unquoted shell operator."""
    quote = None
    depth = 0
    i = 0
    n = len(rest)
    while i < n:
        ch = rest[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                quote = None
            i += 1
            continue
        if ch == "<":
            ph = PLACEHOLDER.match(rest, i)
            if ph:  # a placeholder, not a redirection
                i = ph.end()
                continue
        if ch in "'\"":
            quote = ch
        elif ch == "\\":
            i += 2
            continue
        elif ch == "$" and i + 1 < n and rest[i + 1] == "(":
            depth += 1
            i += 2
            continue
        elif ch == "(" and depth:
            depth += 1
        elif ch == ")":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and ch in ";&|<>`":
            head = rest[:i]
            if ch == ">":
                head = re.sub(r"\s\d+$", "", head)  # `2>` belongs to the redirection
            return head
        i += 1
    return rest[:i]


def invocations(text: str) -> list[str]:
    """Every msd_run invocation in a code segment, as the text after `msd_run`."""
    out = []
    for m in _START.finditer(text):
        if _PROBE.search(text[: m.start()]):
            continue
        out.append(cut_invocation(text[m.end():]))
    return out


def split_args(body: str) -> list[str] | str:
    """shlex tokens with placeholders and shell expansions marked; an error message when unsplittable."""
    try:
        toks = shlex.split(body)
    except ValueError as exc:
        return f"cannot split the command line: {exc}"
    return [MARK if _EXPANSION.match(t) else PLACEHOLDER.sub(MARK, t) for t in toks]


class ParserCache:
    """One argparse parser per msd_run command, built once per run of the checks."""

    def __init__(self):
        self._parsers: dict[str, object] = {}

    def get(self, name: str):
        """The parser, or an error message when the command is unknown or will not load."""
        if name not in self._parsers:
            self._parsers[name] = self._build(name)
        return self._parsers[name]

    @staticmethod
    def _build(name: str):
        from msd_core.run import dispatch

        if name not in dispatch.COMMANDS:
            return f"unknown msd_run command {name!r}"

        class Exact(dispatch.OneLineParser):
            """msd_run's parser without prefix matching: an option must be written in full."""

            def __init__(self, *args, **kwargs):
                kwargs["allow_abbrev"] = False
                super().__init__(*args, **kwargs)

        try:
            with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                return dispatch.build_command_parser(name, parser_class=Exact)
        except ModuleNotFoundError as exc:
            return f"unknown msd_run command {name!r} (its module {exc.name} does not exist)"
        except Exception as exc:  # a module that fails to import is a broken contract, not a crash
            return f"msd_run {name}: its module failed to load ({type(exc).__name__}: {exc})"


def parse_error(parser, argv: list[str]) -> str | None:
    """None when argv parses; else argparse's one-line message."""
    buf = io.StringIO()
    try:
        with contextlib.redirect_stderr(buf), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(argv)
    except SystemExit as exc:
        if exc.code in (0, None):
            return None
        msg = " ".join(buf.getvalue().split())
        return re.sub(r"^msd_run [\w-]+: error: ", "", msg) or "does not parse"
    return None


def upper_placeholders(body: str) -> list[str]:
    """Placeholders in an invocation that are not lower-case (`<NN>`, `<Plan>`), in order, once each."""
    return list(dict.fromkeys(m.group(0) for m in PLACEHOLDER.finditer(body) if m.group(0) != m.group(0).lower()))


def check_invocation(body: str, parsers: ParserCache) -> str | None:
    """None when the invocation is valid, else why not."""
    toks = split_args(body)
    if isinstance(toks, str):
        return toks
    while toks and toks[0] in _GLOBAL_FLAGS:
        toks = toks[1:]
    if not toks or toks[0] in ("--help", "-h", "--version", "help"):
        return None
    name, args = toks[0], toks[1:]
    if MARK in name:
        return "the msd_run command name is a placeholder; write it literally"
    parser = parsers.get(name)
    if isinstance(parser, str):
        return parser
    first = None
    for neutral in NEUTRALS:
        err = parse_error(parser, [a.replace(MARK, neutral) for a in args])
        if err is None:
            return None
        first = first or err
    return first


def content_code(tree):
    """(file, segment) of the code in every markdown file and in every flow's prompt lines."""
    from dataclasses import replace

    for rel in tree.markdown_files():
        for seg in code_segments(tree.lines(rel)):
            yield rel, seg
    for rel in tree.files:
        if FLOW_RE.match(rel) and tree.text(rel) is not None:
            for i, line in enumerate(tree.lines(rel), 1):
                if "`" in line and "msd_run" in line:
                    for seg in code_segments([line.replace('\\"', '"')]):
                        yield rel, replace(seg, line=i)


def check(ctx: CheckContext) -> list[Violation]:
    tree = ctx.tree
    parsers = ParserCache()
    out: list[Violation] = []
    for rel, seg in content_code(tree):
        if "msd_run" not in seg.text:
            continue
        for body in invocations(seg.text):
            if not body.strip():
                continue  # the bare name of the tool, not a call
            upper = upper_placeholders(body)
            if upper:
                shown = short("msd_run " + body, 90)
                out.append(Violation(rel, seg.line, RULE,
                                     f"`{shown}` uses upper-case placeholder(s) {', '.join(upper)}",
                                     "write placeholders lower-case, e.g. " + ", ".join(u.lower() for u in upper)
                                     + " (docs/CONTRACTS.md: <like-this>)"))
                continue
            err = check_invocation(body, parsers)
            if err:
                shown = short("msd_run " + body, 90)
                out.append(Violation(rel, seg.line, RULE, f"`{shown}` does not match msd_run's parser: {err}",
                                     "write the call as docs/CONTRACTS.md lists it (placeholders as <like-this>); see `msd_run <command> --help`"))
    return out
