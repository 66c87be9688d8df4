"""What a Codex `apply_patch` patch would leave in each file it touches, for the write guard
(pre_tool_use.py judges each file as a Write of that text). Standard library only.

The patch format, as Codex CLI 0.171.0 takes it (its freeform `apply_patch` tool, whose PreToolUse
payload is `tool_name` "apply_patch" with the patch in `tool_input.command`; and the same text run
through its shell, `apply_patch <<'EOF' ... EOF`, which Codex applies itself: payload `tool_name` "Bash"):

    *** Begin Patch
    *** Add File: <path>          every following `+` line is the new file
    *** Delete File: <path>       the file is removed
    *** Update File: <path>       optionally `*** Move to: <new path>`, then hunks: an `@@` line (with
                                  an anchor line after it, or bare), then ` ` kept, `-` dropped and `+`
                                  added lines; `*** End of File` may close a hunk
    *** End Patch

`changes(patch, read)` gives [(path, text after, or None: the guard cannot work it out)] in the
patch's order; a deleted file, and the old path of a moved one, are left with "" (all it held is
lost). A hunk is found as Codex finds it: its lines exactly, else ignoring trailing whitespace,
else ignoring the whitespace around each line, from where the last hunk ended; a hunk found in none
of these ways leaves the file None. `read(path)` gives a file's text (None: absent). `from_shell`
takes the patch out of a shell command that runs `apply_patch` (or `applypatch`), with the folder a
leading `cd <dir> &&` names.
"""

from __future__ import annotations

import re
from collections.abc import Callable

BEGIN, END = "*** Begin Patch", "*** End Patch"
_HEADS = ("*** Add File: ", "*** Delete File: ", "*** Update File: ")
_CD = re.compile(r"""\s*cd\s+(?:'([^']*)'|"([^"]*)"|(\S+))\s*&&""")


def from_shell(command) -> tuple[str, str | None] | None:
    """(the patch, the folder a leading `cd` names or None) of a shell command that runs
    apply_patch with the patch as its here-document or argument; None for any other command."""
    if not isinstance(command, str) or BEGIN not in command:
        return None
    head = command[: command.index(BEGIN)]
    if not re.search(r"(?:^|[\s;&|(])(?:apply_patch|applypatch)(?=[\s'\"<])", head):
        return None
    m = _CD.match(command)
    folder = next((g for g in m.groups() if g), None) if m else None
    start = command.index(BEGIN)
    end = command.find(END, start)
    return command[start: end + len(END) if end >= 0 else len(command)], folder


def _sections(patch: str) -> list[tuple[str, str, list[str]]]:
    """[(kind, path, body lines)] with kind "add", "delete" or "update"."""
    out: list[tuple[str, str, list[str]]] = []
    for line in patch.replace("\r\n", "\n").split("\n"):
        head = next((h for h in _HEADS if line.startswith(h)), None)
        if line.strip() == END:
            break  # what follows the patch (a final newline) is no part of it
        if head is not None:
            out.append((head[4:].split(" ", 1)[0].lower(), line[len(head):].strip(), []))
        elif out and line.strip() != BEGIN:
            out[-1][2].append(line)
    return out


def _find(lines: list[str], want: list[str], start: int) -> int | None:
    """The index of the first run of `want` in `lines` at or after `start` (one substring search of
    the joined lines per tier: linear, whatever the lines repeat), or None."""
    for norm in (lambda s: s, str.rstrip, str.strip):
        seen = [norm(x) for x in lines]
        hay = "\n" + "\n".join(seen) + "\n"
        at = hay.find("\n" + "\n".join(norm(w) for w in want) + "\n", sum(len(x) + 1 for x in seen[:start]))
        if at >= 0:
            return hay.count("\n", 0, at)
    return None


def _updated(old: str, body: list[str]) -> str | None:
    lines = old.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    hunks: list[tuple[str | None, list[str], list[str]]] = []
    for line in body:
        if line.startswith("@@"):
            hunks.append((line[2:].strip() or None, [], []))
        elif line.startswith("*** End of File") or line.startswith("*** Move to: "):
            continue
        elif line[:1] in (" ", "-", "+") or line == "":
            if not hunks:
                hunks.append((None, [], []))
            text = line[1:]
            if line[:1] != "+":
                hunks[-1][1].append(text)
            if line[:1] != "-":
                hunks[-1][2].append(text)
        else:
            return None  # a line the format does not have: Codex refuses the patch; nothing to judge here
    at = 0
    for anchor, before, after in hunks:
        if anchor is not None:
            found = _find(lines, [anchor], at)
            if found is None:
                return None
            at = found + 1
        if not before:
            lines[len(lines):] = after
            at = len(lines)
            continue
        found = _find(lines, before, at)
        if found is None:
            return None
        lines[found: found + len(before)] = after
        at = found + len(after)
    return "\n".join(lines) + "\n" if lines else ""


def changes(patch, read: Callable[[str], str | None]) -> list[tuple[str, str | None]]:
    """[(path as the patch names it, its text after the patch or None)] (module doc)."""
    if not isinstance(patch, str):
        return []
    out: list[tuple[str, str | None]] = []
    for kind, path, body in _sections(patch):
        if not path:
            continue
        if kind == "add":
            added = [line[1:] for line in body if line.startswith("+")]
            out.append((path, "\n".join(added) + "\n" if added else ""))
        elif kind == "delete":
            out.append((path, ""))
        else:
            moved = next((line[len("*** Move to: "):].strip() for line in body if line.startswith("*** Move to: ")), None)
            old = read(path)
            new = _updated(old, body) if old is not None else None
            if moved:
                out += [(path, ""), (moved, new)]
            else:
                out.append((path, new))
    return out
