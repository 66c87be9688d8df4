"""The compact suite: CI's compact-on run (.ci/run step 2) runs only the test files
tests/compact_suite.txt lists, and every session fails when a test outside the list read
workflow.compact_content's schema default (tests/conftest.py, tests/kit/compact_site/).

Proved here on small suites run by a nested pytest with the real conftest and recorder: a
read in the test's process, in a child, a child the recorder cannot see into, under xdist;
no failure for a value the test set itself or for a slow test; `--compact-suite` collects the
listed files only. And from the code: the product reads MSD_COMPACT_DEFAULT in one place, the
way the recorder watches (os.environ.get).
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import COMPACT_SITE, COMPACT_SUITE, compact_suite_entries, pytest_xdist_make_scheduler, xdist_unit, xdist_unit_rank

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PKG = REPO / "msd_core"

READ_HERE = "from msd_core.config import schema\n\ndef test_x():\n    assert schema.default('workflow.compact_content') in (True, False)\n"
READ_CHILD = ("import subprocess, sys\n\ndef test_x():\n"
              "    code = \"from msd_core.config import schema; print(schema.default('workflow.compact_content'))\"\n"
              "    assert subprocess.run([sys.executable, '-c', code], capture_output=True, text=True).stdout.strip() in ('True', 'False')\n")
BLIND_CHILD = "import subprocess, sys\n\ndef test_x():\n    assert subprocess.run([sys.executable, '-I', '-c', 'pass']).returncode == 0\n"
FORCED = ("import subprocess, sys\nfrom msd_core.config import schema\n\ndef test_x(monkeypatch):\n"
          "    monkeypatch.setenv('MSD_COMPACT_DEFAULT', 'false')\n    assert schema.default('workflow.compact_content') is False\n"
          "    assert subprocess.run([sys.executable, '-I', '-c', 'pass']).returncode == 0\n")
SLOW = "import pytest\nfrom msd_core.config import schema\n\n@pytest.mark.slow\ndef test_x():\n    schema.default('workflow.compact_content')\n"
NO_READ = "def test_x():\n    assert 1 + 1 == 2\n"
READERS = ["test_blind.py", "test_child.py", "test_here.py"]


def _suite(tmp_path: Path, listed: list[str]) -> Path:
    suite = tmp_path / "suite"
    (suite / "kit").mkdir(parents=True)
    shutil.copy(HERE / "conftest.py", suite / "conftest.py")
    shutil.copytree(COMPACT_SITE, suite / "kit" / COMPACT_SITE.name, ignore=shutil.ignore_patterns("__pycache__"))
    (suite / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: slow\n    host: host\n")
    for name, body in {"test_here.py": READ_HERE, "test_child.py": READ_CHILD, "test_blind.py": BLIND_CHILD,
                       "test_forced.py": FORCED, "test_slow.py": SLOW, "test_none.py": NO_READ}.items():
        (suite / name).write_text(body)
    (suite / COMPACT_SUITE.name).write_text("# listed\n" + "".join(f"{p}\n" for p in listed))
    return suite


def _pytest(suite: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=str(suite),
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def _named(r: subprocess.CompletedProcess) -> list[str]:
    """The files the compact-suite check names."""
    return sorted(set(re.findall(r"(test_\w+\.py): (?:reads|blind)", r.stderr)))


def test_reads_outside_the_list_fail_the_session_and_name_their_files(tmp_path):
    r = _pytest(_suite(tmp_path, []))
    assert "6 passed" in r.stdout, r.stdout + r.stderr
    assert r.returncode == 1
    assert _named(r) == READERS  # not the forced value, the slow test or the test that reads nothing
    assert "blind: " in r.stderr and "-I ignores the recorder" in r.stderr


def test_the_same_suite_passes_when_the_list_names_them(tmp_path):
    r = _pytest(_suite(tmp_path, READERS))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "compact_suite.txt" not in r.stderr


def test_under_xdist_the_reads_of_every_worker_are_seen(tmp_path):
    r = _pytest(_suite(tmp_path, ["test_here.py"]), "-n", "2")
    assert "6 passed" in r.stdout, r.stdout + r.stderr
    assert r.returncode == 1
    assert _named(r) == ["test_blind.py", "test_child.py"]


def test_a_listed_path_that_does_not_exist_fails_the_session(tmp_path):
    r = _pytest(_suite(tmp_path, READERS + ["test_renamed.py"]))
    assert r.returncode == 1
    assert "lists test_renamed.py, which does not exist" in r.stderr


def test_compact_suite_collects_only_the_listed_files(tmp_path):
    r = _pytest(_suite(tmp_path, ["test_here.py", "test_none.py"]), "--compact-suite", "--compact", "on")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 passed" in r.stdout


def test_an_empty_list_collects_nothing_so_ci_fails_with_no_tests_ran(tmp_path):
    r = _pytest(_suite(tmp_path, []), "--compact-suite")
    assert r.returncode == 5, r.stdout + r.stderr  # .ci/run's set -e fails on it


def test_the_list_names_existing_paths_and_ci_runs_it_compact_on():
    entries = compact_suite_entries()
    assert entries and all((REPO / e).exists() for e in entries), entries
    ci = (REPO / ".ci" / "run").read_text()
    assert re.search(r"pytest -q --compact on --compact-suite -m \"not slow and not host\"", ci)


# ------------------------------------------------------------------ the product reads it in one place


def env_reads(root: Path) -> list[str]:
    """Where code under `root` names MSD_COMPACT_DEFAULT (the literal or schema.COMPACT_DEFAULT_ENV)
    other than schema.py's definition and its one use, `env_bool(COMPACT_DEFAULT_ENV)` in default()."""
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        allowed: set[int] = set()
        if rel == "config/schema.py":
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "COMPACT_DEFAULT_ENV" for t in node.targets):
                    allowed.update(id(n) for n in [node.value, *node.targets])
                if isinstance(node, ast.FunctionDef) and node.name == "default":
                    for call in ast.walk(node):
                        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "env_bool":
                            allowed.update(id(a) for a in call.args)
        for node in ast.walk(tree):
            named = (isinstance(node, ast.Constant) and node.value == "MSD_COMPACT_DEFAULT") or \
                    (isinstance(node, ast.Name) and node.id == "COMPACT_DEFAULT_ENV") or \
                    (isinstance(node, ast.Attribute) and node.attr == "COMPACT_DEFAULT_ENV")
            if named and id(node) not in allowed:
                out.append(f"{rel}:{node.lineno}")
    return out


