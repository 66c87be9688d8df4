"""The lines of a markdown file that are prose, not examples: numbered, code fences left out.

`prose_lines(text)` yields (1-based line number, line) for every line outside a ``` or ~~~
fence (the fence lines themselves included in neither); `skip_details=True` also leaves out
`<details>` blocks (where ROADMAP.md keeps archived milestones), their opening and closing
lines included. `live_lines(lines)` does the same over a list of lines, with 0-based indexes,
for code that edits the list in place. Every reader that skips code examples in a planning
file uses one of them. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def live_lines(lines: Iterable[str], *, skip_details: bool = False) -> Iterator[tuple[int, str]]:
    fenced = details = False
    for i, line in enumerate(lines):
        s = line.lstrip()
        if s.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        if skip_details:
            low = s.lower()
            if low.startswith("<details"):
                details = True
            if details:
                if low.startswith("</details"):
                    details = False
                continue
        yield i, line


def prose_lines(text: str, *, skip_details: bool = False) -> Iterator[tuple[int, str]]:
    for i, line in live_lines((text or "").splitlines(), skip_details=skip_details):
        yield i + 1, line
