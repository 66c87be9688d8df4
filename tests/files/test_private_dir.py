"""msd's private project folder: self-ignoring whoever creates it, never through a symlink."""

from __future__ import annotations

import json
import subprocess

import pytest

from msd_core.errors import OperationFailed
from msd_core.files.private_dir import ensure_private_dir


def _project(tmp_path):
    proj = tmp_path / "proj"
    (proj / ".planning").mkdir(parents=True)
    (proj / ".planning" / "config.json").write_text("{}\n")
    return proj


def test_created_with_its_own_gitignore(tmp_path):
    proj = _project(tmp_path)
    folder = ensure_private_dir(proj)
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"


def test_symlinked_or_file_folder_is_refused(tmp_path):
    proj = _project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (proj / ".planning" / ".msd").symlink_to(elsewhere)
    with pytest.raises(OperationFailed, match="symlink"):
        ensure_private_dir(proj)
    assert list(elsewhere.iterdir()) == []
    (proj / ".planning" / ".msd").unlink()
    (proj / ".planning" / ".msd").write_text("x")
    with pytest.raises(OperationFailed):
        ensure_private_dir(proj)


@pytest.mark.parametrize("argv", [
    ["config", "set", "mode", "yolo"],
    ["memory", "index"],
])
def test_every_writer_leaves_git_status_clean(tmp_path, msd_run, argv):
    proj = _project(tmp_path)
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    r = msd_run([*argv, "--cwd", str(proj)])
    assert r.returncode == 0, r.stderr
    status = subprocess.run(["git", "-C", str(proj), "status", "--porcelain", "--untracked-files=all"],
                            capture_output=True, text=True, check=True).stdout
    assert ".msd" not in status, status


def test_config_set_refuses_a_symlinked_private_folder(tmp_path, msd_run):
    proj = _project(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (proj / ".planning" / ".msd").symlink_to(elsewhere)
    r = msd_run(["config", "set", "mode", "yolo", "--cwd", str(proj)])
    assert r.returncode == 1 and "symlink" in r.stderr
    assert json.loads((proj / ".planning" / "config.json").read_text()) == {}
    assert list(elsewhere.iterdir()) == []
