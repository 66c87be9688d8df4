"""Text from outside msd's own content, saved into `.planning/`: the one function that writes it.

An imported PRD, a note an exploration wrote from web pages, a reviewer's findings quoting the
code, a spike's finding: text an agent or a document brought in, which later sessions read as
the project's own words. Every msd_run command that saves such text calls `save()`, so the
injection screen (instructions aimed at an agent, hidden characters) stands in
front of all of them at one place. The screen is handed in by the caller (`msd_run`'s layer
owns the hooks that hold it): `screen(planning, rel, text, old)` returns None to let the text through, or
the one-line reason it was refused (the screen keeps the refused text for the user itself).
A refusal is OperationFailed (exit 1) and nothing is written.

`yaml_str(text, limit)`: a value for a frontmatter line msd writes (one JSON string, which YAML
reads as a double-quoted scalar): characters YAML cannot hold (C0/C1 controls other than tab
and newline, surrogates, U+FFFE/U+FFFF) removed, cut at `limit` characters.
Standard library only.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from msd_core.errors import OperationFailed

_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")


def clean(text: str, limit: int | None = None) -> str:
    """`text` without characters a YAML or markdown reader trips on (see the module doc)."""
    out = _UNSAFE.sub("", str(text).replace("\r\n", "\n").replace("\r", "\n"))
    return out if limit is None or len(out) <= limit else out[: max(0, limit - 3)] + "..."


def one_line(text: str, limit: int) -> str:
    return clean(" ".join(str(text).split()), limit)


def yaml_str(text: str, limit: int = 2000) -> str:
    return json.dumps(clean(text, limit), ensure_ascii=False)


def save(root: Path, path: Path, text: str, *, screen=None) -> None:
    """Write `text` to `path` (inside `root`'s `.planning/`) atomically, after the screen."""
    from msd_core.files.atomic import atomic_write_text

    root, path = Path(root), Path(path)
    planning = root / ".planning"
    try:
        rel = path.relative_to(planning).as_posix()
    except ValueError:
        raise OperationFailed(f"{path} is not inside {planning}; not written") from None
    if screen is not None:
        old = None
        try:
            from msd_core.files.safe_read import MAX_DOC_BYTES, read_text

            old = read_text(path, MAX_DOC_BYTES, follow_symlinks=False)
        except OSError:
            old = None
        refusal = screen(planning, rel, text, old)
        if refusal:
            raise OperationFailed(f"not saved to .planning/{rel}: {refusal}",
                                  hint="nothing was written: leave the instructions aimed at an agent out of the text, or say "
                                       "in your own words that the source holds them, then run the command again")
    atomic_write_text(path, text, anchor=root)
