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


@pytest.fixture(scope="session")
def wheel_venv(tmp_path_factory) -> tuple[Path, Path]:
    """(the wheel, the venv): this checkout built as a wheel (`pip wheel`)
    and installed into a fresh venv once per run (every xdist worker of a run shares it, under a
    lock), for the tests that start msd from an installed wheel. Skips with the reason when PyPI
    is unreachable for the wheel's dependencies. A test changes its own project, never the venv."""
    from tests.kit.wheel_venv import built_wheel_venv

    return built_wheel_venv(tmp_path_factory.getbasetemp())
