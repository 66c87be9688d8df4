"""What `msd` prints to a terminal passes msd_core.lean.terminal.clean: the one console (rich's,
with the text of every segment cleaned before rich adds its own styles) and `write` for plain
lines. rich is imported when the console is made."""

from __future__ import annotations

import sys

from msd_core.lean.terminal import clean


def console(stderr: bool = False, **kw):
    """rich's console whose printed text holds no escape sequence or control character but rich's own."""
    from rich.console import Console
    from rich.segment import Segment

    class CleanConsole(Console):
        def _render_buffer(self, buffer):
            return super()._render_buffer(seg if seg.control else Segment(clean(seg.text), seg.style)
                                          for seg in buffer)

    kw.setdefault("highlight", False)
    return CleanConsole(stderr=stderr, **kw)


def write(text: str, err: bool = False) -> None:
    """A plain line (or lines) of human text on stdout, or stderr with `err`."""
    (sys.stderr if err else sys.stdout).write(clean(text))


def echo(text: str = "", err: bool = False) -> None:
    write(f"{text}\n", err)
