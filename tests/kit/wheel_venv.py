"""This checkout as a built wheel installed into a fresh venv, made once per test run.

The folder is `wheel-venv` beside the run's base temp folder when xdist runs it (the workers'
base folders share a parent), in it otherwise; the first worker builds under a lock, the
others find the `done` marker (or the `skip` reason) it leaves.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600, **kw)


def wheel_env() -> dict:
    """The environment to run the venv's programs in: this process's as it is now (the calling
    test's HOME) without PYTHONPATH or VIRTUAL_ENV, so the checkout is not importable."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def built_wheel_venv(basetemp: Path) -> tuple[Path, Path]:
    root = (basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp) / "wheel-venv"
    root.mkdir(parents=True, exist_ok=True)
    with open(root / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "done").is_file() and not (root / "skip").is_file():
            _build(root)
    if (root / "skip").is_file():
        pytest.skip((root / "skip").read_text())
    return next((root / "wheels").glob("msd_core-*.whl")), root / "venv"


def _build(root: Path) -> None:
    for d in ("wheels", "venv"):
        shutil.rmtree(root / d, ignore_errors=True)
    build = _run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "--no-build-isolation", "-w", str(root / "wheels")])
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next((root / "wheels").glob("msd_core-*.whl"))
    assert _run([sys.executable, "-m", "venv", str(root / "venv")]).returncode == 0
    pip = _run([str(root / "venv" / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)],
               env={**wheel_env(), "PIP_CACHE_DIR": str(root / "pip-cache")})
    if pip.returncode != 0 and ("Could not find a version" in pip.stderr or "NewConnectionError" in pip.stderr):
        (root / "skip").write_text(f"PyPI not reachable for the wheel's dependencies: {pip.stderr.strip().splitlines()[-1]}")
        return
    assert pip.returncode == 0, pip.stderr[-2000:]
    (root / "done").write_text(wheel.name + "\n")
