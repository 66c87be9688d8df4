"""Shared fixtures.

- Every test runs with HOME, XDG_* and msd's user config folder pointed at a temp dir
  (autouse), so no test can touch the real home directory (test_home_isolation proves it).
- `--compact on|off` (or env MSD_COMPACT_DEFAULT) flips the schema default of
  `workflow.compact_content` for the whole run, subprocesses included.
- `corpus_dir` / `corpus_trees` give the real `.planning/` trees in ../shared/corpus/planning,
  skipping with a reason where ../shared is absent. The corpus is read-only: copy first.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CORPUS = Path(os.environ.get("MSD_TEST_CORPUS") or SHARED / "corpus" / "planning")
REAL_HOME = Path(os.path.expanduser("~")).resolve()
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def pytest_addoption(parser):
    parser.addoption(
        "--compact",
        choices=["on", "off"],
        default=None,
        help="flip the schema default of workflow.compact_content for this run (sets MSD_COMPACT_DEFAULT)",
    )


def pytest_configure(config):
    choice = config.getoption("--compact")
    if choice is not None:
        os.environ["MSD_COMPACT_DEFAULT"] = "true" if choice == "on" else "false"


def compact_default() -> bool:
    """The schema default of workflow.compact_content in force for this test run."""
    return os.environ.get("MSD_COMPACT_DEFAULT", "false").lower() in ("1", "true", "on", "yes")


@pytest.fixture
def compact_off(monkeypatch):
    """For a test of the compact-off path (detail parts listed and verified) whatever
    `--compact` says: the schema default is false for this test and its subprocesses."""
    monkeypatch.setenv("MSD_COMPACT_DEFAULT", "false")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_STATE_HOME", ".local/state"),
    ):
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.setenv("MSD_USER_CONFIG_DIR", str(home / ".config" / "msd"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    for var in ("GEMINI_CLI_HOME", "OPENCODE_CONFIG_DIR", "CODEX_HOME"):  # other runtimes' global folders
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("MSD_TRACE", raising=False)
    return home


@pytest.fixture
def corpus_dir() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not present: {CORPUS} (clone with ../shared beside the repo to run corpus tests)")
    return CORPUS


def corpus_tree_names() -> list[str]:
    if not CORPUS.is_dir():
        return []
    return sorted(p.name for p in CORPUS.iterdir() if (p / ".planning").is_dir())


@pytest.fixture
def copy_corpus_tree(corpus_dir, tmp_path):
    """Copy one corpus project (its .planning/) into a temp dir and return the project root."""

    def _copy(name: str) -> Path:
        dest = tmp_path / "proj" / name
        shutil.copytree(corpus_dir / name, dest, symlinks=True)
        for p in [dest, *dest.rglob("*")]:
            if not p.is_symlink():
                p.chmod(p.stat().st_mode | 0o200)
        return dest

    return _copy


def run_cli(module: str, args: list[str], cwd: Path | None = None, env: dict | None = None, input: str | None = None, timeout: float = 120):
    """Run `python -m <module> args` in a subprocess with the test's environment."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=str(cwd) if cwd else None,
        env=full_env,
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture
def msd_run():
    """Call `msd_run` in a subprocess: msd_run(["config", "get", "mode"], cwd=...)."""
    return lambda args, **kw: run_cli("msd_core.run", args, **kw)


@pytest.fixture
def msd():
    """Call `msd` in a subprocess: msd(["install", "--local"], cwd=...)."""
    return lambda args, **kw: run_cli("msd_core", args, **kw)


def _corpus_fingerprint() -> tuple[int, int]:
    """(file+folder count, newest mtime_ns) of the corpus: any write by a test changes it."""
    count, newest = 0, 0
    for dirpath, dirnames, filenames in os.walk(CORPUS):
        for name in dirnames + filenames:
            st = os.lstat(os.path.join(dirpath, name))
            count += 1
            newest = max(newest, st.st_mtime_ns)
    return count, newest


def pytest_sessionstart(session):
    session.config._msd_corpus = _corpus_fingerprint() if CORPUS.is_dir() else None


def pytest_sessionfinish(session, exitstatus):
    before = getattr(session.config, "_msd_corpus", None)
    if before is not None and _corpus_fingerprint() != before:
        sys.stderr.write(f"\nERROR: a test wrote into the read-only corpus {CORPUS}; copy it to a temp dir first\n")
        session.exitstatus = 1


@pytest.fixture
def inst(tmp_path):
    """A small fake install (tests.kit.installed.make_install) in tmp_path/cfg: the resolve and agents tests."""
    from tests.kit.installed import make_install

    return make_install(tmp_path / "cfg")


@pytest.fixture
def shim(tmp_path):
    """A folder holding an `msd_run` that runs this checkout's msd_run with this Python (the
    host's PATH in the skill-render tests of content and resolve)."""
    d = tmp_path / "shim-bin"
    d.mkdir()
    script = d / "msd_run"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m msd_core.run "$@"\n')
    script.chmod(0o755)
    return d
