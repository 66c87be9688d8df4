"""The TOML reader: the standard library's tomllib (Python 3.11+), else tomli (declared for
Python 3.10 with an environment marker). Import it where TOML is read, not at start-up."""

from __future__ import annotations

try:
    import tomllib as _toml
except ModuleNotFoundError:  # Python 3.10
    import tomli as _toml  # type: ignore[no-redef]

loads = _toml.loads
TOMLDecodeError = _toml.TOMLDecodeError
