"""Names that may select installed content (workflow stems, agent names).

A name is checked here, before anything touches the filesystem: ASCII lower-case words
joined by single hyphens, at most 64 characters (msd_core.shipped.layout.is_static_name), and no
trailing newline, which a `$`-anchored regex would let through. Nothing from arguments,
config or the project ever becomes part of a path; a valid name is only a key into the
manifest's registry.
"""

from __future__ import annotations

from msd_core.errors import UsageError
from msd_core.shipped.layout import MAX_NAME_LEN, is_static_name


def is_valid_name(name: object) -> bool:
    return (
        isinstance(name, str)
        and name.isascii()
        and "\n" not in name
        and "\r" not in name
        and is_static_name(name)
    )


def check_name(name: object, what: str) -> str:
    """Return `name` if it is a valid static name; UsageError (exit 2) otherwise, name not echoed raw."""
    if is_valid_name(name):
        return name  # type: ignore[return-value]
    shown = repr(name)[:40] if isinstance(name, str) else type(name).__name__
    raise UsageError(
        f"invalid {what} {shown}: use lower-case letters, digits and single hyphens, at most {MAX_NAME_LEN} characters",
        hint="names are fixed identifiers such as plan-phase; no paths, no .md",
    )
