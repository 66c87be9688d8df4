"""Fixtures of the whole-cycle scenarios: an install in the test's HOME, an agent in a fresh project."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import repo_env
from tests.kit.cyclekit import Agent, Content, Cycle

REPO = Path(__file__).resolve().parents[2]


def _install(home: Path) -> Path:
    env = repo_env()
    proc = subprocess.run([sys.executable, "-m", "msd_core", "install", "--global"], cwd=str(home), env=env,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    return home / ".claude"


@pytest.fixture(params=["off", "on"], ids=["compact-off", "compact-on"])
def compact(request) -> str:
    """Every scenario runs with workflow.compact_content off and on (the project's own setting,
    which new-project records). Under `--compact on|off` only the matching run is made: the
    other one would repeat a run the plain suite makes (CI runs both ways)."""
    forced = os.environ.get("MSD_COMPACT_DEFAULT")
    if forced is not None and (forced.lower() in ("1", "true", "on", "yes")) != (request.param == "on"):
        pytest.skip(f"--compact sets the default; the compact-{request.param} run is the plain suite's")
    return request.param


@pytest.fixture
def cycle(isolated_home, tmp_path) -> Cycle:
    content = Content(_install(isolated_home))
    project = tmp_path / "habits"
    project.mkdir()
    return Cycle(Agent(project, content))
