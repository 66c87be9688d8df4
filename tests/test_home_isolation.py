"""The autouse fixture keeps every test away from the real home directory."""

import os
from pathlib import Path

from tests.conftest import REAL_HOME


def test_home_points_at_a_temp_dir(isolated_home):
    assert Path(os.path.expanduser("~")).resolve() == isolated_home.resolve()
    assert Path(os.path.expanduser("~")).resolve() != REAL_HOME


def test_writes_to_home_land_in_the_temp_dir(isolated_home):
    target = Path(os.path.expanduser("~/.claude/probe.txt"))
    target.parent.mkdir(parents=True)
    target.write_text("x")
    assert (isolated_home / ".claude" / "probe.txt").read_text() == "x"
    assert not (REAL_HOME / ".claude" / "probe.txt").exists() or REAL_HOME == isolated_home


def test_xdg_and_user_config_are_isolated(isolated_home):
    from msd_core import paths

    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        assert os.environ[var].startswith(str(isolated_home))
    assert str(paths.user_config_dir()).startswith(str(isolated_home))
    assert paths.default_global_config_dir() == isolated_home / ".claude"
    assert "CLAUDE_CONFIG_DIR" not in os.environ
