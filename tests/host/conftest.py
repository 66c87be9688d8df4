"""Fixtures for the host tests (marker `host`): the real Claude Code CLI against a scripted model.

- `claude_cli` (session): the pinned CLI, installed once per machine into the cache folder
  (see hostkit.CACHE); every host test skips with the reason when npm or the registry is
  unreachable, and fails loudly when the cached CLI reports another version.
- `host`: a hostkit.Host with a scratch HOME and project under the test's tmp_path.
- `host_global` / `host_local`: the same after `msd install --global` / `--local`.

Every test in this folder gets the `host` marker: `pytest -m host` runs them alone,
`-m "not host"` leaves them out. They also share one xdist group, so under `-n` (pyproject's
addopts, `--dist loadgroup`) one worker runs them one after the other: one real CLI at a time,
while the other workers run the rest of the suite.
"""

from __future__ import annotations

from pathlib import Path

import hostkit
import pytest

HOST_DIR = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before xdist's worker reads the xdist_group markers
def pytest_collection_modifyitems(config, items):
    for item in items:
        if HOST_DIR in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.host)
            item.add_marker(pytest.mark.xdist_group("host"))


_STATE: dict = {}


@pytest.fixture(scope="session")
def claude_cli() -> Path:
    if "binary" not in _STATE:
        try:
            _STATE["binary"] = hostkit.ensure_claude()
        except hostkit.HostUnavailable as exc:
            _STATE["binary"] = exc
    got = _STATE["binary"]
    if isinstance(got, Exception):
        pytest.skip(f"host tests need Claude Code {hostkit.HOST_VERSION} from npm: {got}")
    try:
        hostkit.check_version(got)
    except hostkit.VersionMismatch as exc:
        pytest.fail(str(exc))
    return got


@pytest.fixture
def host(claude_cli, tmp_path) -> hostkit.Host:
    return hostkit.Host(claude_cli, tmp_path / "host")


@pytest.fixture
def host_global(host) -> hostkit.Host:
    host.install("global")
    return host


@pytest.fixture
def host_local(host) -> hostkit.Host:
    host.install("local")
    return host
