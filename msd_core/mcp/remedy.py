"""How to add the optional `mcp` package, said for the way msd-core was installed.

pipx keeps msd-core in a venv of its own (marked by the `pipx_metadata.json` pipx writes there),
where `pip install 'msd-core[mcp]'` would go to another Python: there the remedy is
`pipx inject msd-core mcp`. Elsewhere it is pip's extra, with the pipx form beside it.
"""

from __future__ import annotations

import os
import sys

PIP = "pip install 'msd-core[mcp]'"
PIPX = "pipx inject msd-core mcp"


def installed_by_pipx(prefix: str | None = None) -> bool:
    return os.path.isfile(os.path.join(prefix or sys.prefix, "pipx_metadata.json"))


def mcp_hint(prefix: str | None = None) -> str:
    """The command that adds the mcp package to the Python msd runs in."""
    if installed_by_pipx(prefix):
        return f"msd-core was installed with pipx: {PIPX}"
    return f"{PIP} (installed with pipx: {PIPX})"
