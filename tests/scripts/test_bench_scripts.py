"""The benchmark scripts run end to end (one round, small): a row breaking (a command failing
in the bench's project, an older checkout's entry point) shows here, not on the day someone
re-measures. Timing is not asserted: these scripts print ratios, tests never time."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus" / "planning"  # the scripts' own default corpus

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not present: {CORPUS}")]


def _script(name: str, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("MSD_TRACE", "CLAUDE_CONFIG_DIR")}
    return subprocess.run([sys.executable, str(REPO / "scripts" / name), *args], cwd=str(REPO), env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)


def _older_checkout(tmp_path: Path) -> Path:
    """This checkout's msd_core and pyproject.toml, as `git archive` would give an older one."""
    before = tmp_path / "before"
    shutil.copytree(REPO / "msd_core", before / "msd_core", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", before / "pyproject.toml")
    return before


def test_bench_runtime_runs_every_row_and_an_older_checkout(tmp_path):
    r = _script("bench_runtime.py", "--runs", "1", "--no-peer", "--install", "dev", "--json",
                "--before", str(_older_checkout(tmp_path)))
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout)
    labels = [row["command"] for row in out["rows"]]
    for needed in ("commit -m M --plan P -- F", "undo --plan P --dry-run", "ship --phase N", "state sync",
                   "history-digest (cold)"):
        assert f"msd_run {needed}" in labels
    assert all(row["x_python"] > 0 and row["before_x_python"] > 0 for row in out["rows"])
    assert out["install"] == "dev"


def test_bench_runtime_fresh_install_is_a_real_venv(tmp_path):
    r = _script("bench_runtime.py", "--runs", "1", "--no-peer", "--only", "config get", "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "installed this checkout into a fresh venv" in r.stderr
    assert json.loads(r.stdout)["install"] == "fresh"


def test_bench_planning_runs_one_tree_against_the_peer(tmp_path):
    from tests.conftest import REAL_HOME

    cache = Path(os.environ.get("MSD_HOST_CACHE") or REAL_HOME / ".cache" / "msd-host")
    peers = sorted(cache.glob("get-shit-done-cc-*/node_modules/get-shit-done-cc/get-shit-done/bin/gsd-tools.cjs"))
    if not peers or not shutil.which("node"):
        pytest.skip("the peer (get-shit-done-cc, cached by the host tests) or node is not here")
    tree = sorted(p.name for p in CORPUS.iterdir() if (p / ".planning").is_dir())[0]
    r = _script("bench_planning.py", "--runs", "1", "--tree", tree, "--install", "dev", "--peer", str(peers[-1]),
                "--json", "--before", str(_older_checkout(tmp_path)))
    assert r.returncode == 0, r.stderr[-2000:]
    rows = json.loads(r.stdout)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    assert rows[0]["tree"] == tree and rows[0]["before_cold_s"] > 0


def test_bench_cli_times_each_command_both_ways():
    r = _script("bench_cli.py", "--runs", "1", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [row["command"] for row in out["rows"]] == ["--help", "install --help", "status", "install --local (no-op)",
                                                       "--version"]
    assert all(row["msd_wall_ms"] > 0 and row["typer_wall_ms"] > 0 for row in out["rows"])


def test_bench_stand_ins_measures_each_stand_in_against_its_library():
    r = _script("bench_stand_ins.py", "--runs", "1", "--json")
    assert r.returncode == 0, r.stderr
    rows = {row["stand_in"]: row for row in json.loads(r.stdout)["rows"]}
    assert set(rows) == {"lean/simple_yaml.py", "lean/simple_toml.py", "lean/spawn.py", "lean/record.py",
                         "lean/stand_in.py"}
    assert all((REPO / "msd_core" / name).is_file() for name in rows)


def test_bench_client_hooks_runs_every_client_form():
    """Each client's form of an allowed call reaches msd's guard and is let through (the script stops
    on any answer), and every row has a ratio to Claude Code's."""
    r = _script("bench_client_hooks.py", "--rounds", "1", "--json", timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    rows = json.loads(r.stdout)["cases"]
    assert {"copilot bash ls", "qwen run_shell_command ls", "gemini run_shell_command ls", "kimi Bash ls",
            "opencode bash ls"} <= set(rows)
    assert rows["claude Bash ls (baseline)"]["ratio"] == 1.0 and all(v["cpu_ms"] > 0 for v in rows.values())
