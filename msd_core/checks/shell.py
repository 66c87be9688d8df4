"""Rule `shell-context`: the only shell context content may carry.

Shell context is what a host runs while rendering a skill: an inline `` !`cmd` `` (a `!`
right before a backtick span) or a fenced block opened with ```` ```! ````. It is found
anywhere in a markdown file, code fences included (the host does not care about fences).

Allowed only in a command (commands/msd/<name>.md), and only as exactly (whitespace-normalised)

    msd_run resolve <stem> --emit --root ~/.claude/msd-core || true

optionally with `--max-chars <digits>` right after `--emit` or right after the root, where
<stem> is a literal workflow stem shipped in this tree (never a placeholder, `$ARGUMENTS`,
`$1`, `${...}`; no other argument), and the command's frontmatter `allowed-tools` permits it
with the literal rule `Bash(msd_run resolve <stem> --emit *)`. A ```! block holds exactly one
such line. Anything else fails.

And the other way round (docs/CONTRACTS.md): a command that includes the spine of a split
workflow (`@~/.claude/msd-core/workflows/<stem>.md`, <stem> with detail parts) carries the
resolve line for that stem on the next non-blank line, so the host loads the parts.
"""

from __future__ import annotations

import re

from msd_core.checks.model import CheckContext, Violation, is_command
from msd_core.checks.textlines import FENCE_RE, frontmatter, normalise, short
from msd_core.shipped.layout import is_static_name

RULE = "shell-context"
ALLOWED = re.compile(
    r"^msd_run resolve (?P<stem>\S+) --emit(?P<a> --max-chars \d+)? --root ~/\.claude/msd-core(?P<b> --max-chars \d+)? \|\| true$"
)
SPINE_INCLUDE = re.compile(r"^@~/\.claude/msd-core/workflows/([a-z0-9-]+)\.md$")
INLINE = re.compile(r"!(`+)(?!`)(.*?)(?<!`)\1(?!`)")
FIX = "use exactly: !`msd_run resolve <stem> --emit --root ~/.claude/msd-core || true` with a literal shipped stem"


def permission(stem: str) -> str:
    """The allowed-tools rule a command needs for its shell-context line."""
    return f"Bash(msd_run resolve {stem} --emit *)"


def shell_contexts(lines: list[str]) -> list[tuple[int, str]]:
    """(line, command text) of every shell context in a file; a ```! block yields its body lines joined."""
    out: list[tuple[int, str]] = []
    block: list[str] | None = None
    block_line = 0
    fence = ""
    for i, line in enumerate(lines, 1):
        if block is not None:
            m = FENCE_RE.match(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip():
                out.append((block_line, "\n".join(block)))
                block = None
            else:
                block.append(line)
            continue
        m = FENCE_RE.match(line)
        if m and m.group(2).startswith("!"):
            block, block_line, fence = [], i, m.group(1)
            continue
        for im in INLINE.finditer(line):
            out.append((i, im.group(2)))
    if block is not None:
        out.append((block_line, "\n".join(block)))
    return out


def _allowed_tools(lines: list[str]) -> tuple[list[str] | str | None, str | None]:
    meta, err = frontmatter(lines)
    if err:
        return None, err
    if not meta:
        return None, None
    return meta.get("allowed-tools"), None


def _permits(tools, rule: str) -> bool:
    if isinstance(tools, str):
        return rule in tools
    if isinstance(tools, list):
        return any(isinstance(t, str) and t.strip() == rule for t in tools)
    return False


def _resolve_stem(line: str) -> str | None:
    """The stem of an allowed resolve command line (the body of a shell context), else None."""
    allowed = ALLOWED.match(normalise(line))
    return allowed.group("stem") if allowed else None


def _next_shell_context(lines: list[str], start: int) -> str | None:
    """The shell-context command on the next non-blank line from `start` (inline or ```! block), else None."""
    for j in range(start, len(lines)):
        text = lines[j].strip()
        if not text:
            continue
        inline = INLINE.fullmatch(text)
        if inline:
            return inline.group(2)
        fence = FENCE_RE.match(lines[j])
        if fence and fence.group(2).startswith("!"):
            body = [x for x in lines[j + 1:j + 3] if not FENCE_RE.match(x)]
            return body[0] if body else ""
        return None
    return None


def _missing_resolve_lines(tree, rel: str, lines: list[str]) -> list[Violation]:
    """Spine includes of split workflows not followed by their resolve line."""
    out = []
    for i, line in enumerate(lines):
        m = SPINE_INCLUDE.match(line.strip())
        if not m:
            continue
        wf = tree.workflows.get(m.group(1))
        if not (wf and wf.spine and wf.parts):
            continue
        cmd = _next_shell_context(lines, i + 1)
        stem = _resolve_stem(cmd) if cmd is not None else None
        if cmd is not None and (stem is None or not is_static_name(stem) or stem not in tree.workflows):
            continue  # a malformed shell context right there: the form check reports it
        if stem != wf.stem:
            want = f"!`msd_run resolve {wf.stem} --emit --root ~/.claude/msd-core || true`"
            out.append(Violation(rel, i + 1, RULE, f"includes the spine of split workflow {wf.stem!r} without its resolve line right after",
                                 f"add on the next line: {want}"))
    return out


def check(ctx: CheckContext) -> list[Violation]:
    tree = ctx.tree
    stems = {s for s, wf in tree.workflows.items() if wf.spine}
    out: list[Violation] = []
    for rel in tree.markdown_files():
        if is_command(rel):
            out += _missing_resolve_lines(tree, rel, tree.lines(rel))
    for rel in tree.markdown_files():
        lines = tree.lines(rel)
        found = shell_contexts(lines)
        if not found:
            continue
        for line, cmd in found:
            shown = short(cmd, 90)
            if not is_command(rel):
                out.append(Violation(rel, line, RULE, f"shell context `{shown}` outside a command (only a command's skill is host-rendered)",
                                     "remove it; only commands/msd/<name>.md may carry the resolve line"))
                continue
            body = [normalise(x) for x in cmd.split("\n") if x.strip()]
            m = ALLOWED.match(body[0]) if len(body) == 1 else None
            if not m or (m.group("a") and m.group("b")):
                out.append(Violation(rel, line, RULE, f"shell context `{shown}` is not the allowed resolve line", FIX))
                continue
            stem = m.group("stem")
            if not is_static_name(stem):
                out.append(Violation(rel, line, RULE, f"shell context stem {stem!r} is not a literal workflow stem (no placeholders or arguments)", FIX))
                continue
            if stem not in stems:
                out.append(Violation(rel, line, RULE, f"shell context names workflow {stem!r}, which this tree does not ship", "name a shipped workflow stem"))
                continue
            tools, err = _allowed_tools(lines)
            if err:
                out.append(Violation(rel, 1, RULE, err, "fix the frontmatter"))
            elif not _permits(tools, permission(stem)):
                out.append(Violation(rel, 1, RULE, f"frontmatter allowed-tools does not permit the shell context on line {line}",
                                     f"add `allowed-tools: {permission(stem)}` to the frontmatter"))
    return out
