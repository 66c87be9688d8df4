"""How an installed version compares with this package's version (PEP 440, via `packaging`).

  same      nothing to say
  older     the install is older than the package: "update available", `msd install` updates it
  newer     the install was made by a newer msd-core: `msd install` refuses to downgrade it
            unless --force (the content could need runtime features this package lacks)
  unknown   a version string that is not PEP 440: compared as text, never refused
"""

from __future__ import annotations

from msd_core.errors import OperationFailed


def compare(installed: str, package: str) -> str:
    if installed == package:
        return "same"  # the common case, without importing packaging (its version pattern: ~7 ms)
    from packaging.version import InvalidVersion, Version

    try:
        a, b = Version(installed), Version(package)
    except InvalidVersion:
        return "same" if installed == package else "unknown"
    if a == b:
        return "same"
    return "older" if a < b else "newer"


def refuse_downgrade(installed: str, package: str, *, flag: str) -> None:
    """OperationFailed (exit 1) when `installed` is newer than `package`."""
    if compare(installed, package) == "newer":
        raise OperationFailed(
            f"the install is msd-core {installed}, newer than this package ({package}); refusing to downgrade it",
            hint=f"upgrade msd-core (pipx upgrade msd-core), or run `msd install {flag} --force` to install {package} anyway",
        )
