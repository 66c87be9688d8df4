"""paths.user_config_dir's Linux fast path gives platformdirs' answer (without importing it)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = r"""
import json, sys
from msd_core import paths
fast = str(paths.user_config_dir())
loaded = "platformdirs" in sys.modules
import platformdirs
print(json.dumps({"fast": fast, "loaded": loaded, "pd": platformdirs.user_config_dir("msd", appauthor=False)}))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the fast path is Linux only")
@pytest.mark.parametrize("xdg", [None, "", "   ", "/abs/xdg", "/abs/with space/cfg", "relative/xdg"])
def test_user_config_dir_matches_platformdirs(tmp_path, isolated_home, monkeypatch, xdg):
    monkeypatch.delenv("MSD_USER_CONFIG_DIR", raising=False)
    if xdg is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["fast"] == data["pd"]
    assert data["loaded"] is (xdg == "relative/xdg")  # only the odd case falls back to platformdirs


def test_msd_user_config_dir_wins(tmp_path, monkeypatch):
    from msd_core import paths

    monkeypatch.setenv("MSD_USER_CONFIG_DIR", str(tmp_path / "mine"))
    assert paths.user_config_dir() == tmp_path / "mine"
    assert paths.user_defaults_path() == tmp_path / "mine" / "defaults.json"
