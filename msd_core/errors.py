"""The error hierarchy and the exit codes, defined once for `msd` and `msd_run`.

Exit codes (DESIGN.md):
  0 ok
  1 operation failed
  2 bad usage or invalid value
  3 integrity failure (installed file tampered or missing: run `msd install --repair` to repair)
  4 lock not acquired in time

Standard library only: imported on `msd_run`'s hot path.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTEGRITY = 3
EXIT_LOCKED = 4

EXIT_CODES_HELP = (
    "exit codes: 0 ok; 1 operation failed; 2 bad usage or invalid value; "
    "3 integrity failure (installed file tampered or missing: run `msd install --repair`, with --global or --local, to repair); "
    "4 lock not acquired in time"
)


class MsdError(Exception):
    """Base class: a user-facing failure with a one-line message and an exit code."""

    exit_code = EXIT_FAILED
    kind = "failed"

    def __init__(self, message: str, *, hint: str | None = None, details: dict | None = None,
                 about: str | None = None, remedy: str | tuple[str, ...] | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.details = details or {}
        # Inputs by their parameter's name (`root`, `phase_dir`), never by a flag: the command line that
        # took them names the flag (name_flags). `about`: the input the message is about; `remedy`: the
        # input (or inputs, one of which) to give: the way forward the hint describes.
        self.about = about
        self.remedy = remedy

    def name_flags(self, flags: dict[str, str]) -> MsdError:
        """The CLI layer's part: the flags that gave the inputs, as argparse names its own
        ("argument --root: ..."). `flags`: {parameter name: flag}; an input it lacks stays unnamed."""
        flag = flags.get(self.about or "")
        if flag:
            self.message, self.about = f"argument {flag}: {self.message}", None
        wanted = (self.remedy,) if isinstance(self.remedy, str) else (self.remedy or ())
        given = [flags[name] for name in wanted if name in flags]
        if given and len(given) == len(wanted):
            way = "pass " + " or ".join(given)
            self.hint, self.remedy = f"{self.hint}: {way}" if self.hint else way, None
        return self

    def one_line(self) -> str:
        text = self.message
        if self.hint:
            text = f"{text} ({self.hint})"
        return " ".join(text.split())

    def to_json(self) -> dict:
        out = {"error": self.kind, "exit_code": self.exit_code, "message": self.message}
        if self.hint:
            out["hint"] = self.hint
        if self.details:
            out["details"] = self.details
        return out


class OperationFailed(MsdError):
    exit_code = EXIT_FAILED
    kind = "failed"


class UsageError(MsdError):
    exit_code = EXIT_USAGE
    kind = "usage"


# The repair that works for every integrity failure: a plain `msd install` keeps an edited file
# (rightly), so it is never the repair of a modified one. msd_core.ownership.hints names the exact
# command line once the install is known.
REPAIR_HINT = ("run `msd install --global --repair` (or `msd install --local --repair` in the project, for a "
               "project install) to restore the shipped files; files you edited are backed up first")


class IntegrityError(MsdError):
    exit_code = EXIT_INTEGRITY
    kind = "integrity"

    def __init__(self, message: str, *, hint: str | None = REPAIR_HINT, details: dict | None = None, about: str | None = None):
        super().__init__(message, hint=hint, details=details, about=about)


class NotInstalledError(IntegrityError):
    """No install found where one was looked for."""

    def __init__(self, message: str, *, hint: str | None = "run `msd install --global` or `msd install --local` first",
                 details: dict | None = None, about: str | None = None):
        super().__init__(message, hint=hint, details=details, about=about)


class LockTimeout(MsdError):
    exit_code = EXIT_LOCKED
    kind = "locked"


_CAUSES = {  # errno name -> the cause in words (looked up by name: errno is only imported on failure)
    "ENOSPC": "disk full",
    "EDQUOT": "disk quota exceeded",
    "EFBIG": "file too large",
    "EACCES": "permission denied",
    "EPERM": "operation not permitted",
    "EROFS": "read-only file system",
    "EISDIR": "a folder where a file should be",
    "ENOTDIR": "a file where a folder should be",
    "ENOENT": "no such file or folder",
    "ENAMETOOLONG": "name too long",
    "EMFILE": "too many open files",
    "EIO": "input/output error",
}


def os_cause(exc: OSError) -> str:
    """What went wrong, in words: msd's own refusals keep their text; errno names a cause."""
    import errno

    own = type(exc).__module__.startswith("msd_core")
    name = errno.errorcode.get(exc.errno or -1, "")
    if not own and name in _CAUSES:
        text = _CAUSES[name]
    else:
        text = exc.strerror or str(exc) or type(exc).__name__
    return " ".join(str(text).split())


def from_os_error(exc: OSError, action: str = "access", path=None) -> OperationFailed:
    """One line naming the path and the cause (exit 1) for a file-system failure."""
    where = path if path is not None else (exc.filename if exc.filename is not None else "a file")
    return OperationFailed(f"cannot {getattr(exc, 'msd_action', action)} {where}: {os_cause(exc)}")
