"""Text edits of ROADMAP.md and friends for phase insert / remove / move.

Pure functions on text; nothing here reads or writes files.

- `renumber_text(text, mapping, folders)`: rewrites phase references simultaneously
  (so 4→3 and 5→4 never chain): `Phase 4` / `phase 04`, progress-table cells `| 4. Name |`,
  plan ids `04-01`, and whole folder names (`04-search` → `03-search`). `mapping` maps
  normalised numbers (`4`, `3.2`) to new normalised numbers; the original padding is kept
  (`04` → `03`, `4` → `3`). Lines inside `<details>` blocks (archived milestones) and
  fenced code are left alone.
- `take_entries(text, number)`: removes a phase's checklist line, its details block
  (`### Phase N: ...` up to the next heading of the same or a higher level) and its
  progress-table row; returns the new text and what was taken.
- `put_entries(text, after, number, name, taken=None, goal=None)`: inserts a phase's
  checklist line, details block and progress row after those of phase `after`, written in
  the roadmap's own shape (`block_style`): msd's (`Goal:`, `Depends on:`, `Requirements:`,
  `Done when:` and its list, `Plans:`; the checklist line `- [ ] Phase 3.1: Name — goal`) or,
  when its phase blocks bold their labels, the older one (`**Goal**:` ..., `**Plans**:`).

Standard library only.
"""

from __future__ import annotations

import re

from msd_core.planning.discovery import normalize_phase
from msd_core.planning.md_lines import live_lines

_NUM = r"\d+(?:\.\d+)?"
_PHASE_RE = re.compile(rf"(?<![\w.])(Phase\s+)({_NUM})(?![\w]|\.\d)", re.I)
_ROW_RE = re.compile(rf"^(\|\s*)({_NUM})(\.\s)")
_PLANID_RE = re.compile(r"(?<![\w.\-])(\d{2}(?:\.\d+)?|\d\.\d+)-(\d{2})(?![\w.]|\.\d)")
_FILEID_RE = re.compile(r"(?<![\w.\-])(\d{2}(?:\.\d+)?|\d\.\d+)-(?=[A-Z][A-Z\-]*\.md\b)")
_CHECK_RE = re.compile(rf"^\s*[-*]\s*\[[ xX✓]\]\s*(?:\*\*)?\s*Phase\s+({_NUM})\b", re.I)
_HEAD_RE = re.compile(rf"^(#{{2,4}})\s*Phase\s+({_NUM})\b", re.I)
_ANY_HEAD_RE = re.compile(r"^(#{1,6})\s")


def styled(new: str, like: str) -> str:
    """`new` (normalised) written the way `like` was: zero-padded integer part or not."""
    head, _, rest = new.partition(".")
    if like[:1] == "0" or (len(like.split(".")[0]) == 2 and len(head) == 1):
        head = head.zfill(2)
    return head + (f".{rest}" if rest else "")


def _live_lines(lines: list[str]):
    """Indexes of lines outside fenced code and `<details>` blocks."""
    for i, _ in live_lines(lines, skip_details=True):
        yield i


def renumber_text(text: str, mapping: dict[str, str], folders: dict[str, str] | None = None) -> str:
    if not mapping and not folders:
        return text
    folders = folders or {}
    folder_re = re.compile("|".join(re.escape(k) for k in sorted(folders, key=len, reverse=True))) if folders else None

    def num(m, group=2):
        old = m.group(group)
        new = mapping.get(normalize_phase(old))
        return None if new is None else styled(new, old)

    def phase_sub(m):
        new = num(m)
        return m.group(0) if new is None else m.group(1) + new

    def row_sub(m):
        new = num(m)
        return m.group(0) if new is None else m.group(1) + new + m.group(3)

    def plan_sub(m):
        new = num(m, 1)
        return m.group(0) if new is None else f"{new}-{m.group(2)}"

    lines = text.split("\n")
    for i in _live_lines(lines):
        line = lines[i]
        if folder_re is not None:
            line = folder_re.sub(lambda m: folders[m.group(0)], line)
        line = _PHASE_RE.sub(phase_sub, line)
        line = _ROW_RE.sub(row_sub, line)
        line = _PLANID_RE.sub(plan_sub, line)
        line = _FILEID_RE.sub(lambda m: (num(m, 1) or m.group(1)) + "-", line)
        lines[i] = line
    return "\n".join(lines)


def block_end(lines: list[str], start: int, level: int, live: set[int] | None = None) -> int:
    """One past the last line of the details block whose heading (of `level`) is line `start`:
    the next heading of that level or above (of the `live` lines, when given), or `<details`."""
    for j in range(start + 1, len(lines)):
        h = _ANY_HEAD_RE.match(lines[j])
        if (h and len(h.group(1)) <= level and (live is None or j in live)) or lines[j].strip().lower().startswith("<details"):
            return j
    return len(lines)


def _find(lines: list[str], number: str):
    """(checklist line index, (block start, block end), progress row index) of a phase; None where absent."""
    check = block = row = None
    live = list(_live_lines(lines))
    for i in live:
        line = lines[i]
        m = _CHECK_RE.match(line)
        if m and normalize_phase(m.group(1)) == number and check is None:
            check = i
            continue
        m = _HEAD_RE.match(line)
        if m and normalize_phase(m.group(2)) == number and block is None:
            block = (i, block_end(lines, i, len(m.group(1))))
            continue
        m = _ROW_RE.match(line)
        if m and normalize_phase(m.group(2)) == number and row is None:
            row = i
    return check, block, row


