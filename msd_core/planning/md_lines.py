"""The lines of a markdown file that are prose, not examples: numbered, code fences left out.

`prose_lines(text)` yields (1-based line number, line) for every line outside a ``` or ~~~
fence (the fence lines themselves included in neither). Standard library only.
"""

from __future__ import annotations


def prose_lines(text: str):
    fenced = False
    for n, line in enumerate((text or "").splitlines(), start=1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced:
            yield n, line