def env_bool_reads_with_get(schema_py: Path) -> bool:
    """schema.env_bool looks its variable up with os.environ.get (what the recorder watches)."""
    tree = ast.parse(schema_py.read_text(encoding="utf-8"))
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "env_bool")
    gets = [c for c in ast.walk(fn) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "get"
            and ast.unparse(c.func.value) == "os.environ"]
    other = [s for s in ast.walk(fn) if isinstance(s, ast.Subscript) and ast.unparse(s.value) == "os.environ"]
    return bool(gets) and not other


def test_the_product_reads_the_variable_only_through_schema_default():
    assert env_reads(PKG) == []
    assert env_bool_reads_with_get(PKG / "config" / "schema.py")


def test_the_code_check_finds_another_reader_and_a_subscript_read(tmp_path):
    pkg = tmp_path / "pkg"
    shutil.copytree(PKG / "config", pkg / "config", ignore=shutil.ignore_patterns("__pycache__"))
    (pkg / "other.py").write_text("import os\nflag = os.environ['MSD_COMPACT_DEFAULT']\n")
    assert env_reads(pkg) == ["other.py:2"]
    schema_py = pkg / "config" / "schema.py"
    schema_py.write_text(schema_py.read_text().replace("raw = os.environ.get(name)", "raw = os.environ[name] if name in os.environ else None"))
    assert not env_bool_reads_with_get(schema_py)


# ------------------------------------------------------------------ xdist work units


