"""Numbers read from files msd does not own (host transcripts, its status line input, caches),
checked before any arithmetic.

JSON allows what arithmetic cannot take: `1e400` and `Infinity` parse as an infinite float
(`int()` of it raises OverflowError), `NaN` compares false with everything, a count may be
negative, and an integer may have hundreds of digits. The meaning msd gives them:

- `count(value)`: a count (tokens, bytes, an offset) is a whole number from 0 to MAX_COUNT; an
  integral float such as `12.0` is taken as that integer. Anything else (a bool, a string, NaN,
  an infinity, a fraction, a negative or a larger number) is None: unknown, never a figure.
- `percent(value)`: a share from 0 to 100 (a float or an int); anything else is None: not shown.

Standard library only, no imports: msd_run's hot path (the status line) uses it.
"""

from __future__ import annotations

MAX_COUNT = 10**15  # far above any token count, size or offset a session reaches


def count(value) -> int | None:
    """`value` as a count (0..MAX_COUNT), or None when it is not a valid one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= MAX_COUNT else None
    if isinstance(value, float):
        # NaN fails both comparisons; an infinity and an overflowing value fail the upper one
        if 0 <= value <= MAX_COUNT and value == int(value):
            return int(value)
    return None


def percent(value) -> float | None:
    """`value` as a percentage (0..100), or None when it is not a valid one."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 <= value <= 100 else None
