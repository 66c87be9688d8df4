"""The flags `msd_run`'s commands share, each defined once: its name, its help and how its value
is read. A command lists the ones it takes (`options.cwd(parser)`); declaring one of SHARED by
hand in a command module fails tests/run/test_options.py.

- `--cwd DIR`: the folder the project is found from (the project rule: docs/CONTRACTS.md, "Which
  project"). It must exist: a missing folder, or a file, is refused by the parser (exit 2, one line:
  `argument --cwd: <dir> does not exist`, msd_core.paths.named_folder), so no command reads a typo
  as "no project here" nor makes folders for it.
- `--root DIR`: the installed msd-core folder a command reads; a relative one the current folder does not
  hold is looked for in the folders above it, up to the work tree's top (one local install at a
  repository's top serves a `.planning/` root in a subfolder).
- `--raw`, `--json`: the bare text instead of JSON; JSON (the default, or instead of text).
- `--dry-run`: report what would change, change nothing.
- `--phase N`: a phase reference (msd_core.planning.phase_ref).
- `--json-errors`: errors as one JSON object on stderr (every command; hidden on sub-commands).

`sub=True` is for a sub-command (`state get`) whose parent parser takes the flag too: the flag
may stand before or after the verb, and the value given before it is kept.
Standard library only (argparse is the dispatcher's, already loaded).
"""

from __future__ import annotations

import argparse

SHARED = ("--cwd", "--root", "--raw", "--json", "--dry-run", "--phase", "--json-errors")

CWD_HELP = "the project folder (default: the current directory)"
PHASE_HELP = "the phase: 2, 02, 2.1, 02-auth or v1.1/02"


def _default(sub: bool, value=None):
    return argparse.SUPPRESS if sub else value


def _folder(text: str) -> str:
    """argparse's `type=` for a folder that must exist: the parser words the refusal."""
    from msd_core.errors import UsageError
    from msd_core.paths import named_folder

    try:
        return named_folder(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def cwd(parser, *, sub: bool = False) -> None:
    parser.add_argument("--cwd", metavar="DIR", type=_folder, default=_default(sub), help=CWD_HELP)


def _install_folder(text: str) -> str:
    """argparse's `type=` for `--root`: a relative folder the current one does not hold (a local install names
    `.claude/msd-core` from the repository's top) is looked for up to the work tree's top, so the install at a
    repository's top serves a `.planning/` root in a subfolder; otherwise the value as given."""
    import os

    if not text or os.path.isabs(text) or os.path.isdir(text):
        return text
    from msd_core.lean.project_rule import nearest

    return nearest(text) or text


def root(parser, *, default: str = "the global install") -> None:
    parser.add_argument("--root", metavar="DIR", type=_install_folder, default=None,
                        help=f"the installed msd-core folder (default: {default})")


def raw(parser, *, what: str) -> None:
    parser.add_argument("--raw", action="store_true", help=f"print {what} instead of JSON")


def json(parser, *, default: bool, dest: str = "json") -> None:
    parser.add_argument("--json", dest=dest, action="store_true",
                        help="JSON output (the default)" if default else "JSON output instead of text")


def dry_run(parser) -> None:
    parser.add_argument("--dry-run", action="store_true", help="report what would change; change nothing")


def phase(parser, *, required: bool = False, repeat: bool = False, default: str | None = None) -> None:
    """`default`: what the command takes when no phase is given, in words."""
    parser.add_argument("--phase", metavar="N", required=required, action="append" if repeat else "store",
                        help=PHASE_HELP + (" (repeatable)" if repeat else "") + (f" (default: {default})" if default else ""))


def json_errors(parser, *, hidden: bool = False) -> None:
    parser.add_argument("--json-errors", action="store_true",
                        help=argparse.SUPPRESS if hidden else "print errors as one JSON object on stderr")
