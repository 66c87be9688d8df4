"""`msd --version` answers without importing typer; a command with plain options runs
without typer's parser (so without the pydantic typer loads to coerce options) and does
exactly what the typer path does; `msd --help` and everything else still go through typer."""

from __future__ import annotations

import json
import subprocess
import sys

from msd_core import __version__

PROBE = r"""
import io, os, sys, contextlib
sys.argv = ["msd"] + sys.argv[1:]
from msd_core.cli.app import main, build_app
from msd_core.cli.helpstyle import run_typer
run = (lambda: sys.exit(run_typer(build_app(), sys.argv[1:]))) if os.environ.get("PROBE_TYPER") else main
out = io.StringIO()
code = 0
with contextlib.redirect_stdout(out):
    try:
        run()
    except SystemExit as exc:
        code = exc.code or 0
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"typer", "click", "rich", "pydantic", "yaml"})
sys.stderr.write(repr((code, heavy)) + "\n")
sys.stdout.write(out.getvalue())
"""


def _msd(*args, typer_path: bool = False, home=None):
    import os

    env = dict(os.environ)
    if typer_path:
        env["PROBE_TYPER"] = "1"
    if home is not None:
        env["HOME"] = str(home)
    r = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120, env=env)
    *err, last = r.stderr.strip().splitlines()
    code, heavy = eval(last)  # noqa: S307 - our own repr
    return code, heavy, r.stdout, "\n".join(err)


def test_version_without_typer():
    code, heavy, out, _ = _msd("--version")
    assert code == 0 and out == __version__ + "\n"
    assert heavy == []


def test_help_still_lists_every_command():
    from msd_core.cli.app import SUBCOMMAND_MODULES

    code, heavy, out, _ = _msd("--help")
    assert code == 0 and "typer" in heavy  # the probe sees typer when it is used
    for name in ("install", "update", "uninstall", "status", "config", "check", "bench", "init", "chain", "mcp"):
        assert f" {name} " in out, name
    assert len(SUBCOMMAND_MODULES) >= 7


def test_version_flag_among_others_goes_through_typer():
    code, heavy, out, _ = _msd("--version", "install")
    assert code == 0 and out.strip() == __version__ and "typer" in heavy


def test_plain_install_runs_without_pydantic_and_matches_typer(tmp_path):
    cfg = tmp_path / "cfg"
    args = ("install", "--global", f"--config-dir={cfg}", "--json")
    code, heavy, first, _ = _msd(*args, home=tmp_path)
    assert code == 0 and "pydantic" not in heavy and "click" not in heavy
    assert json.loads(first)["counts"]["create"] > 0
    direct = _msd("install", "--global", "--config-dir", str(cfg), "--json", home=tmp_path)
    through_typer = _msd("install", "--global", "--config-dir", str(cfg), "--json", home=tmp_path, typer_path=True)
    assert direct[0] == through_typer[0] == 0
    assert "pydantic" in through_typer[1] and "pydantic" not in direct[1]
    assert direct[2] == through_typer[2]  # the same no-op report, byte for byte


def test_usage_errors_are_the_same_either_way(tmp_path):
    for args in (("install", "--global", "--local"), ("install", "--bogus"), ("install", "--config-dir"),
                 ("status", "--json=yes")):
        direct = _msd(*args, home=tmp_path)
        through_typer = _msd(*args, home=tmp_path, typer_path=True)
        assert direct[0] == through_typer[0] == 2, args
        assert direct[3] == through_typer[3], args


def test_commands_with_other_options_go_through_typer():
    from msd_core.cli.app import build_app, direct

    app = build_app()
    for argv in (["chain", "plan-phase"], ["config", "list"], ["install", "-h"], ["install", "--global", "extra"],
                 ["bench", "tokens"], ["nope"]):
        assert direct(app, argv) is None, argv
