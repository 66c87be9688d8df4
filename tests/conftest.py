"""Shared fixtures.

- Every test runs with HOME, XDG_* and msd's user config folder pointed at a temp dir
  (autouse), so no test can touch the real home directory (test_home_isolation proves it).
- `--compact on|off` (or env MSD_COMPACT_DEFAULT) flips the schema default of
  `workflow.compact_content` for the whole run, subprocesses included.
- `corpus_dir` / `corpus_trees` give the real `.planning/` trees in ../shared/corpus/planning,
  skipping with a reason where ../shared is absent. The corpus is read-only: copy first.
- The compact suite: `--compact-suite` collects only the test files listed in
  tests/compact_suite.txt (CI's compact-on run, .ci/run step 2). Every session records which
  tests read the schema default of `workflow.compact_content` (MSD_COMPACT_DEFAULT, in this
  process and in every Python process a test starts: tests/kit/compact_site/sitecustomize.py)
  and fails when one outside the list and outside the slow and host tests did, or started a
  Python child the recorder cannot see into (`-I`/`-E`/`-S`, or PYTHONPATH replaced).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
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
    parser.addoption(
        "--compact-suite",
        action="store_true",
        help="collect only the test files tests/compact_suite.txt lists: those whose tests read workflow.compact_content's default",
    )


def pytest_configure(config):
    choice = config.getoption("--compact")
    if choice is not None:
        os.environ["MSD_COMPACT_DEFAULT"] = "true" if choice == "on" else "false"
    _compact_recorder_start(config)


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
    for var in ("GEMINI_CLI_HOME", "OPENCODE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "KIMI_CODE_HOME"):  # other runtimes' global folders
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


def repo_env(base: dict | None = None, **extra: str) -> dict:
    """A child's environment (default: this process's) with this checkout first on PYTHONPATH,
    the session's PYTHONPATH kept after it (the compact recorder is on it), and `extra` set."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.update(extra)
    return env


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
    problems = _compact_suite_problems(session.config)
    if problems:
        sys.stderr.write("\nERROR: " + "\n  ".join(problems) + "\n")
        session.exitstatus = 1


# ------------------------------------------------------------------ pytest-xdist work units

HOST_TESTS = "tests/host/"
CYCLE_TESTS = "tests/cycle/"
WIDE_FIXTURE = re.compile(r"""scope\s*=\s*["'](?:module|class|package|session)["']""")
SLOW_MARK = re.compile(r"pytest\.mark\.slow\b")
WHEEL_USER = re.compile(r"def test_\w*\([^)]*\bwheel_venv\b")  # a test that takes the fixture
WHEEL_TESTS = "wheel_venv"


def xdist_unit(nodeid: str, rootpath: Path) -> str:
    """The work unit a test goes to a worker in: all host tests together (one real CLI at a
    time; the unit starts first, being the longest), the modules that use the run's one built
    wheel (tests/install/conftest.py `wheel_venv`) together (one worker builds it while the other
    runs other tests, instead of waiting on its lock), a module that defines a fixture wider than
    one test (its tests may build on each other's state) whole, any other test alone."""
    path = nodeid.split("::", 1)[0]
    if path.startswith(HOST_TESTS):
        return HOST_TESTS
    if WHEEL_USER.search(_module_text(path, rootpath)):
        return WHEEL_TESTS
    if path not in _WIDE:
        _WIDE[path] = bool(WIDE_FIXTURE.search(_module_text(path, rootpath)))
    return path if _WIDE[path] else nodeid


_WIDE: dict[str, bool] = {}
_TEXT: dict[str, str] = {}


def _module_text(path: str, rootpath: Path) -> str:
    if path not in _TEXT:
        try:
            _TEXT[path] = (rootpath / path).read_text(encoding="utf-8")
        except OSError:
            _TEXT[path] = ""
    return _TEXT[path]


