"""Fixtures the installer tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from msd_core.install import runner_path
from msd_core.install.source import ContentSource
from tests.kit.installkit import copy_fixture, make_runner


@pytest.fixture
def runner(tmp_path, monkeypatch) -> Path:
    """The msd_run 'installed beside this msd' (it runs this checkout's runtime), in a folder
    with a space and a quote."""
    exe = make_runner(tmp_path / "venv it's" / "bin")
    monkeypatch.setattr(runner_path, "own_runner", lambda: exe)
    return exe


@pytest.fixture
def fixture_content(tmp_path) -> ContentSource:
    """The small content tree of tests/fixtures/install/basic, copied."""
    return ContentSource.from_dir(copy_fixture(tmp_path / "content"))
