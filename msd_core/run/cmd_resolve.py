"""`msd_run resolve STEM [--root DIR] [--raw] [--emit [--max-chars N]] [--cwd DIR]`.

Default: JSON {"stem", "compact", "root", "parts": [absolute paths in reading order]}.
--raw: one path per line (nothing when compact content is on).
--emit: the verified text of the parts for a host to insert into a skill (see
msd_core.resolve.emit). In --emit mode the exit code is always 0: any failure (no
install, tampered or missing part, unknown or hostile stem, bad config, bad arguments)
prints one notice line and no unverified text.
"""

from __future__ import annotations

import sys

from msd_core.run import options


class _ArgError(Exception):
    pass


def configure(parser) -> None:

    parser.add_argument("stem", help="a shipped workflow stem, e.g. plan-phase")
    options.root(parser)
    options.raw(parser, what="one path per line")
    parser.add_argument("--emit", action="store_true", help="print the parts' verified text (always exits 0)")
    parser.add_argument("--max-chars", default=None, metavar="N", help="with --emit: budget in characters (default 28000)")
    options.cwd(parser)
    _tolerate_errors_when_emitting(parser)


def _tolerate_errors_when_emitting(parser) -> None:
    """With --emit among the arguments, a usage error becomes a notice (exit 0), not exit 2."""
    import argparse

    normal_error = parser.error
    normal_parse = parser.parse_args

    def error(message):
        raise _ArgError(message)

    def parse_args(argv=None, namespace=None):
        argv = list(sys.argv[1:] if argv is None else argv)
        parser.error = error
        try:
            return normal_parse(argv, namespace)
        except _ArgError as exc:
            if "--emit" in argv:
                return argparse.Namespace(emit=True, arg_error=str(exc), stem=None, root=None, raw=False,
                                          max_chars=None, cwd=None)
            normal_error(str(exc))
        finally:
            parser.error = normal_error

    parser.parse_args = parse_args


def _budget(text) -> int:
    from msd_core.resolve.emit import DEFAULT_MAX_CHARS, MAX_MAX_CHARS, MIN_MAX_CHARS
    from msd_core.run.argtypes import whole_number

    if text is None:
        return DEFAULT_MAX_CHARS
    return max(MIN_MAX_CHARS, whole_number(text, "--max-chars", -MAX_MAX_CHARS, MAX_MAX_CHARS))


def _trace(resolved) -> None:
    from msd_core.resolve import trace

    trace.record(resolved.layers, "resolve", "stem", resolved.stem, resolved.compact, [p.path for p in resolved.parts])


def _emit(args) -> int:
    from msd_core.resolve import emit

    try:
        if getattr(args, "arg_error", None):
            out = emit.notice(f"bad arguments: {args.arg_error}")
        else:
            from msd_core.resolve.parts import resolve

            max_chars = _budget(args.max_chars)
            resolved = resolve(args.stem, args.root, args.cwd)
            out = emit.render(resolved, max_chars)
            _trace(resolved)
    except Exception as exc:  # MsdError or anything else: the skill must still render
        from msd_core.errors import MsdError

        fix = None
        if isinstance(exc, MsdError):
            reason, fix = exc.message, exc.hint
        else:
            reason = f"internal error: {type(exc).__name__}"
        out = emit.notice(reason, fix) + "\n"
    if out and not out.endswith("\n"):
        out += "\n"
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        pass
    return 0


def run(args):
    if args.emit:
        return _emit(args)
    if args.max_chars is not None:
        from msd_core.errors import UsageError

        raise UsageError("--max-chars applies only with --emit", hint="see `msd_run resolve --help`")
    from msd_core.resolve.parts import resolve

    resolved = resolve(args.stem, args.root, args.cwd)
    _trace(resolved)
    if args.raw:
        return "".join(p.path + "\n" for p in resolved.parts)
    return resolved.to_json()
