"""README.md's list of msd_run commands is the runtime's own command table (scripts/update_readme.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.kit.scripts import load_script

REPO = Path(__file__).resolve().parents[2]


def _script():
    return load_script("update_readme")


def test_the_readme_names_every_msd_run_command_and_no_other():
    from msd_core.run.dispatch import COMMANDS

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    mod = _script()
    block = readme.split(mod.BEGIN, 1)[1].split(mod.END, 1)[0]
    named = [line.split("`")[1] for line in block.splitlines() if line.startswith("| `")]
    assert named == list(COMMANDS), "run scripts/update_readme.py"
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "update_readme.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_the_check_fails_when_the_table_gains_a_command_the_readme_lacks():
    from msd_core.run.dispatch import COMMANDS

    mod = _script()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    more = dict(COMMANDS, **{"brand-new": ("msd_core.run.cmd_x", "a command the README does not list yet")})
    assert mod.rewritten(readme, more) != readme
    assert "`brand-new`" in mod.rewritten(readme, more)
    fewer = dict(list(COMMANDS.items())[:-1])
    assert mod.rewritten(readme, fewer) != readme


@pytest.mark.parametrize("text", ["no markers at all\n", "<!-- end of msd_run commands -->\n"])
def test_a_readme_without_its_markers_is_refused(text):
    mod = _script()
    with pytest.raises(ValueError, match="marker lines"):
        mod.rewritten(text, {})


def test_check_mode_exits_1_on_a_stale_readme_and_writes_nothing(tmp_path, monkeypatch):
    mod = _script()
    stale = tmp_path / "README.md"
    text = f"# x\n\n{mod.BEGIN}\n| `config` | old |\n{mod.END}\n"
    stale.write_text(text)
    monkeypatch.setattr(mod, "README", stale)
    assert mod.main(["--check"]) == 1
    assert stale.read_text() == text
    assert mod.main([]) == 0 and stale.read_text() != text
    assert mod.main(["--check"]) == 0
