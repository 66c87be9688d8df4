"""The package holds to docs/ARCHITECTURE.md: layers point down, no import circle, package maps complete.

scripts/check_layers.py does the reading; these tests run it on the real tree (nothing found)
and on tests/fixtures/architecture/, a small package that breaks every rule once, so a check
that stopped finding something fails here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.kit.scripts import load_script

REPO = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "architecture"


def _checker():
    return load_script("check_layers")


def test_the_package_holds_to_the_architecture_table():
    findings = _checker().check(REPO / "msd_core", REPO / "docs" / "ARCHITECTURE.md")
    assert findings == []


def test_every_package_and_top_level_module_has_a_row():
    table = _checker().read_table(REPO / "docs" / "ARCHITECTURE.md")
    packages = {p.name for p in (REPO / "msd_core").iterdir() if (p / "__init__.py").is_file()}
    modules = {p.stem for p in (REPO / "msd_core").glob("*.py") if p.stem != "__init__"}
    assert packages | modules <= set(table)
    assert set(table) - (packages | modules) == set()  # no row for a package that is gone


def test_the_fixture_breaks_every_rule_and_each_is_found():
    findings = _checker().check(FIXTURE / "fakepkg", FIXTURE / "ARCHITECTURE.md")
    text = "\n".join(findings)
    # an import inside a function, from a lower layer up
    assert "fakepkg/low/a.py:2: low imports fakepkg.high.b (high)" in text
    # a module named by a string (a dispatch table) counts as an import
    assert "fakepkg/low/d.py:1: low imports fakepkg.high.c (high)" in text
    # a circle: high.b and high.c import each other, and low.a reaches back into high.b
    assert "import circle between 3 modules: fakepkg.high.b, fakepkg.high.c, fakepkg.low.a" in text
    # a package the table does not hold
    assert "package stray is not in ARCHITECTURE.md's table" in text
    # a row naming a peer (same layer), and one naming a package the table does not hold
    assert "sideways (layer 1) may import low (layer 1): not a lower layer" in text
    assert "high may import ghost, which the table does not hold" in text
    # a package map that leaves a module out (high has no map: nothing is asked of it)
    assert "fakepkg/low/__init__.py: the package map does not name d.py" in text
    assert len(findings) == 7, findings


def test_every_package_map_names_every_module_of_its_package():
    assert _checker().unmapped(REPO / "msd_core") == []
    for pkg in ("install", "git", "cli", "checks", "runtimes"):  # the maps named as drifted, and those completed
        text = (REPO / "msd_core" / pkg / "__init__.py").read_text()
        assert ".py" in text, pkg


def test_the_script_exits_1_on_findings_and_0_on_the_real_tree():
    script = REPO / "scripts" / "check_layers.py"
    bad = subprocess.run([sys.executable, str(script), "--root", str(FIXTURE / "fakepkg"), "--doc", str(FIXTURE / "ARCHITECTURE.md")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "low imports fakepkg.high.b" in bad.stdout
    good = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert good.returncode == 0 and good.stdout.startswith("layers: msd_core holds to ARCHITECTURE.md")
