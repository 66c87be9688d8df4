"""A command that refuses writes nothing (docs/CONTRACTS.md): no `.planning/.msd/`, lock file or
folder appears when it exits non-zero before its work, one class of refusal per test."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path

import pytest
import typer

from msd_core.errors import UsageError
from msd_core.files import fresh
from msd_core.files.atomic import locked
from msd_core.files.private_dir import ensure_private_dir
from msd_core.paths import project_state_dir
from tests.kit.flowkit import fake_install
from tests.kit.gitkit import new_repo


def tree(root: Path) -> set[str]:
    """Every path under `root` but git's own folder."""
    return {os.path.relpath(os.path.join(d, n), root) for d, dirs, names in os.walk(root)
            for n in dirs + names if ".git" not in Path(d, n).relative_to(root).parts}


def one_line(r, code: int) -> str:
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    return lines[0]


@pytest.fixture
def install(tmp_path):
    return fake_install(tmp_path / "cfg")


def test_step_done_refused_in_a_folder_with_no_project_makes_no_planning_folder(msd_run, tmp_path, install):
    repo = new_repo(tmp_path / "fresh")
    r = msd_run(["step-done", "--workflow", "plan-phase", "--root", str(install), "--step", "nope", "--result", "{}"],
                cwd=repo)
    assert "has no step 'nope'" in one_line(r, 2)
    assert tree(repo) == set()


def test_step_done_refused_in_a_project_leaves_no_private_folder(msd_run, tmp_path, install):
    project = new_repo(tmp_path / "proj")
    (project / ".planning").mkdir()
    before = tree(project)
    r = msd_run(["step-done", "--workflow", "plan-phase", "--root", str(install), "--step", "research",
                 "--result", "{}"], cwd=project)
    assert "is not the current step" in one_line(r, 2)
    assert tree(project) == before


def test_an_in_process_call_that_refuses_leaves_nothing_either(tmp_path, install):
    from msd_core.run.dispatch import call

    repo = new_repo(tmp_path / "fresh")
    code, out = call(["step-done", "--workflow", "plan-phase", "--root", str(install), "--step", "nope",
                      "--cwd", str(repo)])
    assert code == 2 and "has no step 'nope'" in out["message"]
    assert tree(repo) == set()


def test_a_refused_call_keeps_a_private_folder_that_already_held_files(msd_run, tmp_path, install):
    project = new_repo(tmp_path / "proj")
    ensure_private_dir(project)
    (project_state_dir(project) / "mine.txt").write_text("x")
    before = tree(project)
    r = msd_run(["step-done", "--workflow", "plan-phase", "--root", str(install), "--step", "nope"], cwd=project)
    one_line(r, 2)
    assert tree(project) == before  # the lock this call made went with its refusal


def test_a_lock_made_for_a_body_that_refuses_is_removed_and_one_that_finished_stays(tmp_path):
    lock = tmp_path / "x.lock"
    with pytest.raises(UsageError):
        with locked(lock, 1):
            assert lock.exists()
            raise UsageError("refused")
    assert not lock.exists()
    with locked(lock, 1):
        pass
    assert lock.exists()
    with pytest.raises(UsageError):  # a lock file that was there before the refusal is not ours to remove
        with locked(lock, 1):
            raise UsageError("refused")
    assert lock.exists()


def test_a_lock_whose_file_was_replaced_while_waiting_locks_the_new_file(tmp_path):
    lock = tmp_path / "x.lock"
    lock.write_text("")
    held = os.open(lock, os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)

    got = {}

    def take():
        with locked(lock, 10):
            got["inode"] = os.stat(lock).st_ino

    t = threading.Thread(target=take)
    t.start()
    time.sleep(0.2)  # the taker waits on the held file
    os.unlink(lock)  # its holder refused: removed while held (files.atomic.locked.__exit__)
    os.close(held)
    t.join(10)
    assert got and lock.exists() and got["inode"] == os.stat(lock).st_ino  # the file at the path, not the removed one


def test_the_msd_entry_takes_back_a_private_folder_made_by_a_refused_command(tmp_path):
    from msd_core.cli.common import errors_to_exit

    project = tmp_path / "proj"
    project.mkdir()

    @errors_to_exit
    def refuses():
        ensure_private_dir(project)
        raise UsageError("bad argument")

    @errors_to_exit
    def works():
        ensure_private_dir(project)

    with pytest.raises(typer.Exit) as exc:
        refuses()
    assert exc.value.exit_code == 2 and tree(project) == set()
    works()
    assert (project / ".planning" / ".msd" / ".gitignore").is_file()
    fresh.start()


def test_plugin_build_into_a_missing_parent_is_one_line_and_makes_no_tree(msd, tmp_path):
    out = tmp_path / "no" / "such" / "plugin"
    line = one_line(msd(["plugin", "build", str(out)]), 2)
    assert f"its parent folder {out.parent} does not exist" in line
    assert not (tmp_path / "no").exists()
    ok = msd(["plugin", "build", str(tmp_path / "plugin")])  # the last folder itself may be made
    assert ok.returncode == 0, ok.stderr


@pytest.mark.parametrize("argv", [["install", "--global"], ["mcp", "install", "--scope", "user"]])
def test_a_config_dir_whose_parent_is_missing_is_one_line_and_makes_no_tree(msd, tmp_path, argv):
    target = tmp_path / "no" / "such" / "cfg"
    line = one_line(msd([*argv, "--config-dir", str(target)], cwd=tmp_path), 2)
    assert f"its parent folder {target.parent} does not exist" in line
    assert not (tmp_path / "no").exists()
