"""Number arguments with bounds: a huge, negative or non-numeric count is a usage error (exit 2).

`type=count(lo, hi)` for argparse; `whole_number(text, name, lo, hi)` for values read later;
`existing_folder(text, name)` for a folder that must exist (the parser's own: msd_core.run.options.cwd).
The bad value is quoted shortened, so the error stays one short line. Standard library only.
"""

from __future__ import annotations

MAX_DIGITS = 12  # more digits than any count msd accepts: refused before int() is tried


def _shown(text: str) -> str:
    text = str(text)
    return text if len(text) <= 24 else f"{text[:20]}... ({len(text)} characters)"


def whole_number(text, name: str, lo: int, hi: int) -> int:
    """`text` as an int in [lo, hi]; UsageError (exit 2) naming the allowed range otherwise."""
    from msd_core.errors import UsageError

    raw = str(text).strip()
    digits = raw[1:] if raw[:1] in "+-" else raw
    if not digits.isdigit() or not digits.isascii():
        raise UsageError(f"{name} must be a whole number, not {_shown(raw)!r}")
    value = None if len(digits) > MAX_DIGITS else int(raw, 10)
    if value is None or not lo <= value <= hi:
        raise UsageError(f"{name} must be between {lo} and {hi}, not {_shown(raw)}")
    return value


def count(lo: int, hi: int, name: str = "value"):
    """An argparse `type=` accepting whole numbers in [lo, hi]."""

    def parse(text: str) -> int:
        import argparse

        from msd_core.errors import UsageError

        try:
            return whole_number(text, name, lo, hi)
        except UsageError as exc:
            raise argparse.ArgumentTypeError(exc.message.replace(f"{name} must", "must", 1)) from None

    parse.__name__ = "count"
    return parse


def existing_folder(text, name: str = "--cwd") -> str:
    """`text` when it names an existing folder; UsageError (exit 2) naming the flag otherwise
    (msd_core.paths.named_folder says what is wrong)."""
    from msd_core.errors import UsageError
    from msd_core.paths import named_folder

    try:
        return named_folder(str(text))
    except UsageError as exc:
        raise UsageError(f"{name} {exc.message}") from None



def name_value(text) -> tuple[str, str]:
    """A flow input given as `NAME=VALUE`, split at its first `=`: argparse's `type=` for `--var`
    (msd_run next-step, step-done); `msd chain` reads its `--var` with it too. The flow checks the name
    and the value (msd_core.flows.service.flow_vars)."""
    import argparse

    name, eq, value = str(text).partition("=")
    if not eq:
        raise argparse.ArgumentTypeError(f"{str(text)[:60]!r} must look like name=value")
    return name, value


def name_values(texts) -> list[tuple[str, str]]:
    """name_value over a list given outside argparse (`msd chain --var`): UsageError about `var` (exit 2)."""
    import argparse

    from msd_core.errors import UsageError

    try:
        return [name_value(text) for text in texts or ()]
    except argparse.ArgumentTypeError as exc:
        raise UsageError(str(exc), about="var") from None
