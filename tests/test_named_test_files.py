"""Every test file msd_core's code names (`tests/...py` in a module's docstring or comment) exists: a
renamed or never-written test is not cited as proof (issue 48: qwen.py and copilot.py named test files
that were never there). The shipped content (msd_core/content/) is left out: its `tests/test_auth.py`
and the like are examples of a user's project."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMED = re.compile(r"\btests/[A-Za-z0-9_/.-]+?\.py\b")


def named_test_files(package: Path) -> dict[str, list[str]]:
    """{path named: [the modules naming it]} for the .py files under `package` but its content/."""
    out: dict[str, list[str]] = {}
    for module in sorted(package.rglob("*.py")):
        if "content" in module.relative_to(package).parts[:1]:
            continue
        for name in NAMED.findall(module.read_text(encoding="utf-8")):
            out.setdefault(name, []).append(module.relative_to(package.parent).as_posix())
    return out


def test_every_test_file_named_in_the_package_exists():
    named = named_test_files(ROOT / "msd_core")
    assert len(named) >= 15  # the check reads the package: many modules cite their tests
    missing = {name: where for name, where in named.items() if not (ROOT / name).is_file()}
    assert not missing, missing


def test_the_check_sees_a_missing_file(tmp_path):
    package = tmp_path / "msd_core"
    (package / "content").mkdir(parents=True)
    (package / "mod.py").write_text('"""Proven by tests/runtimes/test_nowhere_cli.py."""\n')
    (package / "content" / "example.py").write_text("# tests/test_auth.py\n")
    assert named_test_files(package) == {"tests/runtimes/test_nowhere_cli.py": ["msd_core/mod.py"]}
