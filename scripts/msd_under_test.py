"""The msd the benchmark scripts time: installed as users install it, and an older checkout beside it.

`msd_bindir(mode, venv)`: `fresh` installs this checkout into a new venv the way `pipx
install .` does (a built wheel, not editable, in a venv made without pip, so no .pth file of
pip's or setuptools' runs at start-up; the dependencies come from the package index or pip's
cache) and returns its bin folder; `dev` returns the folder of the running interpreter (an
editable install, quicker to set up). `before_launcher(...)`: a copy of the installed
`msd_run` script that imports the entry point an older checkout declares, for timing that
checkout (on PYTHONPATH) beside this one through its own entry point.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def add_install_option(ap) -> None:
    ap.add_argument("--install", choices=("fresh", "dev"), default="fresh",
                    help="fresh: this checkout installed into a new venv as pipx installs it (default); "
                         "dev: the msd_run beside this interpreter (an editable install, quicker to set up)")


def msd_bindir(mode: str, venv: Path) -> Path:
    return Path(sys.executable).parent if mode == "dev" else fresh_install(venv)


def fresh_install(venv: Path) -> Path:
    """This checkout installed as `pipx install .` installs it: a built wheel (not editable) in
    a venv made without pip, so no .pth file of pip's or setuptools' runs at start-up; the
    dependencies come from the package index (or pip's cache). Returns the venv's bin folder."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, stdin=subprocess.DEVNULL)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(bindir / "python"), "install", "-q",
                           "--disable-pip-version-check", str(REPO)], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"bench: installing this checkout into a fresh venv failed (pip >= 22.3 needed; "
                         f"or pass --install dev): {done.stderr.strip()[-400:]}")
    print(f"bench: installed this checkout into a fresh venv in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return bindir


def before_launcher(before: Path, msd_run: str, folder: Path) -> str:
    """The installed msd_run script, rewritten to import the entry point `before` declares."""
    target = "msd_core.run:main"
    pyproject = before / "pyproject.toml"
    if pyproject.is_file():
        import re

        found = re.search(r'^msd_run\s*=\s*"([^"]+)"', pyproject.read_text(encoding="utf-8"), re.M)
        target = found.group(1) if found else target
    module, func = target.split(":")
    lines = Path(msd_run).read_text(encoding="utf-8").splitlines(keepends=True)
    out = [ln[:len(ln) - len(ln.lstrip())] + f"from {module} import {func} as main\n"
           if ln.lstrip().startswith("from msd_core") else ln for ln in lines]
    if out == lines:
        raise SystemExit(f"bench: cannot find the entry point import in {msd_run}")
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "msd_run"
    script.write_text("".join(out), encoding="utf-8")
    script.chmod(0o755)
    return str(script)