def take_entries(text: str, number: str) -> tuple[str, dict]:
    lines = text.split("\n")
    check, block, row = _find(lines, number)
    taken = {"check": lines[check] if check is not None else None,
             "block": lines[block[0]:block[1]] if block else None,
             "row": lines[row] if row is not None else None}
    drop = set()
    if check is not None:
        drop.add(check)
    if row is not None:
        drop.add(row)
    if block:
        drop.update(range(*block))
    return "\n".join(line for i, line in enumerate(lines) if i not in drop), taken


def _retarget(line: str, number: str) -> str:
    """A taken entry line re-pointed at `number` (its own number replaced, style kept)."""
    for rx, group in ((_CHECK_RE, 1), (_HEAD_RE, 2), (_ROW_RE, 2)):
        m = rx.match(line)
        if m:
            return line[:m.start(group)] + styled(number, m.group(group)) + line[m.end(group):]
    return line


_BOLD_LABEL_RE = re.compile(r"^\s*\*\*(?:Goal|Depends on|Requirements|Plans|Success Criteria)\*\*\s*:?", re.I)
_PLAIN_LABEL_RE = re.compile(r"^\s*(?:Goal|Depends on|Requirements|Plans|Done when)\s*:", re.I)


def block_style(lines: list[str], block: tuple[int, int] | None) -> str:
    """"bold" when the roadmap's phase blocks write `**Goal**:` (the older shape), else "plain" (msd's
    template). The block given (the phase the new one follows) decides; else the first phase block."""
    spans = [block] if block else []
    if not spans:
        for i in _live_lines(lines):
            if _HEAD_RE.match(lines[i]):
                spans.append((i, min(len(lines), i + 12)))
                break
    for start, end in spans:
        for line in lines[start:end]:
            if _BOLD_LABEL_RE.match(line):
                return "bold"
            if _PLAIN_LABEL_RE.match(line):
                return "plain"
    return "plain"


def inserted_block(style: str, hashes: str, shown: str, name: str, after: str | None, goal: str | None) -> list[str]:
    """The details block of an inserted phase, in the roadmap's style."""
    if style == "bold":
        return [f"{hashes} Phase {shown}: {name} (inserted)", f"**Goal**: {goal or 'TBD'}",
                f"**Depends on**: Phase {after}" if after else "**Depends on**: none",
                "**Requirements**: TBD", "**Plans**: TBD", ""]
    return [f"{hashes} Phase {shown}: {name}", f"Goal: {goal or 'TBD'}",
            f"Depends on: Phase {after}" if after else "Depends on: nothing",
            "Requirements: TBD", "Done when:", "- TBD", "Plans: TBD", ""]


def put_entries(text: str, after: str | None, number: str, name: str, taken: dict | None = None,
                goal: str | None = None) -> str:
    """Insert phase `number`'s entries after phase `after`'s (at the end when `after` has none)."""
    lines = text.split("\n")
    check, block, row = _find(lines, after) if after else (None, None, None)
    style = block_style(lines, block)
    taken = taken or {}
    inserts: list[tuple[int, list[str]]] = []
    # checklist line
    if taken.get("check"):
        new_check = _retarget(taken["check"], number)
    elif check is not None:
        like = lines[check]
        m = _CHECK_RE.match(like)
        bold = "**" in like[:m.end()]
        indent = like[: len(like) - len(like.lstrip())]
        shown = styled(number, m.group(1))
        if bold:
            new_check = f"{indent}- [ ] **Phase {shown}: {name}** (inserted)"
        else:
            new_check = f"{indent}- [ ] Phase {shown}: {name} — {goal}" if goal else f"{indent}- [ ] Phase {shown}: {name} (inserted)"
    else:
        new_check = None
    if new_check is not None and check is not None:
        inserts.append((check + 1, [new_check]))
    # details block
    if taken.get("block"):
        new_block = [_retarget(taken["block"][0], number)] + taken["block"][1:]
    else:
        hashes = "###"
        shown = number
        if block:
            m = _HEAD_RE.match(lines[block[0]])
            hashes, shown = m.group(1), styled(number, m.group(2))
        new_block = inserted_block(style, hashes, shown, name, after, goal)
    if block:
        end = block[1]
        inserts.append((end, new_block if not new_block or new_block[-1] == "" or end == len(lines) else new_block + [""]))
    elif check is None:  # the roadmap names neither: append the block at the end
        tail = [] if (not lines or lines[-1] == "") else [""]
        inserts.append((len(lines), tail + new_block))
    # progress row
    if taken.get("row"):
        new_row = _retarget(taken["row"], number)
    elif row is not None:
        cells = lines[row].count("|") - 1
        m = _ROW_RE.match(lines[row])
        vals = [f" {styled(number, m.group(2))}. {name} ", " 0/0 ", " Not started ", " - "]
        vals += [" - "] * max(0, cells - len(vals))
        new_row = "|" + "|".join(vals[:max(cells, 1)]) + "|"
    else:
        new_row = None
    if new_row is not None and row is not None:
        inserts.append((row + 1, [new_row]))
    for at, new in sorted(inserts, key=lambda x: -x[0]):
        lines[at:at] = new
    return "\n".join(lines)
