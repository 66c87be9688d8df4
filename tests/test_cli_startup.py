"""`msd --version` answers without importing typer (or the pydantic typer loads to coerce
options); `msd --help` still lists every subcommand through typer."""

from __future__ import annotations

import subprocess
import sys

from msd_core import __version__

PROBE = r"""
import io, sys, contextlib
sys.argv = ["msd"] + sys.argv[1:]
from msd_core.cli.app import main
out = io.StringIO()
code = 0
with contextlib.redirect_stdout(out):
    try:
        main()
    except SystemExit as exc:
        code = exc.code or 0
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"typer", "click", "rich", "pydantic", "yaml"})
sys.stderr.write(repr((code, heavy)) + "\n")
sys.stdout.write(out.getvalue())
"""


def _msd(*args):
    r = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120)
    code, heavy = eval(r.stderr.strip().splitlines()[-1])  # noqa: S307 - our own repr
    return code, heavy, r.stdout


def test_version_without_typer():
    code, heavy, out = _msd("--version")
    assert code == 0 and out == __version__ + "\n"
    assert heavy == []


def test_help_still_lists_every_command():
    from msd_core.cli.app import SUBCOMMAND_MODULES

    code, heavy, out = _msd("--help")
    assert code == 0 and "typer" in heavy  # the probe sees typer when it is used
    for name in ("install", "update", "uninstall", "status", "config", "check", "bench", "init", "chain", "mcp"):
        assert f" {name} " in out, name
    assert len(SUBCOMMAND_MODULES) >= 7


def test_version_flag_among_others_goes_through_typer():
    code, heavy, out = _msd("--version", "install")
    assert code == 0 and out.strip() == __version__ and "typer" in heavy
