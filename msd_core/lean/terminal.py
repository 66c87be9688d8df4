"""The one filter of text bound for a terminal: `clean(text)`.

Text msd prints comes partly from bytes it does not own: STATE.md and the other planning files,
a CLI's output, a folder's name. An escape sequence among them would be run by the terminal
(move the cursor, rewrite a line, set the window title, plant a hyperlink, ring the bell), so
msd's renderer, msd_run's text output and the status line pass what they print through here.

Removed: whole escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL|ST`, the DCS/SOS/PM/APC
strings, two-character `ESC x`), their one-character C1 forms (U+009B CSI, U+009D OSC, …), and
every other control character: C0 except newline and tab (carriage return included: it lets a
line overwrite itself), DEL and C1. Text without any of them is returned as it is (one search).
Standard library only: msd_run's hot path imports it.
"""

import re

_CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f"
_SEQUENCE = re.compile(
    "(?:\x1b\\[|\x9b)[0-?]*[ -/]*[@-~]?"  # CSI (an unfinished one up to where it stops)
    "|(?:\x1b[\\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\\\|\x9c)?"  # OSC, DCS, SOS, PM, APC
    "|\x1b[ -/]*[0-~]?"  # the other escape sequences (and a lone ESC)
    f"|[{_CONTROL}]"
)


def clean(text: str) -> str:
    """`text` without escape sequences and control characters (newline and tab kept)."""
    if not isinstance(text, str):
        text = str(text)
    if _SEQUENCE.search(text) is None:
        return text
    return _SEQUENCE.sub("", text)
