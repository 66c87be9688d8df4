"""A patch in the `apply_patch` format (`*** Begin Patch`, `*** Add File:`, `*** Update File:`, `@@`
chunks of ` `/`-`/`+` lines, `*** End Patch`) read as the whole-file writes it makes, so msd's
`.planning/` write guard judges each as a Write. OpenCode 1.18.33 offers its `apply_patch` tool
instead of `edit` and `write` to GPT models (`gpt-` in the id, not `gpt-4`, not `oss`: its tool
registry); the format as its bundled parser reads it.

Only what can be worked out exactly is returned: an added file's `+` lines; an updated file with
each chunk's old lines found in order in its text (after the chunk's `@@` context line, where it
names one), the line ends ignored at the right. A chunk not found leaves that file out (OpenCode
matches more loosely and may still apply it: a gap, as an Edit whose old text is not in the file);
a deleted or moved file is not a write and is left out too, as an `rm` is.
"""

from __future__ import annotations

import os

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, UPDATE, DELETE, MOVE = "*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"


def writes(patch, cwd: str | None) -> list[tuple[str, str]]:
    """[(absolute path, the file's text after the patch)] for each file it adds or updates that can be
    worked out; [] for text that is not such a patch."""
    if not isinstance(patch, str):
        return []
    lines = patch.strip().split("\n")
    starts = [i for i, ln in enumerate(lines) if ln.strip() == BEGIN]
    ends = [i for i, ln in enumerate(lines) if ln.strip() == END]
    if not starts or not ends or ends[0] <= starts[0]:
        return []
    body, out, i = lines[starts[0] + 1:ends[0]], [], 0
    while i < len(body):
        line, i = body[i], i + 1
        if not line.startswith((ADD, UPDATE)):
            continue
        path = line.split(":", 1)[1].strip()
        block = []
        while i < len(body) and not body[i].startswith("***") or (i < len(body) and body[i] == "*** End of File"):
            block.append(body[i])
            i += 1
        if not path or (i < len(body) and line.startswith(UPDATE) and body[i].startswith(MOVE)):
            continue  # a file moved away: it leaves its place, as a delete does
        full = path if os.path.isabs(path) or not cwd else os.path.join(cwd, path)
        text = "\n".join(b[1:] for b in block if b.startswith("+")) if line.startswith(ADD) else _updated(full, block)
        if text is not None:
            out.append((full, text))
    return out


def _updated(path: str, block: list[str]) -> str | None:
    from msd_core.hooks.planning_guard import read_text

    old = read_text(path)
    if old is None:
        return None
    text, at = old.split("\n"), 0
    for context, before, after in _chunks(block):
        if context:
            found = _find(text, [context], at)
            if found < 0:
                return None
            at = found + 1
        if not before:  # lines added at the end
            end = len(text) - 1 if text and text[-1] == "" else len(text)
            text[end:end] = after
            continue
        found = _find(text, before, at)
        if found < 0:
            return None
        text[found:found + len(before)] = after
        at = found + len(after)
    return "\n".join(text)


def _chunks(block: list[str]):
    """(context line, old lines, new lines) of each `@@` chunk."""
    chunk: tuple[str, list[str], list[str]] | None = None
    for line in block:
        if line.startswith("@@"):
            if chunk:
                yield chunk
            chunk = (line[2:].strip(), [], [])
        elif chunk and line.startswith((" ", "-", "+")):
            if line[0] != "+":
                chunk[1].append(line[1:])
            if line[0] != "-":
                chunk[2].append(line[1:])
    if chunk:
        yield chunk


def _find(text: list[str], seek: list[str], start: int) -> int:
    want, have = [s.rstrip() for s in seek], [t.rstrip() for t in text]
    for i in range(start, len(have) - len(want) + 1):
        if have[i:i + len(want)] == want:
            return i
    return -1
