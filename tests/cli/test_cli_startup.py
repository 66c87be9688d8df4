"""typer reads every `msd` command line (one argument reader): `msd` prints what the typer app
run alone prints, byte for byte and with the same exit code, for help, the version, an install
and usage errors."""

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


def test_version():
    code, heavy, out, _ = _msd("--version")
    assert code == 0 and out == __version__ + "\n"
    assert "typer" in heavy


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


def test_every_command_line_is_read_by_typer(tmp_path):
    cfg = tmp_path / "cfg"
    code, heavy, first, _ = _msd("install", "--global", f"--config-dir={cfg}", "--json", home=tmp_path)
    assert code == 0 and "typer" in heavy
    assert json.loads(first)["counts"]["create"] > 0
    for args in (("--version",), ("install", "--global", "--config-dir", str(cfg), "--json"),
                 ("install", "--global", "--config-dir", str(cfg)), ("status", "--config-dir", str(cfg), "--json")):
        msd = _msd(*args, home=tmp_path)
        through_typer = _msd(*args, home=tmp_path, typer_path=True)
        assert msd[0] == through_typer[0] == 0, args
        assert "typer" in msd[1], args
        assert msd[2] == through_typer[2], args


def test_usage_errors_are_the_same_either_way(tmp_path):
    for args in (("install", "--global", "--local"), ("install", "--bogus"), ("install", "--config-dir"),
                 ("status", "--json=yes")):
        msd = _msd(*args, home=tmp_path)
        through_typer = _msd(*args, home=tmp_path, typer_path=True)
        assert msd[0] == through_typer[0] == 2, args
        assert msd[3] == through_typer[3], args


def test_msd_has_one_argument_reader():
    import importlib.util

    import msd_core.cli.app as app

    assert not hasattr(app, "direct")
    for gone in ("msd_core.cli.fast_install", "msd_core.cli.plainargs"):
        assert importlib.util.find_spec(gone) is None, gone