def xdist_unit_rank(unit: str, rootpath: Path) -> int:
    """When a work unit starts, lowest first (the longest-first rule, so the two workers finish
    together instead of one running a long unit alone at the end): 0 the host tests, 1 a unit of
    a module with slow tests (real agent CLIs, wheel builds, kill tests) or a whole-cycle scenario
    (tests/cycle/: two milestones end to end take 80-120 s), 2 a whole module (a wide fixture),
    3 any other test. Collection order within a rank."""
    path = unit.split("::", 1)[0]
    if unit == HOST_TESTS:
        return 0
    if unit == WHEEL_TESTS or path.startswith(CYCLE_TESTS) or SLOW_MARK.search(_module_text(path, rootpath)):
        return 1
    return 2 if "::" not in unit else 3


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: known only where it is installed
def pytest_xdist_make_scheduler(config, log):
    """`-n` with the default `--dist load`: xdist's scope scheduler over xdist_unit's units, in
    xdist_unit_rank's order. (xdist_group markers need a node id xdist can rename; pytest 9.2's cannot.)"""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Units(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_unit(nodeid, config.rootpath)

        def _assign_work_unit(self, node) -> None:
            if not getattr(self, "_ranked", False):  # the first call: the queue is whole, in collection order
                self._ranked = True
                for unit in sorted(self.workqueue, key=lambda u: xdist_unit_rank(u, config.rootpath)):
                    self.workqueue.move_to_end(unit)
            super()._assign_work_unit(node)

    config.option.loadscopereorder = False
    return Units(config, log)


# ------------------------------------------------------------------ the compact suite

HERE = Path(__file__).resolve().parent
COMPACT_SUITE = HERE / "compact_suite.txt"
COMPACT_SITE = HERE / "kit" / "compact_site"
NOT_IN_STEP_2 = ("slow", "host")  # .ci/run step 2 runs -m "not slow and not host"
_COMPACT: dict = {}  # the controller's log and the node ids of its slow and host tests


def compact_suite_entries(path: Path = COMPACT_SUITE) -> list[str]:
    """The list's paths (relative to the rootdir), comments and blank lines left out."""
    if not path.is_file():
        return []
    lines = (line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line.rstrip("/") for line in lines if line]


def _listed(rel: str, entries: list[str]) -> bool:
    return any(rel == e or rel.startswith(e + "/") for e in entries)


def _recorder():
    """tests/kit/compact_site/sitecustomize.py as a module (the copy children import, when this process has it)."""
    mod = sys.modules.get("sitecustomize")
    if getattr(mod, "__file__", None) and Path(mod.__file__).resolve() == COMPACT_SITE / "sitecustomize.py":
        return mod
    spec = importlib.util.spec_from_file_location("msd_compact_site", COMPACT_SITE / "sitecustomize.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _compact_recorder_start(config) -> None:
    if not (COMPACT_SITE / "sitecustomize.py").is_file():
        return  # a copy of this conftest without the recorder (tests/test_corpus_guard.py)
    rec = _recorder()
    if not hasattr(config, "workerinput"):  # the controller (or the only process): a new log
        fd, log = tempfile.mkstemp(prefix="msd-compact-reads-", suffix=".log")
        os.close(fd)
        config._msd_compact = _COMPACT
        _COMPACT.update(log=log, skip=set())
        os.environ[rec.LOG] = log
        os.environ[rec.SESSION] = rec._Environ.get(os.environ, rec.VAR, rec.UNSET)  # unwatched: no read
        paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
        if str(COMPACT_SITE) not in paths:
            os.environ["PYTHONPATH"] = os.pathsep.join([str(COMPACT_SITE)] + [p for p in paths if p])
    rec.install()
    _watch_children(rec)


def _watch_children(rec) -> None:
    """Note a Python child the recorder cannot see into that still gets the session's value."""
    if getattr(subprocess.Popen, "_msd_compact_watch", False):
        return
    init = subprocess.Popen.__init__

    def __init__(self, args, *a, **kw):
        env = kw.get("env")
        env = dict(os.environ) if env is None else env  # a copy: looking the variable up here is no read
        why = _blind(args, env, rec) if env.get(rec.LOG) else None
        if why:
            rec.note(f"{os.environ.get('PYTEST_CURRENT_TEST') or '?'}\tblind: {why}")
        init(self, args, *a, **kw)

    subprocess.Popen.__init__ = __init__
    subprocess.Popen._msd_compact_watch = True


def _blind(args, env, rec) -> str | None:
    if isinstance(args, (str, bytes, os.PathLike)) or not args:
        return None  # a shell line or one program: its Python children inherit env as it is
    argv = [os.fsdecode(a) for a in args]
    if not (os.path.basename(argv[0]).startswith("python") or os.path.realpath(argv[0]) == os.path.realpath(sys.executable)):
        return None
    if (env.get(rec.VAR) or rec.UNSET) != env.get(rec.SESSION, rec.UNSET):
        return None  # the test sets the value for the child itself
    for a in argv[1:]:
        if not a.startswith("-") or a in ("-c", "-m") or a.startswith("--"):
            break
        if set(a[1:]) & set("IES"):
            return f"{argv[0]} {a} ignores the recorder"
    if str(COMPACT_SITE) not in env.get("PYTHONPATH", "").split(os.pathsep):
        return f"{argv[0]} runs with a PYTHONPATH that leaves the recorder out"
    return None


def pytest_ignore_collect(collection_path, config):
    if config.getoption("--compact-suite") and collection_path.is_file() and collection_path.name.startswith("test_"):
        path, root = collection_path.resolve(), config.rootpath.resolve()
        if not (path.is_relative_to(root) and _listed(path.relative_to(root).as_posix(), compact_suite_entries())):
            return True
    return None


def pytest_runtest_logreport(report):
    """The controller (or the only process) sees every test's report, markers included."""
    if _COMPACT and any(m in report.keywords for m in NOT_IN_STEP_2):
        _COMPACT["skip"].add(report.nodeid)


def _compact_suite_problems(config) -> list[str]:
    """Why this session fails the compact-suite check (nothing: it passes)."""
    state = getattr(config, "_msd_compact", None)
    if state is None:
        return []
    try:
        lines = Path(state["log"]).read_text(encoding="utf-8").splitlines()
        os.unlink(state["log"])
    except OSError:
        lines = []
    entries = compact_suite_entries()
    rel_root = COMPACT_SUITE.relative_to(config.rootpath) if COMPACT_SUITE.is_relative_to(config.rootpath) else COMPACT_SUITE
    out, seen = [], {}
    for line in lines:
        nodeid, _, why = line.partition("\t")
        nodeid = nodeid.rsplit(" (", 1)[0]
        if nodeid in state["skip"]:
            continue
        rel = nodeid.split("::", 1)[0]
        if nodeid == "?" or not _listed(rel, entries):
            seen.setdefault(rel if nodeid != "?" else "outside any test", why or "reads MSD_COMPACT_DEFAULT")
    for rel, why in sorted(seen.items()):
        out.append(f"{rel}: {why}, but {rel_root} does not list it (CI's compact-on run would leave it out)")
    for e in entries:
        if not (config.rootpath / e).exists():
            out.append(f"{rel_root} lists {e}, which does not exist")
    return out


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
