"""The slug of a spike or a note: the one given (checked), else the first words of its text.
Standard library only."""

from __future__ import annotations

import re

from msd_core.errors import UsageError

SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,49}$")


def choose(text: str, given: str | None, words: int, fallback: str) -> str:
    from msd_core.planning.branching import slugify

    if given is not None:
        if not SLUG_RE.match(given):
            raise UsageError(f"{given[:60]!r}: use lower-case letters, digits and dashes (at most 50)", about="slug")
        return given
    return "-".join(slugify(text).split("-")[:words])[:50].strip("-") or fallback
