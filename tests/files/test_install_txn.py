"""The transaction leaves the previous install or the new one, whichever point a crash hits.

A forked child runs the installer and dies (os._exit, no cleanup, like SIGKILL) right before
(or right after) its k-th filesystem change; the parent then runs recovery (what the next run
does first) and checks the tree is exactly the before-state or the after-state. Every k is
tried, so every point of the protocol is covered deterministically. The real-process
SIGKILL test is in test_install_crash.py.
"""

from __future__ import annotations

import json
import os
import shutil
import time

import pytest

from msd_core.files import txn
from msd_core.install.installer import install
from msd_core.install.lock import LOCK_NAME
from msd_core.install.source import ContentSource
from msd_core.install.uninstaller import uninstall
from msd_core.paths import resolve_target
from tests.kit.installkit import FIXTURE, age_host_lock, copy_fixture, snapshot
from tests.kit.installkit import crash_at as _crash_at

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

MAX_POINTS = 400
TIME_BUDGET = 40.0


def _state(root):
    snap = snapshot(root)
    snap.pop(".claude/" + LOCK_NAME, None)  # a SIGKILL can leave the (empty) lock file; the next run removes it
    return snap


def _sweep(tmp_path, prepare, action, config, rerun_every=3):
    """Crash `action` at every point; after recovery the tree, Claude Code's ~/.claude.json with it
    (the guard server's entry is a step of the transaction), is exactly the before or the after
    state. Returns (points, outcomes)."""
    work = tmp_path / "work"
    saved = tmp_path / "saved"
    os.environ["MSD_USER_CONFIG_DIR"] = str(work / ".config" / "msd")  # msd's record of host edits: inside the tree (isolated_home restores it)
    prepare(work)
    shutil.copytree(work, saved, symlinks=True)
    before = _state(work)
    action()
    after = _state(work)
    assert before != after
    outcomes = {"before": 0, "after": 0, "unnamed lock": 0}
    mid = 0
    start = time.monotonic()
    k = 0
    while k < MAX_POINTS and time.monotonic() - start < TIME_BUDGET:
        k += 1
        finished = False
        # Crashing right after call k leaves what crashing right before call k+1 leaves (the
        # only work in between is staging, which recovery discards), so "before" covers all.
        for when_after in (False,):
            shutil.rmtree(work)
            shutil.copytree(saved, work, symlinks=True)
            code = _crash_at(k, when_after, action)
            if code == 0:
                finished = True
                break
            assert code == 77, f"child failed at point {k} (exit {code})"
            if txn.pending(config):
                mid += 1
            if list(work.rglob(".claude.json.lock")):  # a crash between taking the host's lock and naming it in the journal
                outcomes["unnamed lock"] += 1
                age_host_lock(work)  # as if the next run came once the host's rule calls it stale (10 s)
            txn.recover(config)
            state = _state(work)
            if state == before:
                outcomes["before"] += 1
            elif state == after:
                outcomes["after"] += 1
            else:
                diff = sorted(set(state) ^ set(before)) + sorted(p for p in state if p in before and state[p] != before[p])
                pytest.fail(f"crash at point {k} (after={when_after}) left a mixed tree: {diff[:8]}")
            # and the next run completes cleanly (checked on every few points to keep the test fast)
            if state == before and k % rerun_every == 0:
                action()
                assert _state(work) == after
        if finished:
            break
    assert finished, f"ran out of budget after {k} crash points"
    assert mid > 0 and outcomes["before"] > 0
    return k, outcomes


def _home_with_settings(work):
    (work / ".claude").mkdir(parents=True)
    (work / ".claude/settings.json").write_text('{"theme": "dark"}')


def test_fresh_install_crash_at_every_point(tmp_path):
    content = ContentSource.from_dir(FIXTURE)
    target = resolve_target("global", tmp_path / "work" / ".claude")
    points, outcomes = _sweep(tmp_path, _home_with_settings, lambda: install(target, source=content), target.config)
    assert points > 20


def test_update_with_edits_crash_at_every_point(tmp_path):
    v1 = ContentSource.from_dir(FIXTURE)
    v2_dir = copy_fixture(tmp_path / "v2")
    (v2_dir / "msd-core/workflows/hello.md").write_text((v2_dir / "msd-core/workflows/hello.md").read_text().replace("Step 5: done.", "Step 5: finish."))
    (v2_dir / "msd-core/flows/hello.toml").unlink()
    (v2_dir / "msd-core/references/new.md").write_text("new\n")
    v2 = ContentSource.from_dir(v2_dir)
    target = resolve_target("global", tmp_path / "work" / ".claude")

    def prepare(work):
        _home_with_settings(work)
        install(target, source=v1)
        wf = target.config / "msd-core/workflows/hello.md"
        wf.write_text(wf.read_text().replace("# Hello workflow", "# Hello (mine)"))

    _sweep(tmp_path, prepare, lambda: install(target, source=v2), target.config)


def test_uninstall_crash_at_every_point(tmp_path):
    content = ContentSource.from_dir(FIXTURE)
    target = resolve_target("global", tmp_path / "work" / ".claude")

    def prepare(work):
        _home_with_settings(work)
        install(target, source=content)

    _sweep(tmp_path, prepare, lambda: uninstall(target), target.config)


def test_recover_discards_staging_without_journal(tmp_path):
    cfg = tmp_path / "cfg"
    (cfg / txn.TXN_DIRNAME / "new").mkdir(parents=True)
    (cfg / txn.TXN_DIRNAME / "new" / "0").write_text("half")
    assert txn.recover(cfg) == "discarded an unfinished staging folder"
    assert list(cfg.iterdir()) == []
    assert txn.recover(cfg) is None


def test_recover_finishes_committed_journal(tmp_path):
    cfg = tmp_path / "cfg"
    tdir = cfg / txn.TXN_DIRNAME
    tdir.mkdir(parents=True)
    (cfg / "kept.md").write_text("new")
    (tdir / "journal.json").write_text(json.dumps({"state": "committed", "ops": [{"op": "put", "rel": "kept.md", "n": 0, "had_old": False}]}))
    assert txn.recover(cfg) == "finished an interrupted install"
    assert (cfg / "kept.md").read_text() == "new"


def test_apply_failure_rolls_back_and_reports(tmp_path, monkeypatch):
    cfg = tmp_path / "cfg"
    cfg.mkdir()
    (cfg / "a.md").write_text("old a")
    calls = [0]
    real = os.replace

    def flaky(src, dst, *a, **kw):
        calls[0] += 1
        if calls[0] == 2:
            raise PermissionError(13, "Permission denied", str(dst))
        return real(src, dst, *a, **kw)

    monkeypatch.setattr(os, "replace", flaky)
    from msd_core.errors import OperationFailed

    with pytest.raises(OperationFailed) as exc:
        txn.apply(cfg, txn.Changes(puts={"a.md": b"new a", "b/c.md": b"new c"}))
    assert "nothing was changed" in exc.value.message
    monkeypatch.setattr(os, "replace", real)
    assert (cfg / "a.md").read_text() == "old a"
    assert sorted(p.name for p in cfg.iterdir()) == ["a.md"]
