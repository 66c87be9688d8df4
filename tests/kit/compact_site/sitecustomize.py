"""The compact-suite recorder: which test read workflow.compact_content's schema default.

`--compact on|off` flips that default through the environment variable MSD_COMPACT_DEFAULT
(msd_core/config/schema.py reads it with os.environ.get). CI's compact-on run (.ci/run step 2)
runs only the test files listed in tests/compact_suite.txt, and tests/conftest.py fails a
session in which a test outside that list read the variable.

tests/conftest.py puts this folder on PYTHONPATH for the whole session, so every Python process
a test starts imports this file at start-up and, while MSD_TEST_COMPACT_LOG names a log, watches
its own environment: an `os.environ.get("MSD_COMPACT_DEFAULT")` (os.getenv too) or
`"MSD_COMPACT_DEFAULT" in os.environ` that sees the session's own value (not one the test set
itself) appends the running test's id (PYTEST_CURRENT_TEST, which children inherit) to the log.
pytest's monkeypatch looking the variable up is no read. Standard library `os` and `sys` only
(the hot-path tests list what msd_run imports); a sitecustomize further on sys.path still runs.
"""

import os
import sys

VAR = "MSD_COMPACT_DEFAULT"
LOG = "MSD_TEST_COMPACT_LOG"
SESSION = "MSD_TEST_COMPACT_SESSION"  # the session's value of VAR; UNSET when it has none
UNSET = "<unset>"
_Environ = os._Environ


def note(line: str) -> None:
    """Append one line to the log: one short O_APPEND write, so lines from many processes stay whole."""
    path = _Environ.get(os.environ, LOG)
    if path:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line.replace("\n", " ") + "\n").encode("utf-8", "replace"))
        finally:
            os.close(fd)


def _from_pytest(frame) -> bool:
    while frame is not None and frame.f_code.co_filename == os.__file__:  # os.getenv -> os.environ.get
        frame = frame.f_back
    return frame is not None and "_pytest" in frame.f_code.co_filename.replace("\\", "/").split("/")


class _Watched(_Environ):
    _msd_compact_watch = True

    def _seen(self, key, frame) -> None:
        if key != VAR or _from_pytest(frame):
            return
        value = _Environ.get(self, VAR)
        if (UNSET if value is None else value) == _Environ.get(self, SESSION, UNSET):
            note(_Environ.get(self, "PYTEST_CURRENT_TEST") or "?")

    def get(self, key, default=None):
        self._seen(key, sys._getframe(1))
        return _Environ.get(self, key, default)

    def __contains__(self, key):
        self._seen(key, sys._getframe(1))
        return _Environ.__contains__(self, key)


def install() -> None:
    """Watch this process's environment (once, whichever copy of this file asks)."""
    if not getattr(type(os.environ), "_msd_compact_watch", False):
        os.environ.__class__ = _Watched


def _chain() -> None:
    """Run the sitecustomize this one shadows, if one lies further on sys.path."""
    import importlib.machinery

    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", [p for p in sys.path if os.path.abspath(p or ".") != here])
    if spec is not None and spec.loader is not None:
        module = type(sys)(spec.name)
        module.__spec__, module.__file__ = spec, spec.origin
        spec.loader.exec_module(module)


if __name__ == "sitecustomize":
    if _Environ.get(os.environ, LOG):
        install()
    _chain()