def test_host_tests_are_one_unit_a_module_with_a_wide_fixture_another_the_rest_alone(tmp_path):
    (tmp_path / "tests" / "host").mkdir(parents=True)
    (tmp_path / "tests" / "wide.py").write_text("import pytest\n\n@pytest.fixture(scope=\"module\")\ndef f():\n    return 1\n")
    (tmp_path / "tests" / "plain.py").write_text("import pytest\n\n@pytest.fixture\ndef f():\n    return 1\n")
    assert xdist_unit("tests/host/test_a.py::t", tmp_path) == xdist_unit("tests/host/test_b.py::u[1]", tmp_path) == "tests/host/"
    assert xdist_unit("tests/wide.py::t", tmp_path) == xdist_unit("tests/wide.py::u", tmp_path) == "tests/wide.py"
    assert xdist_unit("tests/plain.py::t", tmp_path) == "tests/plain.py::t"
    assert xdist_unit("tests/gone.py::t", tmp_path) == "tests/gone.py::t"
    assert xdist_unit("tests/run/test_hot_path.py::test_x[debug-resume]", REPO) == "tests/run/test_hot_path.py"
    # the tests of the run's one built wheel: one unit, so no worker waits on another's build
    assert (xdist_unit("tests/install/test_install_wheel.py::test_wheel_installs_and_msd_install_local_works", REPO)
            == xdist_unit("tests/install/test_status_verify.py::test_a_built_wheel_verifies_and_a_tampered_file_is_named", REPO)
            == "wheel_venv")
    assert xdist_unit_rank("wheel_venv", REPO) == 1



def _tree_with_each_kind_of_unit(root):
    (root / "tests" / "host").mkdir(parents=True)
    (root / "tests" / "plain.py").write_text("def test_a():\n    pass\n")
    (root / "tests" / "wide.py").write_text("import pytest\n\n@pytest.fixture(scope=\"module\")\ndef f():\n    return 1\n")
    (root / "tests" / "cli.py").write_text("import pytest\n\npytestmark = pytest.mark.slow\n")
    (root / "tests" / "wheel.py").write_text("import pytest\n\n@pytest.mark.slow\ndef test_w():\n    pass\n")


def test_units_start_longest_kind_first_host_then_slow_then_whole_modules(tmp_path):
    _tree_with_each_kind_of_unit(tmp_path)
    ranks = {u: xdist_unit_rank(u, tmp_path) for u in ("tests/host/", "tests/cli.py::t", "tests/wheel.py::test_w",
                                                       "tests/cycle/test_m.py::t[on]", "tests/wide.py",
                                                       "tests/plain.py::test_a", "tests/gone.py::t")}
    assert ranks == {"tests/host/": 0, "tests/cli.py::t": 1, "tests/wheel.py::test_w": 1, "tests/cycle/test_m.py::t[on]": 1,
                     "tests/wide.py": 2, "tests/plain.py::test_a": 3, "tests/gone.py::t": 3}


def test_the_scheduler_sends_the_units_in_rank_order(tmp_path):
    """The real xdist scheduler the hook makes, two stand-in workers: the host unit goes out first,
    then the slow units, then a whole module, then the single tests (collection order otherwise)."""
    import types

    _tree_with_each_kind_of_unit(tmp_path)
    config = types.SimpleNamespace(rootpath=tmp_path, option=types.SimpleNamespace(loadscopereorder=True),
                                   getvalue=lambda name: {"dist": "load", "tx": ["2*popen"]}[name])
    sched = pytest_xdist_make_scheduler(config, None)
    collection = ["tests/plain.py::test_a", "tests/wide.py::t1", "tests/wide.py::t2", "tests/host/test_h.py::h1",
                  "tests/plain.py::test_b", "tests/wheel.py::test_w", "tests/cli.py::c1", "tests/host/test_g.py::g1"]
    sent = []

    class Worker:
        shutting_down = False
        gateway = types.SimpleNamespace(id="gw")

        def send_runtest_some(self, indexes):
            sent.append([collection[i] for i in indexes])

        def shutdown(self):
            self.shutting_down = True

    workers = [Worker(), Worker()]
    for w in workers:
        sched.add_node(w)
        sched.add_node_collection(w, collection)
    sched.schedule()
    while sched.workqueue:  # each worker, in turn, finishes what it holds and asks for more
        for w in workers:
            for unit in sched.assigned_work[w].values():
                for nodeid in unit:
                    unit[nodeid] = True
            sched._reschedule(w)
    assert sent == [["tests/host/test_h.py::h1", "tests/host/test_g.py::g1"], ["tests/wheel.py::test_w"],
                    ["tests/cli.py::c1"], ["tests/wide.py::t1", "tests/wide.py::t2"], ["tests/plain.py::test_a"],
                    ["tests/plain.py::test_b"]]
