"""A regular expression compiled the first time it is used.

msd_run starts a fresh interpreter for every call, and compiling a pattern costs 30–300 µs:
a module on the hot path that defines patterns only some of its callers need declares them
with `lazy(...)` instead of `re.compile(...)`. The first use compiles the pattern and puts
the compiled pattern's methods on the object, so every later call goes straight to them
(as fast as a compiled pattern's own methods).

Standard library only.
"""

from __future__ import annotations

_METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split", "scanner")


class lazy:  # noqa: N801 - reads like re.compile at the definition
    def __init__(self, pattern: str, flags: int = 0):
        self.pattern = pattern
        self.flags = flags

    def compiled(self):
        import re

        rx = re.compile(self.pattern, self.flags)
        for name in _METHODS:
            setattr(self, name, getattr(rx, name))
        self.groupindex, self.groups = rx.groupindex, rx.groups
        self.compiled = lambda: rx
        return rx

    def __getattr__(self, name: str):  # only for names not set yet: compile, then answer
        if name.startswith("__") or name in ("pattern", "flags"):
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r})"
