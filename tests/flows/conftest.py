"""Fixtures the flows tests share."""

from __future__ import annotations

import pytest

from tests.kit.installed import make_project


@pytest.fixture
def project(tmp_path):
    """An empty project (.planning/ with a default config) in tmp_path/proj."""
    return make_project(tmp_path / "proj")
