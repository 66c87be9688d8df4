"""The remedy for a missing `mcp` package fits how msd-core was installed: pipx's venv takes
`pipx inject msd-core mcp` (pip would install into another Python there)."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from msd_core.errors import OperationFailed
from msd_core.mcp import setup
from msd_core.mcp.remedy import mcp_hint


@pytest.mark.parametrize("pipx", [True, False])
def test_msd_mcp_install_without_the_package_names_the_remedy_for_this_install(tmp_path, monkeypatch, pipx):
    if pipx:
        (tmp_path / "pipx_metadata.json").write_text("{}")
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a))
    with pytest.raises(OperationFailed) as caught:
        setup.install("user")
    assert caught.value.message == "the MCP server needs the mcp package"
    if pipx:
        assert caught.value.hint == "msd-core was installed with pipx: pipx inject msd-core mcp"
    else:
        assert caught.value.hint == "pip install 'msd-core[mcp]' (installed with pipx: pipx inject msd-core mcp)"
    assert mcp_hint(str(tmp_path)) == caught.value.hint
