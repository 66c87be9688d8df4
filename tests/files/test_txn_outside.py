"""A transaction's step on a file outside its folder (files/txn.py `Outside`: Claude Code's
~/.claude.json): made under the host's lock, rolled back to the byte-exact before-image (mode
kept), or, when the host wrote the file after msd did, with only msd's edit taken out; a lock a
killed run named in its journal is taken over at once.

The kill is a forked child that exits hard (os._exit, like SIGKILL) as it is about to put the
manifest, the step after the edit: the journal is left prepared, the file edited."""

from __future__ import annotations

import json
import os
import stat
import time

import pytest

from msd_core.files import txn
from msd_core.files.dirlock import lock_of

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

BEFORE = b'{\r\n    "numStartups": 4,\r\n    "theme": "dark"\r\n}'


def add_entry(data):
    obj = json.loads(data or b"{}")
    obj.setdefault("mcpServers", {})["msd-guard"] = {"command": "python"}
    return json.dumps(obj).encode()


def changes(host, edit=add_entry):
    return txn.Changes(puts={"a.md": b"a", "manifest.json": b"m"}, last="manifest.json", outside=[txn.Outside(host, edit, 0o600)])


def killed_at_the_manifest(config, ch, hold_lock=False) -> None:
    """Run txn.apply in a child that dies as it puts the manifest (and, with `hold_lock`, dies
    holding the lock on the outside file: right before it would remove it)."""
    pid = os.fork()
    if pid == 0:  # child
        try:
            real_replace, real_rmdir = os.replace, os.rmdir

            def replace(src, dst, *a, **k):
                if str(dst).endswith("manifest.json"):
                    os._exit(77)
                return real_replace(src, dst, *a, **k)

            def rmdir(path, *a, **k):
                if hold_lock and str(path).endswith(".lock"):
                    os._exit(77)
                return real_rmdir(path, *a, **k)

            os.replace, os.rmdir = replace, rmdir
            txn.apply(config, ch)
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 77
    assert txn.pending(config)


@pytest.fixture
def where(tmp_path):
    config = tmp_path / "cfg"
    config.mkdir()
    host = tmp_path / ".claude.json"
    host.write_bytes(BEFORE)
    os.chmod(host, 0o640)
    return config, host


def test_a_kill_after_the_edit_is_rolled_back_to_the_byte_exact_before_image(where):
    config, host = where
    killed_at_the_manifest(config, changes(host))
    assert "msd-guard" in host.read_text() and (config / "a.md").exists()
    txn.recover(config)
    assert host.read_bytes() == BEFORE and stat.S_IMODE(host.stat().st_mode) == 0o640
    assert not (config / "a.md").exists() and not txn.pending(config) and not lock_of(host).exists()


def test_a_host_write_after_msds_edit_is_kept_and_only_msds_edit_goes(where):
    config, host = where
    killed_at_the_manifest(config, changes(host))
    obj = json.loads(host.read_bytes())
    obj["numStartups"] = 5  # the host saved the file meanwhile, msd's entry kept in it
    obj["mcpServers"]["db"] = {"command": "db-mcp"}
    host.write_text(json.dumps(obj, indent=2))
    txn.recover(config)
    assert json.loads(host.read_bytes()) == {"numStartups": 5, "theme": "dark", "mcpServers": {"db": {"command": "db-mcp"}}}


def test_a_file_msd_created_goes_and_a_removed_file_comes_back(tmp_path):
    config = tmp_path / "cfg"
    config.mkdir()
    host = tmp_path / ".claude.json"
    killed_at_the_manifest(config, changes(host))
    assert host.exists() and stat.S_IMODE(host.stat().st_mode) == 0o600
    txn.recover(config)
    assert not host.exists()
    host.write_bytes(BEFORE)
    killed_at_the_manifest(config, changes(host, lambda data: txn.REMOVE))
    assert not host.exists()
    txn.recover(config)
    assert host.read_bytes() == BEFORE


def test_the_lock_a_killed_run_named_is_taken_over_at_once(where):
    config, host = where
    killed_at_the_manifest(config, changes(host), hold_lock=True)
    assert lock_of(host).is_dir()  # fresh: the host's own rule would wait 10 s
    t0 = time.monotonic()
    txn.recover(config)
    assert time.monotonic() - t0 < 5.0
    assert host.read_bytes() == BEFORE and not lock_of(host).exists()


def test_an_edit_that_fails_rolls_the_whole_transaction_back(where):
    from msd_core.errors import OperationFailed

    config, host = where

    def refuse(_data):
        raise OperationFailed("an MCP server named 'msd-guard' is already registered and is not msd-core's")

    with pytest.raises(OperationFailed):
        txn.apply(config, changes(host, refuse))
    assert host.read_bytes() == BEFORE and not (config / "a.md").exists() and not txn.pending(config)
    assert not lock_of(host).exists()


def test_a_symlink_is_never_written_through(where, tmp_path):
    from msd_core.errors import OperationFailed

    config, real = where
    link = tmp_path / "link.json"
    link.symlink_to(real)
    with pytest.raises(OperationFailed, match="symlink"):
        txn.apply(config, changes(link))
    assert real.read_bytes() == BEFORE and link.is_symlink() and not (config / "a.md").exists()
